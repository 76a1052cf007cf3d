/**
 * The closed set of error codes the API answers with, and their RFC 9457 problem rendering.
 * Every error response goes through `ApiError` and the one error handler.
 */
export const ERROR_CODES = {
  VALIDATION_FAILED: { status: 400, title: 'The request is not valid' },
  MALFORMED_REQUEST: { status: 400, title: 'The request body could not be read' },
  IDEMPOTENCY_KEY_REQUIRED: { status: 400, title: 'An Idempotency-Key header is required' },
  UNAUTHENTICATED: { status: 401, title: 'Authentication is required' },
  INSUFFICIENT_SCOPE: { status: 403, title: 'The access token lacks the scope for this operation' },
  FORBIDDEN: { status: 403, title: 'The caller may not perform this operation' },
  NOT_FOUND: { status: 404, title: 'The resource does not exist' },
  METHOD_NOT_ALLOWED: { status: 405, title: 'The method is not allowed on this resource' },
  CONFLICT: { status: 409, title: 'The request conflicts with the current state of the resource' },
  IDEMPOTENCY_IN_PROGRESS: { status: 409, title: 'A request with this idempotency key is still being processed' },
  PRECONDITION_FAILED: { status: 412, title: 'The resource has changed since it was read' },
  PAYLOAD_TOO_LARGE: { status: 413, title: 'The request body is too large' },
  URI_TOO_LONG: { status: 414, title: 'The request URL is too long' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, title: 'The request body must be application/json' },
  IDEMPOTENCY_KEY_REUSED: { status: 422, title: 'This idempotency key was used with a different request' },
  BUSINESS_RULE_VIOLATION: { status: 422, title: 'A business rule does not allow this change' },
  PRECONDITION_REQUIRED: { status: 428, title: 'This change needs an If-Match precondition' },
  RATE_LIMITED: { status: 429, title: 'Too many requests' },
  HEADERS_TOO_LARGE: { status: 431, title: 'The request headers are too large' },
  INTERNAL_ERROR: { status: 500, title: 'Internal server error' },
  BACKEND_PROGRAM_FAILED: { status: 502, title: 'The back-end program failed while processing the request' },
  BACKEND_UNAVAILABLE: { status: 503, title: 'The back-end system is not available' },
  BACKEND_BUSY: { status: 503, title: 'The back-end system is busy' },
  OVERLOADED: { status: 503, title: 'The service is overloaded' },
  /** From the front of `npm run stack`: no API instance answered. */
  SERVICE_UNAVAILABLE: { status: 503, title: 'The service is not available' },
  REQUEST_TIMEOUT: { status: 504, title: 'The request took too long to process' },
  BACKEND_TIMEOUT: { status: 504, title: 'The back-end system did not answer in time' },
} as const satisfies Record<string, { status: number; title: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

export interface Violation {
  /** JSON pointer (RFC 6901) into the request part named by `in`. */
  pointer: string;
  in: 'body' | 'path' | 'query' | 'header';
  detail: string;
}

export interface ProblemDetails {
  type: string;
  title: string;
  status: number;
  detail?: string;
  instance: string;
  requestId: string;
  code: ErrorCode;
  /** The back-end's reason code, where one applies. */
  reason?: string;
  errors?: Violation[];
  /** Extension members (RFC 9457 section 3.2) an operation documents, such as the subscriptionId of a 409. */
  [member: string]: unknown;
}

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly reason: string | undefined;
  readonly violations: Violation[] | undefined;
  readonly headers: Record<string, string>;
  readonly extensions: Record<string, string>;

  constructor(
    code: ErrorCode,
    detail?: string,
    extra: {
      reason?: string;
      violations?: Violation[];
      headers?: Record<string, string>;
      extensions?: Record<string, string>;
    } = {},
  ) {
    super(detail ?? ERROR_CODES[code].title);
    this.name = 'ApiError';
    this.code = code;
    this.status = ERROR_CODES[code].status;
    this.reason = extra.reason;
    this.violations = extra.violations;
    this.headers = extra.headers ?? {};
    this.extensions = extra.extensions ?? {};
  }
}

export function problemType(code: ErrorCode): string {
  return `/problems/${code.toLowerCase().replaceAll('_', '-')}`;
}

export function toProblem(error: ApiError, instance: string, requestId: string): ProblemDetails {
  const problem: ProblemDetails = {
    // First, so that none can stand in for a member the standard defines.
    ...error.extensions,
    type: problemType(error.code),
    title: ERROR_CODES[error.code].title,
    status: error.status,
    instance,
    requestId,
    code: error.code,
  };
  // 5xx details stay in the log.
  if (error.status < 500 && error.message !== problem.title) problem.detail = error.message;
  if (error.reason) problem.reason = error.reason;
  if (error.violations) problem.errors = error.violations;
  return problem;
}
