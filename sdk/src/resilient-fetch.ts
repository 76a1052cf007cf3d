/**
 * The fetch under the typed client: one logical call in, as many attempts as the retry rules allow out.
 * Each attempt has its own time-out, carries the same Idempotency-Key and X-Request-ID (set once per call by
 * the client), and a fresh bearer token (`getToken` may refresh it between attempts). The answer's body is
 * read within the attempt, so a connection lost halfway through an answer is retried like any other.
 */
import { CorebridgeNetworkError, CorebridgeTimeoutError, type CallInfo } from './errors.ts';
import {
  isRetryableAnswer,
  isRetryableNetworkFailure,
  mayRepeat,
  parseRetryAfter,
  retryDelay,
  type RetryOptions,
} from './retry.ts';

export type FetchLike = (request: Request) => Promise<Response>;

export interface ResilientFetchOptions {
  fetch: FetchLike;
  timeoutMs: number;
  retries: RetryOptions;
  /** The bearer token for an attempt; none sends no Authorization (a caller's own header is kept). */
  getToken?: () => string | undefined | Promise<string | undefined>;
}

/** What the last attempt of the call that answered `response` was (the client puts it on results and errors). */
const calls = new WeakMap<Response, CallInfo>();

export function callInfoOf(response: Response): CallInfo | undefined {
  return calls.get(response);
}

/** Statuses whose answers have no body (the Response constructor refuses one). */
const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

export function resilientFetch(options: ResilientFetchOptions): FetchLike {
  const { retries, timeoutMs } = options;
  return async (request) => {
    const method = request.method;
    const body = request.body === null ? null : await request.arrayBuffer();
    const idempotencyKey = request.headers.get('idempotency-key') ?? undefined;
    const requestId = request.headers.get('x-request-id') ?? undefined;
    const repeatable = mayRepeat(method, idempotencyKey !== undefined);
    const callerSignal = request.signal;

    for (let attempt = 1; ; attempt++) {
      const info: CallInfo = { method, url: request.url, requestId, idempotencyKey, attempts: attempt };
      const mayRetry = repeatable && attempt <= retries.max;
      const headers = new Headers(request.headers);
      const token = await options.getToken?.();
      if (token && !headers.has('authorization')) headers.set('authorization', `Bearer ${token}`);
      const timeout = AbortSignal.timeout(timeoutMs);
      let retryAfterMs: number | undefined;
      try {
        const answer = await options.fetch(
          new Request(request.url, {
            method,
            headers,
            body,
            redirect: request.redirect,
            credentials: request.credentials,
            cache: request.cache,
            signal: AbortSignal.any([callerSignal, timeout]),
          }),
        );
        const bytes = await answer.arrayBuffer();
        const response = new Response(NULL_BODY_STATUSES.has(answer.status) ? null : bytes, {
          status: answer.status,
          statusText: answer.statusText,
          headers: answer.headers,
        });
        retryAfterMs = parseRetryAfter(answer.headers.get('retry-after'));
        const retry =
          mayRetry &&
          isRetryableAnswer(answer.status, problemCode(answer.headers, bytes)) &&
          (retryAfterMs === undefined || retryAfterMs <= retries.maxRetryAfterMs);
        if (!retry) {
          calls.set(response, info);
          return response;
        }
      } catch (error) {
        if (callerSignal.aborted) throw callerSignal.reason;
        const timedOut = timeout.aborted;
        if (!mayRetry || (!timedOut && !isRetryableNetworkFailure(error))) {
          throw timedOut
            ? new CorebridgeTimeoutError(timeoutMs, info, { cause: error })
            : new CorebridgeNetworkError(`no answer: ${describe(error)}`, info, { cause: error });
        }
      }
      await sleep(retryDelay(attempt - 1, retries, retryAfterMs), callerSignal);
    }
  };
}

function problemCode(headers: Headers, bytes: ArrayBuffer): unknown {
  if (!/json/i.test(headers.get('content-type') ?? '')) return undefined;
  try {
    return (JSON.parse(new TextDecoder().decode(bytes)) as { code?: unknown } | null)?.code;
  } catch {
    return undefined;
  }
}

/** fetch's "fetch failed" says little; its cause says what happened (ECONNREFUSED, UND_ERR_SOCKET, …). */
function describe(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
  const reason = typeof cause?.code === 'string' ? cause.code : typeof cause?.message === 'string' ? cause.message : '';
  const message = error instanceof Error ? error.message : String(error);
  return reason ? `${message} (${reason})` : message;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
