/**
 * CORS: only the configured origins, compared exactly; never `*`, never an echo of an origin that is not
 * listed. Vary: Origin on every response. A preflight from an unknown origin gets no CORS headers (404).
 */
import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';
import type { ProtectionConfig } from './config.ts';

export const CORS_ALLOWED_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];
export const CORS_ALLOWED_HEADERS = [
  'Authorization',
  'Content-Type',
  'Idempotency-Key',
  'If-Match',
  'If-None-Match',
  'Prefer',
  'X-Request-ID',
];
export const CORS_EXPOSED_HEADERS = [
  'Location',
  'ETag',
  'X-Request-ID',
  'RateLimit',
  'RateLimit-Policy',
  'Retry-After',
  'Idempotent-Replayed',
  'WWW-Authenticate',
];

/** Registers before the auth plugin: its OPTIONS route answers preflights, which carry no token. */
export async function installCors(app: FastifyInstance, config: ProtectionConfig['cors']): Promise<void> {
  const allowed = new Set(config.origins);
  await app.register(cors, {
    // A function (not a string) so that the answer depends on the request's Origin and Vary: Origin is set.
    origin: (origin, callback) => callback(null, origin !== undefined && allowed.has(origin)),
    methods: CORS_ALLOWED_METHODS,
    allowedHeaders: CORS_ALLOWED_HEADERS,
    exposedHeaders: CORS_EXPOSED_HEADERS,
    credentials: config.credentials,
    maxAge: config.maxAgeSeconds,
    // Strict preflight answers a bare OPTIONS with text/plain; without it, an allowed origin gets a 204.
    strictPreflight: false,
  });
}
