/** CORS allowlist and security headers. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertProblem } from '../../helpers/assert-shape.ts';
import { needsEmbeddedProvider, startApp } from '../../helpers/app.ts';
import { loadConfig } from '../../../src/config.ts';

const APP_ORIGIN = 'https://app.example.com';
const OTHER_ORIGIN = 'https://admin.example.com';

function varyIncludesOrigin(headers: Record<string, unknown>): boolean {
  return String(headers['vary'] ?? '')
    .split(',')
    .map((v) => v.trim().toLowerCase())
    .includes('origin');
}

function listHeader(value: unknown): string[] {
  return String(value ?? '')
    .split(',')
    .map((v) => v.trim().toLowerCase())
    .filter(Boolean);
}

test('CORS: a configured origin is allowed exactly, with Vary: Origin and the exposed headers; credentials off by default', async (t) => {
  const h = await startApp(t, { CORS_ORIGINS: `${APP_ORIGIN}, ${OTHER_ORIGIN}` });
  const res = await h.request({ method: 'GET', url: '/v1/customers/1001', as: 'ada', headers: { origin: APP_ORIGIN } });
  assert.equal(res.statusCode, 200);
  assert.equal(res.json().customerId, '1001');
  assert.equal(res.headers['access-control-allow-origin'], APP_ORIGIN);
  assert.ok(varyIncludesOrigin(res.headers));
  assert.equal(res.headers['access-control-allow-credentials'], undefined);
  const exposed = listHeader(res.headers['access-control-expose-headers']);
  for (const name of [
    'location',
    'etag',
    'x-request-id',
    'ratelimit',
    'ratelimit-policy',
    'retry-after',
    'idempotent-replayed',
  ]) {
    assert.ok(exposed.includes(name), `${name} is exposed`);
  }
  const other = await h.request({ method: 'GET', url: '/health/live', headers: { origin: OTHER_ORIGIN } });
  assert.equal(other.headers['access-control-allow-origin'], OTHER_ORIGIN);
});

test('CORS: unknown, look-alike and null origins are never echoed, and * is never sent', async (t) => {
  const h = await startApp(t, { CORS_ORIGINS: APP_ORIGIN });
  const origins = [
    'https://evil.example',
    `${APP_ORIGIN}.evil.example`,
    'http://app.example.com',
    'https://app.example.com:8443',
    'https://APP.example.com.evil',
    'null',
    '*',
    `${APP_ORIGIN}/`,
    ' https://app.example.com',
  ];
  for (const origin of origins) {
    const res = await h.request({ method: 'GET', url: '/v1/customers/1001', as: 'ada', headers: { origin } });
    assert.equal(res.statusCode, 200, origin);
    assert.equal(res.headers['access-control-allow-origin'], undefined, `not allowed: ${origin}`);
    assert.ok(varyIncludesOrigin(res.headers), origin);
    const preflight = await h.app.inject({
      method: 'OPTIONS',
      url: '/v1/payments',
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization' },
    });
    assert.equal(preflight.headers['access-control-allow-origin'], undefined, `preflight not allowed: ${origin}`);
    assert.equal(preflight.headers['access-control-allow-methods'], undefined, origin);
  }
  // No origins configured: nobody is allowed.
  const closed = await startApp(t);
  const res = await closed.request({ method: 'GET', url: '/health/live', headers: { origin: APP_ORIGIN } });
  assert.equal(res.headers['access-control-allow-origin'], undefined);
  assert.ok(varyIncludesOrigin(res.headers));
});

test('CORS: a preflight from an allowed origin is answered without a token: methods, headers, max-age', async (t) => {
  const h = await startApp(t, { CORS_ORIGINS: APP_ORIGIN, CORS_MAX_AGE_SECONDS: '300' });
  const res = await h.app.inject({
    method: 'OPTIONS',
    url: '/v1/payments',
    headers: {
      origin: APP_ORIGIN,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization,content-type,idempotency-key,x-request-id',
    },
  });
  assert.equal(res.statusCode, 204);
  assert.equal(res.headers['access-control-allow-origin'], APP_ORIGIN);
  const methods = listHeader(res.headers['access-control-allow-methods']);
  for (const m of ['get', 'post', 'put', 'patch', 'delete']) assert.ok(methods.includes(m), m);
  const allowed = listHeader(res.headers['access-control-allow-headers']);
  for (const name of ['authorization', 'content-type', 'idempotency-key', 'x-request-id', 'if-match'])
    assert.ok(allowed.includes(name), name);
  assert.equal(res.headers['access-control-max-age'], '300');
  assert.ok(varyIncludesOrigin(res.headers));
  assert.equal(res.headers['access-control-allow-credentials'], undefined);
});

test('CORS: credentials only when configured; a wildcard or a path in CORS_ORIGINS stops startup', async (t) => {
  const h = await startApp(t, { CORS_ORIGINS: APP_ORIGIN, CORS_CREDENTIALS: 'true' });
  const res = await h.request({ method: 'GET', url: '/health/live', headers: { origin: APP_ORIGIN } });
  assert.equal(res.headers['access-control-allow-credentials'], 'true');
  assert.equal(res.headers['access-control-allow-origin'], APP_ORIGIN);
  for (const bad of ['*', 'https://*.example.com', 'https://app.example.com/path', 'app.example.com']) {
    assert.throws(() => loadConfig({ CORS_ORIGINS: bad }), /CORS_ORIGINS/, bad);
  }
  assert.throws(() => loadConfig({ CORS_CREDENTIALS: 'yes' }), /CORS_CREDENTIALS/);
});

/** helmet's headers that only a document or a navigation acts on: every answer but JSON carries them. */
const DOCUMENT_HEADERS = {
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'origin-agent-cluster': '?1',
  'x-dns-prefetch-control': 'off',
  'x-download-options': 'noopen',
  'x-permitted-cross-domain-policies': 'none',
  'x-xss-protection': '0',
};

test('security headers on every response: nosniff, no-store, frame denial, CORP, API CSP; no HSTS over plain HTTP; the document-only ones on all but JSON', async (t) => {
  if (needsEmbeddedProvider) return t.skip(needsEmbeddedProvider);
  const h = await startApp(t);
  const responses = [
    await h.request({ method: 'GET', url: '/v1/orders/ORD-0000000000000000', as: 'ada' }),
    await h.request({ method: 'GET', url: '/v1/customers/1001', as: 'ada' }),
    await h.request({ method: 'GET', url: '/v1/customers/1001' }),
    await h.request({ method: 'GET', url: '/no/such/path' }),
    await h.request({ method: 'GET', url: '/health/live' }),
  ];
  for (const res of responses) {
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
    assert.equal(res.headers['cache-control'], 'no-store');
    assert.equal(res.headers['x-frame-options'], 'DENY');
    assert.equal(res.headers['cross-origin-resource-policy'], 'same-origin');
    assert.equal(res.headers['content-security-policy'], "default-src 'none'; frame-ancestors 'none'");
    assert.equal(res.headers['strict-transport-security'], undefined);
    assert.equal(res.headers['x-powered-by'], undefined);
    for (const name of Object.keys(DOCUMENT_HEADERS)) assert.equal(res.headers[name], undefined, name);
  }
  // A route that chose its own caching keeps it.
  const jwks = await h.request({ method: 'GET', url: '/.well-known/jwks.json' });
  assert.equal(jwks.headers['cache-control'], 'public, max-age=300');
  assert.equal(jwks.headers['x-content-type-options'], 'nosniff');
  assertProblem(responses[0]!, 404, 'NOT_FOUND');

  // Pages and navigations: the docs page (a Fastify route), a redirect, and the identity provider's own
  // endpoint (it writes its answer itself).
  const page = await h.request({ method: 'GET', url: '/docs/' });
  const redirect = await h.request({ method: 'GET', url: '/' });
  assert.equal(redirect.statusCode, 302);
  assert.equal(page.statusCode, 200);
  assert.match(String(page.headers['content-type']), /^text\/html/);
  assert.match(String(page.headers['content-security-policy']), /script-src 'self' 'nonce-/);
  const provider = await h.request({ method: 'GET', url: '/oauth/auth?client_id=nope' });
  assert.equal(provider.statusCode, 400);
  for (const res of [page, redirect, provider]) {
    for (const [name, value] of Object.entries(DOCUMENT_HEADERS)) assert.equal(res.headers[name], value, name);
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
    assert.equal(res.headers['x-frame-options'], 'DENY');
    assert.equal(res.headers['cache-control'], 'no-store');
  }
});
