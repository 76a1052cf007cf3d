/**
 * What the contract says of every operation beyond its route schema, in one place: shared parameters, the headers
 * the plugins set, and the answers the protections give before a handler runs. Validation schemas stay as they are.
 */
import type { FastifySchema } from 'fastify';
import { problem } from './schemas/problem.ts';
import type { RouteAccess } from './route-table.ts';

type Schema = Record<string, unknown>;

const REQUEST_ID = {
  type: 'string',
  pattern: '^[A-Za-z0-9._-]{1,128}$',
  description:
    'Correlation id of this request (e.g. a UUID), carried into every log line and the back-end record header; a new one is made when absent or malformed',
};

/** Each response header the API sets: its value's schema and what it says. */
export const RESPONSE_HEADERS = {
  'x-request-id': {
    type: 'string',
    description: 'The request id: the one sent, or the one made for this request (on every answer)',
  },
  ratelimit: {
    type: 'string',
    description: 'IETF RateLimit: the quota left in the current window (draft-ietf-httpapi-ratelimit-headers)',
  },
  'ratelimit-policy': {
    type: 'string',
    description: 'IETF RateLimit-Policy: the quota and window that apply to the caller',
  },
  location: { type: 'string', description: 'The created resource (201), or the operation to poll (202)' },
  etag: {
    type: 'string',
    pattern: '^"[0-9]+"$',
    description: 'The version of the resource, for If-Match and If-None-Match',
  },
  'idempotent-replayed': {
    enum: ['true'],
    description:
      '`true` when this answers an earlier request with the same Idempotency-Key again: nothing ran a second time',
  },
  'retry-after': { type: 'string', pattern: '^[0-9]+$', description: 'Seconds to wait before retrying' },
  allow: { type: 'string', description: 'The methods the path has' },
  deprecation: {
    type: 'string',
    pattern: '^@[0-9]+$',
    description:
      'RFC 9745: the operation, or a query parameter this request used, is deprecated since this date (`@` and epoch seconds)',
  },
  sunset: { type: 'string', description: 'RFC 8594: when the operation stops answering (an HTTP-date)' },
  link: {
    type: 'string',
    description: 'With rel="deprecation": where the deprecation and its successor are described',
  },
} satisfies Record<string, Schema>;

export type ResponseHeaderName = keyof typeof RESPONSE_HEADERS;

/** The answers a protection gives before the handler runs. */
const BEFORE_HANDLER = {
  405: problem('Another method than the path has (see Allow)'),
  414: problem('A path segment is longer than the limit (see detail)'),
  413: problem('The body is larger than the limit (see detail)'),
  415: problem('The body is not of a media type the operation takes'),
  431: problem('The request headers are larger than the limit (see detail)'),
  429: problem('Rate limit exceeded (Retry-After, RateLimit headers)'),
  503: problem('Overloaded, or shutting down (Retry-After)'),
};

/** The headers a response with this status may carry; `declared`: the route's own (ETag) on its successes. */
function headersFor(
  status: number,
  access: RouteAccess | undefined,
  declared: readonly ResponseHeaderName[],
): Record<string, Schema> {
  const names: ResponseHeaderName[] = ['x-request-id'];
  // Rate limits are checked on every request that reaches the router's hooks; 414 and 431 come before.
  if (status !== 414 && status !== 431) names.push('ratelimit', 'ratelimit-policy');
  if (status === 201 || status === 202) names.push('location');
  if (access?.idempotency && status < 500) names.push('idempotent-replayed');
  if (status === 409 || status === 429 || status === 503 || status === 504) names.push('retry-after');
  if (status === 405) names.push('allow');
  if (access?.deprecated) names.push('deprecation', 'sunset', 'link');
  if (status < 400) names.push(...declared);
  return Object.fromEntries(names.map((name) => [name, RESPONSE_HEADERS[name]]));
}

/** @fastify/swagger's `transform`: the route's schema as the document should show it. */
export function documentOperation({
  schema: routeSchema,
  url,
  route,
}: {
  schema: FastifySchema;
  url: string;
  route: { config?: unknown };
}): { schema: FastifySchema; url: string } {
  const schema = routeSchema as Schema | undefined;
  if (!schema || schema['hide']) return { schema: routeSchema, url };
  const config = (route.config ?? {}) as { access?: RouteAccess; responseHeaders?: readonly ResponseHeaderName[] };
  const access = config.access;
  const declared = config.responseHeaders ?? [];
  const headers = (schema['headers'] ?? { type: 'object', properties: {} }) as Schema;
  // Every route may be refused for load or rate before it runs.
  const response: Record<string, Schema> = {
    429: BEFORE_HANDLER[429],
    503: BEFORE_HANDLER[503],
    ...(schema['response'] as Record<string, Schema> | undefined),
  };
  if (access) {
    Object.assign(
      response,
      { 405: BEFORE_HANDLER[405], 431: BEFORE_HANDLER[431] },
      schema['body'] ? { 413: BEFORE_HANDLER[413], 415: BEFORE_HANDLER[415] } : {},
      url.includes(':') ? { 414: BEFORE_HANDLER[414] } : {},
    );
  }
  const documented = Object.fromEntries(
    Object.entries(response)
      .sort(([a], [b]) => Number(a) - Number(b))
      .map(([status, entry]) => [status, { ...entry, headers: headersFor(Number(status), access, declared) }]),
  );
  return {
    url,
    schema: {
      ...schema,
      ...(access?.deprecated ? { deprecated: true } : {}),
      headers: { ...headers, properties: { ...(headers['properties'] as Schema), 'x-request-id': REQUEST_ID } },
      response: documented,
    },
  };
}
