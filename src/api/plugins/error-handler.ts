/** The one error handler: every failure becomes RFC 9457 problem+json with a code from the closed set. */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from 'fastify';
import { RecordEncodeError } from '@corebridge/records';
import { refusalDetail } from '../../client/refusal.ts';
import { ApiError, toProblem, type Violation } from '../../errors.ts';
import { PATH_SEGMENT_MAX_CHARS } from '../protection/limits.ts';

interface AjvError {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

const PARTS: Record<string, Violation['in']> = {
  body: 'body',
  params: 'path',
  querystring: 'query',
  headers: 'header',
};

function violations(error: FastifyError & { validation?: AjvError[]; validationContext?: string }): Violation[] {
  const where = PARTS[error.validationContext ?? 'body'] ?? 'body';
  return (error.validation ?? []).map((v) => {
    let pointer = v.instancePath;
    let detail = v.message ?? 'is invalid';
    if (v.keyword === 'required') {
      pointer += `/${String(v.params['missingProperty'])}`;
      detail = 'is required';
    }
    if (v.keyword === 'additionalProperties') {
      pointer += `/${String(v.params['additionalProperty'])}`;
      detail = 'is not a known field';
    }
    return { pointer, in: where, detail };
  });
}

/** Maps anything thrown to the ApiError the client sees; `req` names the limits that applied to it. */
export function toApiError(error: unknown, req?: FastifyRequest): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof RecordEncodeError) {
    // The schema and the client's pointers (src/client/refusal.ts) should have caught it: told in the same words.
    const detail = refusalDetail(error.limit);
    return new ApiError('VALIDATION_FAILED', `a value ${detail}`, {
      violations: [{ pointer: '', in: 'body', detail }],
    });
  }
  const e = error as FastifyError & { validation?: AjvError[]; validationContext?: string };
  if (e.validation) {
    return new ApiError('VALIDATION_FAILED', 'the request does not match the schema', { violations: violations(e) });
  }
  const tooLarge = () =>
    new ApiError('PAYLOAD_TOO_LARGE', req ? `the body is larger than ${req.routeOptions.bodyLimit} bytes` : undefined);
  switch (e.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError('UNSUPPORTED_MEDIA_TYPE');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return tooLarge();
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new ApiError('URI_TOO_LONG', `a path segment is longer than ${PATH_SEGMENT_MAX_CHARS} characters`);
    case 'FST_ERR_BAD_URL':
      return new ApiError('MALFORMED_REQUEST', 'the URL could not be read (bad percent-encoding)');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ApiError('MALFORMED_REQUEST', 'the body is empty');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new ApiError('MALFORMED_REQUEST', 'the body is not valid JSON');
    default:
  }
  if (e.statusCode === 400) return new ApiError('MALFORMED_REQUEST', 'the request could not be read');
  if (e.statusCode === 404) return new ApiError('NOT_FOUND');
  if (e.statusCode === 405) return new ApiError('METHOD_NOT_ALLOWED');
  if (e.statusCode === 413) return tooLarge();
  if (e.statusCode === 415) return new ApiError('UNSUPPORTED_MEDIA_TYPE');
  return new ApiError('INTERNAL_ERROR');
}

function pathOf(req: FastifyRequest): string {
  return req.url.split('?')[0] ?? req.url;
}

export function sendProblem(req: FastifyRequest, reply: FastifyReply, error: ApiError) {
  reply.problemCode = error.code;
  return reply
    .code(error.status)
    .headers(error.headers)
    .type('application/problem+json')
    .send(toProblem(error, pathOf(req), req.id));
}

// The order Allow lists methods in; any other method the router knows comes after.
const ALLOW_ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
const allowRank = (method: string) => (ALLOW_ORDER.includes(method) ? ALLOW_ORDER.indexOf(method) : ALLOW_ORDER.length);

/**
 * The methods the router has a route for at this path. A wildcard match (`*`: the CORS preflight route,
 * the identity provider's /oauth/*) names no resource, so it makes no method allowed.
 */
function allowedMethods(app: FastifyInstance, path: string): string[] {
  return app.supportedMethods
    .filter((method) => {
      const route = app.findRoute({ method: method as HTTPMethods, url: path });
      return route !== null && !('*' in route.params);
    })
    .sort((a, b) => allowRank(a) - allowRank(b));
}

/**
 * Fastify's `frameworkErrors`: what the router refuses before any route or hook runs (a path segment over
 * the router's limit, bad percent-encoding). No hook has run, so the request id header and the request's
 * log line are written here.
 */
export function renderFrameworkError(error: FastifyError, req: FastifyRequest, reply: FastifyReply) {
  const apiError = toApiError(error, req);
  reply.header('x-request-id', req.id);
  req.log.info({ method: req.method, url: req.url, status: apiError.status, code: apiError.code }, 'request completed');
  return sendProblem(req, reply, apiError);
}

/**
 * Security events beside the request line: authorization failures (warn), objects not found for an
 * authenticated caller (debug), and validation failures (info) with the JSON pointers that failed — never
 * the values, which may be secrets.
 */
function logSecurityEvent(req: FastifyRequest, error: ApiError): void {
  const who = { principal: req.principal?.subject, role: req.principal?.role, route: req.routeOptions.url };
  if (error.status === 403) req.log.warn({ ...who, code: error.code, detail: error.message }, 'authorization failed');
  // An object the caller may not see is answered 404 like a missing one (the back-end does not tell them
  // apart): debug only, since the request line (info) already carries status, code, principal and request id.
  else if (error.status === 404 && req.principal)
    req.log.debug({ ...who, code: error.code }, 'object not found for caller');
  else if (error.code === 'VALIDATION_FAILED') {
    req.log.info({ ...who, pointers: error.violations?.map((v) => `${v.in}:${v.pointer}`) }, 'validation failed');
  }
}

export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error, req, reply) => {
    const apiError = toApiError(error, req);
    if (apiError.status >= 500) req.log.error({ err: error }, 'unhandled error');
    else logSecurityEvent(req, apiError);
    return sendProblem(req, reply, apiError);
  });
  // No route for this method: 405 with Allow when the path has other methods (RFC 9110 section 15.5.6), else 404.
  app.setNotFoundHandler((req, reply) => {
    const path = pathOf(req);
    const allow = allowedMethods(app, path).join(', ');
    if (!allow) return sendProblem(req, reply, new ApiError('NOT_FOUND', `no resource at ${path}`));
    return sendProblem(
      req,
      reply,
      new ApiError('METHOD_NOT_ALLOWED', `${req.method} is not allowed here; allowed: ${allow}`, {
        headers: { allow },
      }),
    );
  });
}
