/**
 * Security headers on every response: helmet's set (nosniff, frame and referrer policy, COOP/CORP…),
 * `Cache-Control: no-store` unless a route chose its own caching, a locked-down CSP on everything that is
 * not an HTML page (the login pages set their own), and HSTS only when this process serves TLS.
 * helmet decides the values once, at startup; each request only copies the finished header object.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import helmet from 'helmet';

export const API_CSP = "default-src 'none'; frame-ancestors 'none'";

/**
 * The policy of the docs page (Scalar's reference at /docs), all but its nonce decided once: scripts from
 * this origin or carrying the response's nonce (the inline start-up script), styles from this origin or
 * inline, requests to this origin and the issuer's (its token endpoint), nothing from anywhere else. The
 * API's own policy (API_CSP) is unchanged.
 */
export function docsPageCsp(connectOrigins: readonly string[]): (nonce: string) => string {
  const connect = [...new Set(["'self'", ...connectOrigins])].join(' ');
  const tail = `; img-src 'self' data:; font-src 'self'; connect-src ${connect}; frame-ancestors 'none'; base-uri 'none'; form-action 'none'`;
  // Styles may be inline: the reference's parts (its editor, its notices, its rendered markup) add style
  // elements and attributes without the nonce, and no script can run from a style. Scripts stay nonce-only.
  return (nonce) => `default-src 'none'; script-src 'self' 'nonce-${nonce}'; style-src 'self' 'unsafe-inline'${tail}`;
}

/** The headers helmet would set, computed once by running it against a response that only records them. */
export function securityHeaders(options: { tls: boolean }): Record<string, string> {
  const headers: Record<string, string> = {};
  const recorder = {
    setHeader(name: string, value: string) {
      headers[name.toLowerCase()] = value;
    },
    removeHeader(name: string) {
      delete headers[name.toLowerCase()];
    },
  };
  helmet({
    // The JSON API gets API_CSP below; HTML pages (the identity provider's login) bring their own policy.
    contentSecurityPolicy: false,
    strictTransportSecurity: options.tls ? { maxAge: 31_536_000, includeSubDomains: true } : false,
    xFrameOptions: { action: 'deny' },
    referrerPolicy: { policy: 'no-referrer' },
  })({} as IncomingMessage, recorder as unknown as ServerResponse, (error?: unknown) => {
    if (error) throw error;
  });
  return headers;
}

export async function installSecurityHeaders(app: FastifyInstance, options: { tls: boolean }): Promise<void> {
  const headers = securityHeaders(options);
  // Callback-style hooks: no promise per request.
  app.addHook('onRequest', (_req, reply, done) => {
    reply.headers(headers);
    done();
  });
  app.addHook('onSend', (_req, reply, payload, done) => {
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
    if (!reply.hasHeader('content-security-policy') && !String(reply.getHeader('content-type') ?? '').startsWith('text/html')) {
      reply.header('content-security-policy', API_CSP);
    }
    done(null, payload);
  });
}
