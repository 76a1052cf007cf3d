/**
 * When a call may be sent again, and after how long. A client retries only what is safe to repeat: an
 * idempotent method, or a request carrying an Idempotency-Key (the server then answers a repeat with the first
 * answer instead of running it twice).
 */

export interface RetryOptions {
  /** Retries after the first attempt (0: none). */
  max: number;
  /** The first back-off ceiling; doubled per retry up to `maxDelayMs`, and the wait is a random share of it. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** A Retry-After longer than this is not waited for: the answer goes back to the caller instead. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_OPTIONS: Readonly<RetryOptions> = Object.freeze({
  max: 2,
  baseDelayMs: 250,
  maxDelayMs: 5_000,
  maxRetryAfterMs: 30_000,
});

/**
 * Methods whose repeat has the effect of one call (RFC 9110 §9.2.2). PATCH is not among them (RFC 5789): a
 * patch may be relative (append, increment), and even an absolute merge patch repeated after a late answer can
 * overwrite someone else's change in between; so a PATCH, like a POST, is repeated only with an Idempotency-Key.
 */
const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

/** Whether a request may be sent again at all: an idempotent method, or one that carries an Idempotency-Key. */
export function mayRepeat(method: string, hasIdempotencyKey: boolean): boolean {
  return IDEMPOTENT_METHODS.has(method.toUpperCase()) || hasIdempotencyKey;
}

/** The API's code for "the first request with this Idempotency-Key is still running" (src/api/errors.ts). */
export const IDEMPOTENCY_IN_PROGRESS = 'IDEMPOTENCY_IN_PROGRESS';

/**
 * Answers worth another attempt: 429 (rate limited), 502/503/504 (the service or its back-end failed to
 * answer; with a key, a repeat cannot run the change twice), and 409 only when it says the same key is still
 * in flight. No other 4xx: the same request would get the same refusal.
 */
export function isRetryableAnswer(status: number, problemCode: unknown): boolean {
  if (status === 429 || status === 502 || status === 503 || status === 504) return true;
  return status === 409 && problemCode === IDEMPOTENCY_IN_PROGRESS;
}

/**
 * Network failures not worth repeating: the peer's certificate or the TLS set-up was refused, which
 * another attempt will not change. Everything else (refused, reset, closed, DNS, time-out) is repeated.
 */
export function isRetryableNetworkFailure(error: unknown): boolean {
  const cause = (error as { cause?: { code?: unknown } } | null)?.cause;
  const code = typeof cause?.code === 'string' ? cause.code : '';
  return !/CERT|TLS|SSL|SELF_SIGNED|UNABLE_TO_VERIFY/.test(code);
}

/**
 * Retry-After (RFC 9110 §10.2.3) in milliseconds from now: delay-seconds or an HTTP-date; undefined when absent or
 * unreadable.
 */
export function parseRetryAfter(value: string | null, now: number = Date.now()): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // Every HTTP-date form (IMF-fixdate and the two obsolete ones) starts with the day's name; Date.parse alone
  // would take "-1" for a year.
  if (!/^[A-Za-z]{3}/.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * The wait before retry number `retry` (0 for the first): "full jitter", a random time up to an exponentially
 * growing ceiling, so that clients refused together do not come back together. A Retry-After is a minimum:
 * it is waited for, plus a random share of the first ceiling for the same reason.
 */
export function retryDelay(
  retry: number,
  options: RetryOptions,
  retryAfterMs: number | undefined,
  random: () => number = Math.random,
): number {
  if (retryAfterMs !== undefined) return retryAfterMs + random() * options.baseDelayMs;
  return random() * Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** retry);
}
