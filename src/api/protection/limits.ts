/**
 * Resource limits: body, JSON depth and array length, header size, processing time, concurrent back-end calls,
 * event-loop overload and shutdown, each answered with its own problem+json status (see docs/security.md).
 */
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import underPressure from '@fastify/under-pressure';
import type { ConnectionError, FastifyInstance, preValidationHookHandler } from 'fastify';
import type { RequestBackend } from '../backend.ts';
import { ApiError, toProblem } from '../../errors.ts';
import { requestIdFrom } from '../plugins/request-id.ts';
import { routeHooks } from '../plugins/route-hooks.ts';
import type { ProtectionConfig } from './config.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The request's time limit, set by installLimits and cleared when it is answered or aborted. */
    timeoutTimer: NodeJS.Timeout | null;
  }
}

type Limits = ProtectionConfig['limits'];

/**
 * Fastify's JSON parser keeps `__proto__` and `constructor` keys as plain own properties (JSON.parse never sets a
 * prototype from them), so that the shape check below refuses them naming their place, before anything reads
 * the body. Also the parser of every other JSON media type (getDefaultJsonParser).
 */
export const JSON_POISONING_OPTIONS = { onProtoPoisoning: 'ignore', onConstructorPoisoning: 'ignore' } as const;

/** Keys that could reach a prototype if a body were ever merged into an object (prototype poisoning). */
const POISONING_KEYS = new Set(['__proto__', 'constructor']);

/**
 * Where the body first breaks a limit or holds a prototype-poisoning key, as a JSON pointer, or null.
 * Iterative: depth cannot blow the stack.
 */
export function jsonShapeViolation(
  body: unknown,
  limits: { jsonDepth: number; jsonArrayLength: number },
): { pointer: string; detail: string; summary: string } | null {
  const stack: Array<{ value: unknown; depth: number; pointer: string }> = [{ value: body, depth: 0, pointer: '' }];
  while (stack.length > 0) {
    const { value, depth, pointer } = stack.pop()!;
    if (value === null || typeof value !== 'object') continue;
    if (depth >= limits.jsonDepth) return at(pointer, `nests deeper than ${limits.jsonDepth} levels`);
    if (Array.isArray(value)) {
      if (value.length > limits.jsonArrayLength) return at(pointer, `has more than ${limits.jsonArrayLength} items`);
      value.forEach((item, i) => stack.push({ value: item, depth: depth + 1, pointer: `${pointer}/${i}` }));
    } else {
      for (const [key, item] of Object.entries(value)) {
        const itemPointer = `${pointer}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`;
        if (POISONING_KEYS.has(key))
          return {
            pointer: itemPointer,
            detail: 'is not an accepted name',
            summary: `the body has a key named "${key}"`,
          };
        stack.push({ value: item, depth: depth + 1, pointer: itemPointer });
      }
    }
  }
  return null;
}

function at(pointer: string, detail: string) {
  return { pointer, detail, summary: `the body ${detail}` };
}

/** The longest path segment the router matches to a route parameter; a longer one answers 414 URI_TOO_LONG. */
export const PATH_SEGMENT_MAX_CHARS = 100;

/**
 * What can be read of a request Node refused before it existed: the path of its request line and its
 * X-Request-ID, from the bytes the parser held (`rawPacket`; only complete header lines are trusted).
 */
function refusedRequest(rawPacket: unknown): { path: string; requestId: string } {
  const lines = (Buffer.isBuffer(rawPacket) ? rawPacket.toString('latin1') : '').split('\r\n');
  const target = /^[A-Z]+ (\/\S*) HTTP\/1\.[01]$/.exec(lines[0] ?? '')?.[1] ?? '';
  const complete = lines.slice(1, -1);
  const given = complete
    .find((line) => /^x-request-id:/i.test(line))
    ?.slice('x-request-id:'.length)
    .trim();
  return { path: target.split('?')[0] ?? '', requestId: requestIdFrom(given) };
}

/** Fastify factory options for the limits enforced by the HTTP server itself. */
export function serverLimitOptions(limits: Limits) {
  return {
    bodyLimit: limits.bodyBytes,
    routerOptions: { maxParamLength: PATH_SEGMENT_MAX_CHARS },
    /** Node answers an oversized header block before any request exists; this renders it as problem+json. */
    clientErrorHandler(this: FastifyInstance, error: ConnectionError, socket: Socket) {
      if (error.code === 'ECONNRESET' || socket.destroyed) return;
      const apiError =
        error.code === 'HPE_HEADER_OVERFLOW'
          ? new ApiError('HEADERS_TOO_LARGE', `the request headers are larger than ${limits.headerBytes} bytes`)
          : new ApiError('MALFORMED_REQUEST', 'the request could not be read');
      const { path, requestId } = refusedRequest(error.rawPacket);
      const body = JSON.stringify(toProblem(apiError, path, requestId));
      this.log.info(
        { requestId, url: path, status: apiError.status, code: apiError.code, error: error.code },
        'client error',
      );
      if (socket.writable) {
        socket.write(
          `HTTP/1.1 ${apiError.status} ${STATUS_CODES[apiError.status]}\r\nContent-Type: application/problem+json\r\n` +
            `X-Request-ID: ${requestId}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
        );
      }
      socket.destroy(error);
    },
  };
}

export async function installLimits(app: FastifyInstance, limits: Limits, isClosing: () => boolean): Promise<void> {
  // A request reaching an instance that is shutting down (on a connection opened before): the client retries
  // elsewhere. Fastify's own answer to it (return503OnClosing) is not problem+json.
  // Callback-style hooks here and below: none of them waits, and an async hook costs every request a promise.
  app.addHook('onRequest', (_req, _reply, done) => {
    if (!isClosing()) return done();
    done(
      new ApiError('SERVICE_UNAVAILABLE', 'this instance is shutting down', {
        headers: { 'retry-after': String(limits.retryAfterSeconds) },
      }),
    );
  });
  // Overload next: the cheapest refusal, before rate-limit stores or token checks are touched.
  await app.register(underPressure, {
    maxEventLoopDelay: limits.maxEventLoopDelayMs,
    maxEventLoopUtilization: limits.maxEventLoopUtilization,
    maxHeapUsedBytes: limits.maxHeapUsedBytes,
    retryAfter: limits.retryAfterSeconds,
    pressureHandler: async (req, _reply, type) => {
      req.log.warn({ type }, 'overloaded: request refused');
      throw new ApiError('OVERLOADED', undefined, { headers: { 'retry-after': String(limits.retryAfterSeconds) } });
    },
  });

  // On the request itself, not in a WeakMap keyed by request: that would grow a table and leave the collector
  // an ephemeron per request.
  app.decorateRequest('timeoutTimer', null);
  app.addHook('onRequest', (req, reply, done) => {
    const timer = setTimeout(() => {
      if (reply.sent) return;
      req.log.warn({ timeoutMs: limits.requestTimeoutMs }, 'request timed out');
      // The handler may still finish (a payment may still commit); the client retries with its idempotency key.
      reply.send(new ApiError('REQUEST_TIMEOUT', `the request was not processed within ${limits.requestTimeoutMs} ms`));
    }, limits.requestTimeoutMs);
    timer.unref();
    req.timeoutTimer = timer;
    done();
  });
  app.addHook('onResponse', (req, _reply, done) => {
    clearTimeout(req.timeoutTimer ?? undefined);
    done();
  });
  app.addHook('onRequestAbort', (req, done) => {
    clearTimeout(req.timeoutTimer ?? undefined);
    done();
  });
}

/** Methods whose requests Fastify never reads a body for. */
const BODYLESS = new Set(['GET', 'HEAD', 'TRACE']);

/**
 * JSON nesting depth and array length of API bodies, before schema validation walks them: first among the
 * preValidation hooks of every route a body can reach (a GET pays nothing for it). Install it after the
 * plugins whose onRoute hooks add preValidation hooks of their own, so that it stays first.
 */
export function installBodyShapeLimit(app: FastifyInstance, limits: Limits): void {
  // Callback-style: no promise per request.
  const checkBodyShape: preValidationHookHandler = function checkBodyShape(req, _reply, done) {
    const violation = req.body === undefined || req.body === null ? null : jsonShapeViolation(req.body, limits);
    if (!violation) return done();
    const { pointer, detail, summary } = violation;
    done(new ApiError('VALIDATION_FAILED', summary, { violations: [{ pointer, in: 'body', detail }] }));
  };
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (methods.every((method) => BODYLESS.has(method))) return;
    route.preValidation = [checkBodyShape, ...routeHooks(route.preValidation)];
  });
}

/** The back-end client, refusing calls beyond `max` in flight instead of queueing them. */
export function limitBackendCalls(client: RequestBackend, max: number, retryAfterSeconds: number): RequestBackend {
  let inFlight = 0;
  async function limited<T>(send: () => Promise<T>): Promise<T> {
    if (inFlight >= max) {
      throw new ApiError('BACKEND_BUSY', `more than ${max} back-end calls are in flight`, {
        headers: { 'retry-after': String(retryAfterSeconds) },
      });
    }
    inFlight += 1;
    try {
      return await send();
    } finally {
      inFlight -= 1;
    }
  }
  return {
    call: (tran, req, record, pointers) => limited(() => client.call(tran, req, record, pointers)),
    submit: (tran, req, record, pointers) => limited(() => client.submit(tran, req, record, pointers)),
  };
}
