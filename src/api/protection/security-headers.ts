/**
 * Security headers on every response (helmet), `Cache-Control: no-store` unless a route chose its own
 * caching, a locked-down CSP on everything that is not an HTML page (the login pages set their own), and
 * HSTS only when this process serves TLS.
 */
import helmet from '@fastify/helmet';
import type { FastifyInstance } from 'fastify';

const API_CSP = "default-src 'none'; frame-ancestors 'none'";

export async function installSecurityHeaders(app: FastifyInstance, options: { tls: boolean }): Promise<void> {
  await app.register(helmet, {
    global: true,
    // The JSON API gets API_CSP below; HTML pages (the identity provider's login) bring their own policy.
    contentSecurityPolicy: false,
    strictTransportSecurity: options.tls ? { maxAge: 31_536_000, includeSubDomains: true } : false,
    xFrameOptions: { action: 'deny' },
    referrerPolicy: { policy: 'no-referrer' },
  });
  app.addHook('onSend', async (_req, reply, payload) => {
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
    const type = String(reply.getHeader('content-type') ?? '');
    if (!type.startsWith('text/html') && !reply.hasHeader('content-security-policy')) {
      reply.header('content-security-policy', API_CSP);
    }
    return payload;
  });
}
