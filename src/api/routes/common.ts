/** Helpers shared by the route files: registering from the route table, and the shared error responses. */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type {
  FastifyBaseLogger,
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
  RouteShorthandOptions,
} from 'fastify';
import type { RequestBackend } from '../backend.ts';
import type { ResponseHeaderName } from '../openapi-operation.ts';
import { accessInWords, ROUTES, type OperationId, type RouteAccess } from '../route-table.ts';
import { problem } from '../schemas/problem.ts';

export type Api = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

export interface RouteDeps {
  backend: RequestBackend;
}

/** Method, URL and config of an operation, from the route table; `responseHeaders`: those the route sets itself. */
export function fromTable(operationId: OperationId, responseHeaders: readonly ResponseHeaderName[] = []) {
  const access: RouteAccess = ROUTES[operationId];
  return {
    method: access.method,
    url: access.url,
    config: { operationId, access, responseHeaders },
  } as const;
}

/** Error responses every protected operation can give. */
export function protectedErrors(tags: string[], operationId: OperationId, summary: string) {
  const access = ROUTES[operationId];
  return {
    operationId,
    tags,
    summary,
    description: accessInWords(access),
    // the route table, as the document shows it: the scope per scheme, and who sees what in words
    security: [{ oauth2: [access.scope] }, { bearerAuth: [access.scope] }] as Array<Record<string, string[]>>,
  } satisfies RouteShorthandOptions['schema'];
}

export const STANDARD_ERRORS = {
  400: problem('Invalid input'),
  401: problem('Missing, invalid or expired access token'),
  403: problem('The token lacks the scope or the role for this operation'),
  404: problem('Not found, or not visible to the caller'),
  429: problem('Rate limit exceeded (Retry-After, RateLimit headers)'),
  500: problem('Internal error'),
  502: problem('The back-end program failed while processing the request'),
  503: problem('Overloaded or back-end busy (Retry-After)'),
  504: problem('The request took too long; retry with the same Idempotency-Key'),
};
