/**
 * What a call throws: the API's problem+json answer (`CorebridgeProblemError`), or no answer at all after
 * the last attempt (`CorebridgeNetworkError`, and `CorebridgeTimeoutError` when the attempts timed out).
 * Each carries the request id and the Idempotency-Key of the logical call, to quote to support or to retry with.
 */
import type { components } from './schema.ts';

export type Problem = components['schemas']['Problem'];
export type ProblemCode = Problem['code'];
export type ProblemViolation = NonNullable<Problem['errors']>[number];

/** What every call reports about itself, answered or not. */
export interface CallInfo {
  method: string;
  url: string;
  /** X-Request-ID: the server's answer when there is one, else the one the client sent. */
  requestId: string | undefined;
  /** The Idempotency-Key sent on every attempt, when the call had one. */
  idempotencyKey: string | undefined;
  /** How many times the request was sent (1 + retries). */
  attempts: number;
}

export class CorebridgeError extends Error {
  readonly method: string;
  readonly url: string;
  readonly requestId: string | undefined;
  readonly idempotencyKey: string | undefined;
  readonly attempts: number;

  constructor(message: string, info: CallInfo, options?: ErrorOptions) {
    super(message, options);
    this.name = 'CorebridgeError';
    this.method = info.method;
    this.url = info.url;
    this.requestId = info.requestId;
    this.idempotencyKey = info.idempotencyKey;
    this.attempts = info.attempts;
  }
}

/**
 * An answer other than 2xx, as the API's RFC 9457 problem details. An answer that is not problem+json (from a
 * proxy in between, say) is described as `about:blank` with its status, and has no `code`.
 */
export class CorebridgeProblemError extends CorebridgeError {
  readonly status: number;
  readonly type: string;
  readonly title: string;
  readonly detail: string | undefined;
  readonly instance: string | undefined;
  /** The API's error code; undefined when the answer was not the API's problem+json. */
  readonly code: ProblemCode | undefined;
  /** The back-end's reason code, where one applies (e.g. INSUFFICIENT_FUNDS). */
  readonly reason: string | undefined;
  /** The invalid parameters: a JSON pointer into the request part named by `in`, and what is wrong there. */
  readonly errors: ProblemViolation[];
  /** Retry-After of the answer, in milliseconds, when it carried one. */
  readonly retryAfterMs: number | undefined;
  /** The body as received (the problem object, or the text of a non-JSON answer). */
  readonly body: unknown;
  readonly headers: Headers;

  constructor(response: Response, body: unknown, info: CallInfo, retryAfterMs: number | undefined) {
    const problem = isProblem(body) ? body : undefined;
    const title = problem?.title ?? (response.statusText || `HTTP ${response.status}`);
    const detail = problem?.detail;
    super(`${response.status} ${problem?.code ?? title}${detail ? `: ${detail}` : ''}`, {
      ...info,
      requestId: response.headers.get('x-request-id') ?? problem?.requestId ?? info.requestId,
    });
    this.name = 'CorebridgeProblemError';
    this.status = response.status;
    this.type = problem?.type ?? 'about:blank';
    this.title = title;
    this.detail = detail;
    this.instance = problem?.instance;
    this.code = problem?.code;
    this.reason = problem?.reason;
    this.errors = problem?.errors ?? [];
    this.retryAfterMs = retryAfterMs;
    this.body = body;
    this.headers = response.headers;
  }
}

/** No answer after the last attempt: the connection failed (refused, reset, closed before the answer). */
export class CorebridgeNetworkError extends CorebridgeError {
  constructor(message: string, info: CallInfo, options?: ErrorOptions) {
    super(message, info, options);
    this.name = 'CorebridgeNetworkError';
  }
}

/** No answer within `timeoutMs` on the last attempt (each attempt has its own time-out). */
export class CorebridgeTimeoutError extends CorebridgeNetworkError {
  readonly timeoutMs: number;

  constructor(timeoutMs: number, info: CallInfo, options?: ErrorOptions) {
    super(
      `no answer within ${timeoutMs} ms (${info.attempts} attempt${info.attempts === 1 ? '' : 's'})`,
      info,
      options,
    );
    this.name = 'CorebridgeTimeoutError';
    this.timeoutMs = timeoutMs;
  }
}

function isProblem(body: unknown): body is Problem {
  if (typeof body !== 'object' || body === null) return false;
  const b = body as Record<string, unknown>;
  return typeof b['status'] === 'number' && typeof b['title'] === 'string' && typeof b['type'] === 'string';
}
