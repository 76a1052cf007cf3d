/**
 * Security headers on every response (see docs/security.md). helmet decides the values once, at startup, so
 * each request only copies the finished header objects.
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

/**
 * What every response carries, the JSON API's included (OWASP's REST Security Cheat Sheet): no sniffing, no
 * framing, no no-cors reads from other sites, and HSTS over TLS.
 */
const EVERY_RESPONSE = new Set([
  'x-content-type-options',
  'x-frame-options',
  'cross-origin-resource-policy',
  'strict-transport-security',
]);

/** application/json and its kinds (problem+json, jwk-set+json…): answers a program reads, not a document. */
const JSON_TYPE = /^application\/(?:[\w.-]+\+)?json\b/;

export interface SecurityHeaders {
  /** On every response. */
  everyResponse: Record<string, string>;
  /**
   * helmet's headers that only a document a browser displays or navigates through acts on (opener and
   * referrer policy, DNS prefetching, origin-keyed agents, old IE and Flash switches): on every answer but
   * JSON. A JSON answer does not pay for seven headers it has no use for.
   */
  documents: Record<string, string>;
}

/** The headers helmet would set, computed once by running it against a response that only records them. */
export function securityHeaders(options: { tls: boolean }): SecurityHeaders {
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
    // helmet only calls setHeader and removeHeader, which the recorder has
    // eslint-disable-next-line no-restricted-syntax -- the comment above says why
  })({} as IncomingMessage, recorder as unknown as ServerResponse, (error?: unknown) => {
    if (error) throw error;
  });
  const split: SecurityHeaders = { everyResponse: {}, documents: {} };
  for (const [name, value] of Object.entries(headers))
    split[EVERY_RESPONSE.has(name) ? 'everyResponse' : 'documents'][name] = value;
  return split;
}

export async function installSecurityHeaders(
  app: FastifyInstance,
  options: { tls: boolean },
): Promise<SecurityHeaders> {
  const headers = securityHeaders(options);
  // Callback-style hooks: no promise per request.
  app.addHook('onRequest', (_req, reply, done) => {
    reply.headers(headers.everyResponse);
    done();
  });
  app.addHook('onSend', (_req, reply, payload, done) => {
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
    const type = String(reply.getHeader('content-type') ?? '');
    // Redirects belong to a page's navigation too: a sign-in popup whose redirect lacked the opener policy
    // would lose its opener (the docs page) on the way.
    if (!JSON_TYPE.test(type)) reply.headers(headers.documents);
    if (!type.startsWith('text/html') && !reply.hasHeader('content-security-policy'))
      reply.header('content-security-policy', API_CSP);
    done(null, payload);
  });
  return headers;
}
