/** Typed additions to Fastify's request, reply and route config. */
import type { Principal } from '../auth/roles.ts';
import type { CallFacts } from '../client/call-context.ts';
import type { OperationId, RouteAccess } from './route-table.ts';
import type { ErrorCode } from '../errors.ts';
import type { ResponseHeaderName } from './openapi-operation.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the auth hook on protected routes. */
    principal: Principal | null;
    /** Set by the idempotency hook when this request holds a key. */
    idempotency: { caller: string; key: string } | null;
    /** The back-end transaction this request ran, for its one log line. */
    backendCall: CallFacts | null;
  }
  interface FastifyReply {
    /** Error code of the problem sent, for the request log line. */
    problemCode: ErrorCode | null;
  }
  interface FastifyContextConfig {
    operationId?: OperationId;
    access?: RouteAccess;
    public?: true;
    /** Headers the route itself sets on its successes (ETag), for the contract. */
    responseHeaders?: readonly ResponseHeaderName[];
  }
}
