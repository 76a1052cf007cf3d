/** The one error handler: every failure becomes RFC 9457 problem+json with a code from the closed set. */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from 'fastify';
import { RecordEncodeError } from '@corebridge/records';
import { refusalDetail } from '../../client/refusal.ts';
import { ApiError, toProblem, type Violation } from '../../errors.ts';
import { PATH_SEGMENT_MAX_CHARS } from '../protection/limits.ts';

interface AjvError {
  instancePath: string;
  schemaPath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

type Schema = Record<string, unknown>;
type ValidationError = FastifyError & { validation?: AjvError[]; validationContext?: string };

const PARTS: Record<string, Violation['in']> = {
  body: 'body',
  params: 'path',
  querystring: 'query',
  headers: 'header',
};

/** The subschema at an Ajv schema path (`#/properties/limit`) of the route's schema, if it can be followed. */
function schemaAt(root: unknown, schemaPath: string): Schema | undefined {
  let node = root;
  for (const part of schemaPath.replace(/^#\/?/, '').split('/')) {
    if (!part) continue;
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Schema)[part.replaceAll('~1', '/').replaceAll('~0', '~')];
  }
  return typeof node === 'object' && node !== null ? (node as Schema) : undefined;
}

/** The schema path of the schema an error's keyword belongs to: `#/properties/limit/pattern` → `#/properties/limit`. */
const parentPath = (schemaPath: string) => schemaPath.slice(0, schemaPath.lastIndexOf('/'));

/**
 * A pattern that stands for a number in text (a query value: `contentSchema` names the integer it holds) is
 * told as the number's range, which is what the client chose, not as the regular expression. A format with an
 * example (the identifiers) is told by that example first: "must look like 1001-01 (Account identifier; …)".
 */
function patternDetail(v: AjvError, schema: Schema | undefined): string | undefined {
  if (v.keyword !== 'pattern') return undefined;
  const content = schema?.['contentSchema'] as Schema | undefined;
  const example = (schema?.['examples'] as unknown[] | undefined)?.[0];
  if (!content && typeof example === 'string') {
    const what = typeof schema?.['description'] === 'string' ? `${schema['description']}; ` : '';
    return `must look like ${example} (${what}pattern ${String(v.params['pattern'])})`;
  }
  if (!content || content['type'] !== 'integer') return undefined;
  const [min, max] = [content['minimum'], content['maximum']];
  if (typeof min === 'number' && typeof max === 'number') return `must be between ${min} and ${max}`;
  if (typeof min === 'number') return `must be a whole number of at least ${min}`;
  if (typeof max === 'number') return `must be a whole number of at most ${max}`;
  return 'must be a whole number';
}

/** Ajv's comparisons ("must be <= 1000000") in words. */
const COMPARISONS: Record<string, string> = { '<=': 'at most', '>=': 'at least', '<': 'below', '>': 'above' };

function rangeDetail(v: AjvError): string | undefined {
  if (!['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'].includes(v.keyword)) return undefined;
  const words = COMPARISONS[String(v.params['comparison'])];
  return words ? `must be ${words} ${String(v.params['limit'])}` : undefined;
}

const show = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

/**
 * An `anyOf` the value matched no branch of, told once at the value's pointer. Branches of constants (an enum as
 * TypeBox writes it) or of bare types: "must be one of A, B, C" / "must be string or null". Otherwise the
 * branches that failed on the value's type only are left out: the branch of its type says what is wrong.
 * Returns the errors the cluster replaces, and the entry to tell instead, if any.
 */
function anyOfCluster(anyOf: AjvError, errors: AjvError[]): { replaced: Set<AjvError>; detail?: string } {
  const prefix = `${anyOf.schemaPath}/`;
  const branches = new Map<string, AjvError[]>();
  for (const e of errors) {
    if (!e.schemaPath.startsWith(prefix)) continue;
    const branch = e.schemaPath.slice(prefix.length).split('/')[0] ?? '';
    branches.set(branch, [...(branches.get(branch) ?? []), e]);
  }
  const atValue = (e: AjvError) => e.instancePath === anyOf.instancePath;
  const typeOnly = (list: AjvError[]) => list.every((e) => atValue(e) && e.keyword === 'type');
  // A branch of constants (a nested union of them too) fails at the value on const, enum, type and anyOf only.
  const ofConstants = (list: AjvError[]) =>
    list.every((e) => atValue(e) && ['const', 'enum', 'type', 'anyOf'].includes(e.keyword));
  const allowed: string[] = [];
  let onlyConstants = true;
  for (const list of branches.values()) {
    const constants = list.flatMap((e) => {
      if (e.keyword === 'const') return [e.params['allowedValue']];
      return e.keyword === 'enum' ? (e.params['allowedValues'] as unknown[]) : [];
    });
    if (constants.length > 0 && ofConstants(list)) allowed.push(...constants.map(show));
    else if (typeOnly(list)) {
      onlyConstants = false;
      allowed.push(String(list[0]?.params['type']));
    } else {
      allowed.length = 0;
      break;
    }
  }
  const cluster = [anyOf, ...[...branches.values()].flat()];
  if (allowed.length > 0) {
    const detail = onlyConstants ? `must be one of ${allowed.join(', ')}` : `must be ${allowed.join(' or ')}`;
    return { replaced: new Set(cluster), detail };
  }
  const typeMismatches = [...branches.values()].filter(typeOnly);
  if (typeMismatches.length === 0 || typeMismatches.length === branches.size) return { replaced: new Set() };
  return { replaced: new Set([anyOf, ...typeMismatches.flat()]) };
}

function violations(error: ValidationError, req?: FastifyRequest): Violation[] {
  const context = error.validationContext ?? 'body';
  const where = PARTS[context] ?? 'body';
  const routeSchema = (req?.routeOptions.schema as Schema | undefined)?.[context];
  const errors = error.validation ?? [];
  const told = new Map<AjvError, string>();
  const dropped = new Set<AjvError>();
  for (const anyOf of errors.filter((e) => e.keyword === 'anyOf')) {
    if (dropped.has(anyOf)) continue;
    const { replaced, detail } = anyOfCluster(anyOf, errors);
    for (const e of replaced) {
      dropped.add(e);
      told.delete(e);
    }
    if (detail) told.set(anyOf, detail);
  }
  const out: Violation[] = [];
  for (const v of errors) {
    if (dropped.has(v) && !told.has(v)) continue;
    let pointer = v.instancePath;
    let detail =
      told.get(v) ?? patternDetail(v, schemaAt(routeSchema, parentPath(v.schemaPath))) ?? rangeDetail(v) ?? v.message;
    detail ??= 'is invalid';
    if (v.keyword === 'required') {
      pointer += `/${String(v.params['missingProperty'])}`;
      detail = 'is required';
    }
    if (v.keyword === 'additionalProperties') {
      pointer += `/${String(v.params['additionalProperty'])}`;
      detail = 'is not a known field';
    }
    // The same words at the same place once: allErrors can reach one value by two paths.
    if (!out.some((o) => o.pointer === pointer && o.detail === detail)) out.push({ pointer, in: where, detail });
  }
  return out;
}

/** The media type a body was sent as, and the ones the route takes, in words (a 415's detail). */
function mediaTypeDetail(req: FastifyRequest): string {
  const consumes = (req.routeOptions.schema as Schema | undefined)?.['consumes'];
  const expected = Array.isArray(consumes) && consumes.length > 0 ? consumes.join(' or ') : 'application/json';
  const sent = req.headers['content-type']?.split(';')[0]?.trim().toLowerCase();
  if (!sent) return `the body was sent without a Content-Type; send it as ${expected}`;
  // Echoed only when it reads as a media type (type/subtype tokens), and never longer than a line.
  const named = /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/.test(sent) && sent.length <= 100;
  return named
    ? `the body was sent as ${sent}; send it as ${expected}`
    : `the body was sent with a Content-Type that is not a media type; send it as ${expected}`;
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
  const e = error as ValidationError;
  if (e.validation) {
    return new ApiError('VALIDATION_FAILED', 'the request does not match the schema', {
      violations: violations(e, req),
    });
  }
  const unsupported = () => new ApiError('UNSUPPORTED_MEDIA_TYPE', req ? mediaTypeDetail(req) : undefined);
  const tooLarge = () =>
    new ApiError('PAYLOAD_TOO_LARGE', req ? `the body is larger than ${req.routeOptions.bodyLimit} bytes` : undefined);
  switch (e.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return unsupported();
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
  if (e.statusCode === 415) return unsupported();
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
