/**
 * What each error code of the closed set (errors.ts) means and what a client should do about it, in
 * words: the page behind each problem `type` URI (`/problems/<code>`). Typed by the code set, so a new
 * code does not compile without its text.
 */
import { ERROR_CODES, problemType, type ErrorCode } from '../errors.ts';

export interface ErrorHelp {
  /** What happened, in one or two sentences. */
  meaning: string;
  /** What to do about it. */
  remedy: string;
}

export const ERROR_HELP: Record<ErrorCode, ErrorHelp> = {
  VALIDATION_FAILED: {
    meaning:
      "One or more values in the request break the operation's schema: a missing field, a wrong type, a value out of range or too long for the record it is written to.",
    remedy:
      'Read the `errors` list: each entry names the request part (`in`), the JSON pointer and what is wrong. Fix those values and send again.',
  },
  MALFORMED_REQUEST: {
    meaning: 'The request body is not valid JSON, or the request could not be read at all.',
    remedy: 'Send a well-formed JSON body with `Content-Type: application/json`.',
  },
  IDEMPOTENCY_KEY_REQUIRED: {
    meaning:
      'This operation changes state and needs an `Idempotency-Key` header, so that a retry cannot apply it twice.',
    remedy:
      'Generate a unique key (a UUID) per logical operation, send it in `Idempotency-Key`, and reuse the same key when you retry.',
  },
  UNAUTHENTICATED: {
    meaning: 'The request has no access token, or the token is malformed, expired, or not issued for this API.',
    remedy:
      'Get a fresh access token from the authorization server and send it as `Authorization: Bearer <token>`. The `WWW-Authenticate` header says what was wrong.',
  },
  INSUFFICIENT_SCOPE: {
    meaning: 'The access token is valid but does not carry the scope this operation needs.',
    remedy:
      'Request a token with the scope named in the `WWW-Authenticate` header. Your role may not allow that scope at all.',
  },
  FORBIDDEN: {
    meaning: "The caller is known but may not perform this operation, whatever the token's scopes.",
    remedy: 'Use an identity whose role allows the operation; do not retry with the same credentials.',
  },
  NOT_FOUND: {
    meaning: 'The resource does not exist, or it exists but is not yours to see: the API does not tell the two apart.',
    remedy: 'Check the identifier in the URL and that it belongs to the signed-in customer.',
  },
  METHOD_NOT_ALLOWED: {
    meaning: 'The resource exists but does not support this HTTP method.',
    remedy: 'Use one of the methods listed in the `Allow` header.',
  },
  CONFLICT: {
    meaning:
      'The request conflicts with the current state of the resource, for example creating something that already exists.',
    remedy: 'Read the resource again, then decide whether the change still makes sense.',
  },
  IDEMPOTENCY_IN_PROGRESS: {
    meaning: 'A request with the same idempotency key is still being processed.',
    remedy: "Wait a moment and retry with the same key and the same body: you will get the first request's answer.",
  },
  PRECONDITION_FAILED: {
    meaning: 'The `If-Match` entity tag you sent no longer matches: someone changed the resource since you read it.',
    remedy: 'Read the resource again to get its current `ETag`, reapply your change, and send it with the new tag.',
  },
  PAYLOAD_TOO_LARGE: {
    meaning: 'The request body is larger than the service accepts.',
    remedy: 'Send a smaller body; lists of items have their own limits in the schema.',
  },
  URI_TOO_LONG: {
    meaning: 'The request URL, with its query string, is longer than the service accepts.',
    remedy: 'Shorten the URL: fewer or shorter query parameters.',
  },
  UNSUPPORTED_MEDIA_TYPE: {
    meaning:
      'The request body is not declared as a media type the operation takes; `detail` names the one that arrived.',
    remedy:
      'Send the body as JSON with `Content-Type: application/json` (curl -d sends `application/x-www-form-urlencoded` unless told otherwise).',
  },
  IDEMPOTENCY_KEY_REUSED: {
    meaning: 'This idempotency key was already used with a different request (another method, path or body).',
    remedy: 'Use a new key for a new operation; reuse a key only to retry exactly the same request.',
  },
  BUSINESS_RULE_VIOLATION: {
    meaning:
      'The request is well-formed, but a business rule of the back-end system does not allow this change. The `reason` field names the rule.',
    remedy:
      'Read `reason` and `detail`, change the request or the state it depends on; sending it again unchanged will fail again.',
  },
  PRECONDITION_REQUIRED: {
    meaning:
      "This change must say which version of the resource it applies to, so that it cannot overwrite someone else's change.",
    remedy: 'Read the resource, then send the change with `If-Match: <ETag>`.',
  },
  RATE_LIMITED: {
    meaning: 'You sent more requests than your limit allows in the current window.',
    remedy: 'Wait for the number of seconds in `Retry-After`, then retry; spread your requests out.',
  },
  HEADERS_TOO_LARGE: {
    meaning: 'The request headers, taken together, are larger than the service accepts.',
    remedy: 'Send fewer or smaller headers (large cookies are the usual cause).',
  },
  INTERNAL_ERROR: {
    meaning: "The service failed while handling the request. The details stay in the service's log.",
    remedy: 'Retry later; if it persists, report the `requestId` from the answer to the operators.',
  },
  BACKEND_PROGRAM_FAILED: {
    meaning: 'The back-end program that handles this request failed while processing it.',
    remedy: 'Report the `requestId` to the operators. Retry a change only with the same idempotency key.',
  },
  BACKEND_UNAVAILABLE: {
    meaning: 'The back-end system cannot be reached right now.',
    remedy: 'Retry after the time in `Retry-After`, with the same idempotency key for a change.',
  },
  BACKEND_BUSY: {
    meaning: 'The back-end system has too much work in hand to take this request now.',
    remedy: 'Retry after the time in `Retry-After`, with the same idempotency key for a change.',
  },
  OVERLOADED: {
    meaning: 'The service is shedding load to keep answering the requests it has.',
    remedy: 'Retry after the time in `Retry-After`, with backoff and jitter.',
  },
  SERVICE_UNAVAILABLE: {
    meaning: 'No instance of the service answered behind the front.',
    remedy: 'Retry after the time in `Retry-After`; if it persists, tell the operators.',
  },
  REQUEST_TIMEOUT: {
    meaning: 'The service did not finish the request in time; a change may or may not have been applied.',
    remedy:
      'Retry with the same idempotency key: the service then answers with the outcome of the first attempt, or applies it once.',
  },
  BACKEND_TIMEOUT: {
    meaning: 'The back-end system did not answer in time; a change may or may not have been applied.',
    remedy:
      'Retry with the same idempotency key: the service then answers with the outcome of the first attempt, or applies it once.',
  },
};

/** The code a problem `type` URI's last segment names (`insufficient-scope` → INSUFFICIENT_SCOPE), if any. */
const CODE_BY_SLUG = new Map<string, ErrorCode>(
  (Object.keys(ERROR_CODES) as ErrorCode[]).map((code) => [problemType(code).slice('/problems/'.length), code]),
);

export function errorCodeForSlug(slug: string): ErrorCode | undefined {
  return CODE_BY_SLUG.get(slug);
}
