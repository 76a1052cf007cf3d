/** X-Request-ID: the client's value when well-formed, else a new UUID; echoed on every response. */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';

const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** The given X-Request-ID when well-formed, else a new one. */
export function requestIdFrom(given: unknown): string {
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
}

export function requestIdFor(req: IncomingMessage): string {
  return requestIdFrom(req.headers['x-request-id']);
}

export function installRequestId(app: FastifyInstance): void {
  app.addHook('onRequest', (req, reply, done) => {
    reply.header('x-request-id', req.id);
    done();
  });
}
