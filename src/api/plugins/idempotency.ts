/**
 * Idempotency-Key on the routes whose table entry asks for it. Same key + same request → the first
 * response again (Idempotent-Replayed: true); same key + different request → 422; the first still
 * running → 409. Runs after authentication and validation, so only real attempts hold a key.
 * The back-end keeps the key with what it did and answers a retry of it; the store here holds a key while its
 * request runs, and the answers the back-end does not keep (refusals, rejections).
 */
import { hash } from 'node:crypto';
import { stringify as canonicalJson } from 'safe-stable-stringify';
import type {
  FastifyInstance,
  FastifyRequest,
  onSendHookHandler,
  preHandlerHookHandler,
  preValidationHookHandler,
  RouteOptions,
} from 'fastify';
import type { RouteAccess } from '../route-table.ts';
import { problem } from '../schemas/problem.ts';
import { idempotencyKeyHeader } from '../../resources/schemas/common.ts';
import { routeHooks } from './route-hooks.ts';
import { ApiError } from '../../errors.ts';
import { KEY_REUSED_REASON, RC, REPLAYED_REASON } from '../../backend/message.ts';
import { KEY_KEEPING_TRANSACTIONS } from '../../backend/copybooks/index.ts';
import type { IdempotencyStore } from '../idempotency/store.ts';

const KEY = /^[A-Za-z0-9._:-]{1,64}$/;
/** Response headers worth replaying. */
const REPLAYED_HEADERS = ['location', 'etag', 'preference-applied'];

/**
 * What makes two requests "the same": method, route, path parameters and the parsed body, as JSON values:
 * keys are sorted, so the same object with its keys in another order is the same request.
 */
export function requestFingerprint(method: string, route: string, params: unknown, body: unknown): string {
  return hash('sha256', canonicalJson([method, route, params ?? null, body ?? null]) ?? '', 'base64url');
}

function requestHash(req: FastifyRequest): string {
  return requestFingerprint(req.method, req.routeOptions.url ?? '', req.params, req.body);
}

type RouteSchema = NonNullable<RouteOptions['schema']>;
type JsonObject = Record<string, unknown>;

const inFlight = (the: 'The' | 'the') => `${the} same Idempotency-Key is still in flight`;
const REUSED = 'The same Idempotency-Key was used with a different request';

/** An example key of its own per operation: one caller trying the examples of two never reuses a key. */
function exampleKey(operation: string): string {
  const words = operation
    .replace(/[^A-Za-z0-9]+/g, '-')
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .toLowerCase();
  return `${words.replace(/^-|-$/g, '').slice(0, 40)}-${hash('sha256', operation, 'hex').slice(0, 12)}`;
}

/**
 * The contract of a route that takes an Idempotency-Key, completed here so no route can leave it out: the header,
 * 409 while the key is in flight and 422 for a key reused with another request. A route's own 409 keeps its
 * description, with the idempotency case added.
 */
function withIdempotencyContract(schema: RouteSchema, mode: 'required' | 'optional', operation: string): RouteSchema {
  const headers = (schema.headers ?? { type: 'object', properties: {} }) as JsonObject;
  const properties = (headers['properties'] ?? {}) as JsonObject;
  const response = (schema.response ?? {}) as JsonObject;
  const conflict = response['409'] as { description?: string } | undefined;
  return {
    ...schema,
    headers:
      'idempotency-key' in properties
        ? headers
        : {
            ...headers,
            properties: { ...properties, 'idempotency-key': idempotencyKeyHeader(exampleKey(operation)) },
            ...(mode === 'required'
              ? { required: [...((headers['required'] as string[]) ?? []), 'idempotency-key'] }
              : {}),
          },
    response: {
      ...response,
      409: conflict
        ? conflict.description?.includes('Idempotency-Key')
          ? conflict
          : { ...conflict, description: `${conflict.description ?? ''}; or ${inFlight('the')}` }
        : problem(inFlight('The')),
      422: response['422'] ?? problem(REUSED),
    },
  };
}

export function installIdempotency(app: FastifyInstance, store: IdempotencyStore): void {
  app.decorateRequest('idempotency', null);

  // Before validation, on the routes that require a key only: the schema declares the header required (so
  // the contract says so), and a missing key must answer its own code rather than a generic validation failure.
  const requireIdempotencyKey: preValidationHookHandler = async (req) => {
    if (req.principal && req.headers['idempotency-key'] === undefined) {
      throw new ApiError('IDEMPOTENCY_KEY_REQUIRED', 'send an Idempotency-Key header with this request', {
        violations: [{ pointer: '/idempotency-key', in: 'header', detail: 'is required' }],
      });
    }
  };

  const holdIdempotencyKey: preHandlerHookHandler = async function holdIdempotencyKey(req, reply) {
    if (!req.principal) return;
    const raw = req.headers['idempotency-key'];
    if (raw === undefined) return;
    if (typeof raw !== 'string' || !KEY.test(raw)) {
      throw new ApiError('VALIDATION_FAILED', 'Idempotency-Key must be 1–64 characters of A–Z a–z 0–9 . _ : -', {
        violations: [{ pointer: '/idempotency-key', in: 'header', detail: 'is not a valid idempotency key' }],
      });
    }
    const caller = req.principal.subject;
    let begun;
    try {
      begun = await store.begin(caller, raw, requestHash(req));
    } catch (error) {
      // Without the record, running the request could run it twice: refuse it, to be retried.
      req.log.error({ err: error }, 'idempotency store unavailable');
      throw new ApiError('OVERLOADED', 'the idempotency store is unavailable', { headers: { 'retry-after': '1' } });
    }
    switch (begun.outcome) {
      case 'execute':
        req.idempotency = { caller, key: raw };
        return;
      case 'mismatch':
        throw new ApiError('IDEMPOTENCY_KEY_REUSED', 'this Idempotency-Key was already used with a different request');
      case 'in-flight':
        throw new ApiError('IDEMPOTENCY_IN_PROGRESS', 'the first request with this Idempotency-Key is still running', {
          headers: { 'retry-after': '1' },
        });
      case 'replay': {
        const r = begun.response;
        req.server.observability.metrics.countReplay(req.routeOptions.url);
        return reply
          .code(r.statusCode)
          .headers(r.headers)
          .header('idempotent-replayed', 'true')
          .type(r.contentType)
          .send(r.body);
      }
    }
  };

  const storeIdempotentAnswer: onSendHookHandler = async function storeIdempotentAnswer(req, reply, payload) {
    const held = req.idempotency;
    if (!held) return payload;
    req.idempotency = null;
    // The answer goes out even when it cannot be stored: the key then stays in flight until its lease runs
    // out, and a retry after that finds the effect the back-end committed under the same key.
    const remember = async (work: () => void | Promise<void>) => {
      try {
        await work();
      } catch (error) {
        req.log.error({ err: error }, 'idempotency store unavailable; the answer was not stored');
      }
    };
    if (reply.statusCode >= 500 || typeof payload !== 'string') {
      await remember(() => store.release(held.caller, held.key));
      return payload;
    }
    // An OK of a program that keeps the key with its effect is kept there: a retry is answered by the back-end,
    // which says when it answers one again (REPLAYED_REASON). Only what it does not keep (a refusal, a rejection)
    // is stored here, never its refusal of a key that belongs to another request: that would bind the key here to
    // this one.
    const call = req.backendCall;
    if (call && KEY_KEEPING_TRANSACTIONS.has(call.tran) && (call.rc === RC.OK || call.reason === KEY_REUSED_REASON)) {
      if (call.rc === RC.OK && call.reason === REPLAYED_REASON) {
        req.server.observability.metrics.countReplay(req.routeOptions.url);
        reply.header('idempotent-replayed', 'true');
      }
      await remember(() => store.release(held.caller, held.key));
      return payload;
    }
    const headers: Record<string, string> = {};
    for (const name of REPLAYED_HEADERS) {
      const value = reply.getHeader(name);
      if (typeof value === 'string') headers[name] = value;
    }
    await remember(() =>
      store.complete(held.caller, held.key, {
        statusCode: reply.statusCode,
        contentType: String(reply.getHeader('content-type') ?? 'application/json'),
        headers,
        body: payload,
      }),
    );
    return payload;
  };

  // On the routes whose table entry asks for a key only, first among their own hooks: every other request
  // pays nothing for idempotency (two async hooks, a promise each).
  app.addHook('onRoute', (route) => {
    const mode = (route.config as { access?: RouteAccess } | undefined)?.access?.idempotency;
    if (!mode) return;
    if (route.schema) {
      const operation = route.config?.operationId ?? String(route.schema['operationId'] ?? route.url);
      route.schema = withIdempotencyContract(route.schema, mode, operation);
    }
    if (mode === 'required') route.preValidation = [requireIdempotencyKey, ...routeHooks(route.preValidation)];
    route.preHandler = [holdIdempotencyKey, ...routeHooks(route.preHandler)];
    route.onSend = [storeIdempotentAnswer, ...routeHooks(route.onSend)];
  });
}
