/**
 * Rate limits: per principal and route class, per address when anonymous, an address ceiling before token checks,
 * 429 problem+json with Retry-After, the IETF RateLimit / RateLimit-Policy fields, and a Redis store shared by two
 * instances (the local Redis on 127.0.0.1:6379: without it this test fails).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { Redis } from 'ioredis';
import { assertProblem } from '../../helpers/assert-shape.ts';
import { startApp, type TestApp } from '../../helpers/app.ts';
import { loadConfig } from '../../../src/config.ts';
import type { FastifyRequest } from 'fastify';
import { rateLimitClassOf } from '../../../src/api/protection/rate-limit.ts';
import { ROUTES } from '../../../src/api/route-table.ts';

const POLICY = /^"(\w+)";q=(\d+);w=(\d+)$/;
const STATE = /^"(\w+)";r=(\d+);t=(\d+)$/;

/** The RateLimit fields of a response, by policy name. */
function limits(res: {
  headers: Record<string, unknown>;
}): Record<string, { q: number; w: number; r: number; t: number }> {
  const out: Record<string, { q: number; w: number; r: number; t: number }> = {};
  for (const item of String(res.headers['ratelimit-policy'] ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const m = POLICY.exec(item);
    assert.ok(m, `RateLimit-Policy item ${item}`);
    out[m[1]!] = { q: Number(m[2]), w: Number(m[3]), r: NaN, t: NaN };
  }
  for (const item of String(res.headers['ratelimit'] ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const m = STATE.exec(item);
    assert.ok(m, `RateLimit item ${item}`);
    const entry = out[m[1]!];
    assert.ok(entry, `RateLimit names a policy of RateLimit-Policy: ${item}`);
    entry.r = Number(m[2]);
    entry.t = Number(m[3]);
  }
  return out;
}

function assertRateLimited(
  res: Parameters<typeof assertProblem>[0] & { headers: Record<string, unknown> },
  policy: string,
): void {
  assertProblem(res, 429, 'RATE_LIMITED');
  const retryAfter = Number(res.headers['retry-after']);
  assert.ok(
    Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60,
    `Retry-After ${String(res.headers['retry-after'])}`,
  );
  assert.equal(limits(res)[policy]?.r, 0);
}

async function balance(h: TestApp, account: string): Promise<number> {
  const res = await h.request({ method: 'GET', url: `/v1/accounts/${account}/balance`, as: 'clerk' });
  assert.equal(res.statusCode, 200);
  return res.json().balance;
}

test('anonymous requests are limited per address and route class, with RateLimit fields on every response', async (t) => {
  const h = await startApp(t, { RATE_LIMIT_PUBLIC_MAX: '3', CORS_ORIGINS: 'https://app.example.com' });
  const get = (remoteAddress = '127.0.0.1') =>
    h.app.inject({
      method: 'GET',
      url: '/openapi.json',
      remoteAddress,
      headers: { origin: 'https://app.example.com' },
    });
  for (let i = 1; i <= 3; i++) {
    const res = await get();
    assert.equal(res.statusCode, 200);
    const l = limits(res)['public'];
    assert.ok(l);
    assert.equal(l.q, 3);
    assert.equal(l.w, 60);
    assert.equal(l.r, 3 - i);
    assert.ok(l.t >= 1 && l.t <= 60);
  }
  const refused = await get();
  assertRateLimited(refused, 'public');
  // A browser client can read the refusal: CORS headers and no-store are on the 429 too.
  assert.equal(refused.headers['access-control-allow-origin'], 'https://app.example.com');
  assert.equal(refused.headers['cache-control'], 'no-store');
  // Another address has its own allowance.
  assert.equal((await get('127.0.0.2')).statusCode, 200);
});

test('authenticated requests are limited per principal and route class (reads, writes); the refused payment moves no money', async (t) => {
  // One instance: the address ceiling counts a token once per instance's token cache.
  const h = await startApp(t, { RATE_LIMIT_READ_MAX: '3', RATE_LIMIT_WRITE_MAX: '2' }, { singleInstance: true });
  for (let i = 0; i < 3; i++) {
    const res = await h.request({ method: 'GET', url: '/v1/customers/1001', as: 'ada' });
    assert.equal(res.statusCode, 200);
    assert.equal(limits(res)['read']?.r, 2 - i);
    // The address ceiling is counted once, when the token is first verified; a known token costs one lookup.
    if (i === 0) assert.equal(limits(res)['address']?.r, 999);
    else assert.equal(limits(res)['address'], undefined);
  }
  const refused = await h.request({ method: 'GET', url: '/v1/customers/1001', as: 'ada' });
  assertRateLimited(refused, 'read');
  assert.match(String(refused.json().detail), /read limit of 3 requests per 60 s/);
  // Same address, another principal: its own allowance.
  const alan = await h.request({ method: 'GET', url: '/v1/customers/1002', as: 'alan' });
  assert.equal(alan.statusCode, 200);
  assert.equal(alan.json().customerId, '1002');

  // Writes are another class: ada may still pay, twice.
  const pay = (key: string) =>
    h.request({
      method: 'POST',
      url: '/v1/payments',
      as: 'ada',
      headers: { 'idempotency-key': key },
      body: { debtorAccount: '1001-01', creditorAccount: '1002-01', amount: 5, currency: 'EUR' },
    });
  assert.equal((await pay('rl-1')).statusCode, 201);
  assert.equal((await pay('rl-2')).statusCode, 201);
  assertRateLimited(await pay('rl-3'), 'write');
  assert.equal(await balance(h, '1001-01'), 2490, 'two payments of 5.00, the third refused');
});

test('requests with credentials hit the address ceiling before their token is verified; anonymous /v1 calls are limited per address', async (t) => {
  const h = await startApp(t, { RATE_LIMIT_ADDRESS_MAX: '3', RATE_LIMIT_READ_MAX: '2' });
  const bogus = () =>
    h.app.inject({
      method: 'GET',
      url: '/v1/customers/1001',
      remoteAddress: '127.0.0.9',
      headers: { authorization: 'Bearer e30.e30.AAAA' },
    });
  for (let i = 0; i < 3; i++) assertProblem(await bogus(), 401, 'UNAUTHENTICATED');
  assertRateLimited(await bogus(), 'address');
  const failures = h.logs.filter((l) => l['msg'] === 'authentication failed').length;
  assert.equal(failures, 3, 'the fourth token was never verified');

  // Credentials that are not a bearer token never reach a signature check, and are counted all the same.
  const basic = () =>
    h.app.inject({
      method: 'GET',
      url: '/v1/customers/1001',
      remoteAddress: '127.0.0.11',
      headers: { authorization: 'Basic YWRhOnNlY3JldA==' },
    });
  for (let i = 0; i < 3; i++) assertProblem(await basic(), 401, 'UNAUTHENTICATED');
  assertRateLimited(await basic(), 'address');

  const anonymous = () => h.app.inject({ method: 'GET', url: '/v1/customers/1001', remoteAddress: '127.0.0.10' });
  assertProblem(await anonymous(), 401, 'UNAUTHENTICATED');
  assertProblem(await anonymous(), 401, 'UNAUTHENTICATED');
  assertRateLimited(await anonymous(), 'read');
});

test('rate-limit variables: defaults 100 per minute per class, checked at startup', () => {
  const rl = loadConfig({}).protection.rateLimit;
  assert.deepEqual(rl.perClass, { read: 100, write: 100, auth: 100, public: 100 });
  assert.equal(rl.windowSeconds, 60);
  assert.equal(rl.perAddress, 1000);
  assert.equal(rl.redisUrl, null);
  assert.deepEqual(loadConfig({ RATE_LIMIT_MAX: '7', RATE_LIMIT_AUTH_MAX: '5' }).protection.rateLimit.perClass, {
    read: 7,
    write: 7,
    auth: 5,
    public: 7,
  });
  for (const [name, value] of [
    ['RATE_LIMIT_MAX', '0'],
    ['RATE_LIMIT_READ_MAX', 'many'],
    ['REDIS_URL', 'http://x'],
    ['RATE_LIMIT_WINDOW_SECONDS', '0'],
  ] as const) {
    assert.throws(() => loadConfig({ [name]: value }), new RegExp(name));
  }
});

test('with REDIS_URL two instances share one limit (local Redis on 127.0.0.1:6379)', async (t) => {
  const prefix = `corebridge-test:${randomUUID()}:`;
  const redis = new Redis('redis://127.0.0.1:6379', {
    lazyConnect: true,
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
  });
  // Fails (never skips) when Redis is not running.
  await redis.connect();
  t.after(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });
  const env = { REDIS_URL: 'redis://127.0.0.1:6379', RATE_LIMIT_REDIS_PREFIX: prefix, RATE_LIMIT_READ_MAX: '4' };
  const a = await startApp(t, env);
  const b = await startApp(t, env);
  const read = (h: TestApp) => h.request({ method: 'GET', url: '/v1/customers/1001', as: 'ada' });
  assert.equal((await read(a)).statusCode, 200);
  assert.equal((await read(b)).statusCode, 200);
  assert.equal((await read(a)).statusCode, 200);
  const fourth = await read(b);
  assert.equal(fourth.statusCode, 200);
  assert.equal(limits(fourth)['read']?.r, 0, "b saw a's requests");
  assertRateLimited(await read(a), 'read');
  assertRateLimited(await read(b), 'read');
  assert.ok((await redis.keys(`${prefix}*`)).length > 0, 'the counters live in Redis');

  // Without Redis each instance counts alone.
  const c = await startApp(t, { RATE_LIMIT_READ_MAX: '1' });
  const d = await startApp(t, { RATE_LIMIT_READ_MAX: '1' });
  assert.equal((await read(c)).statusCode, 200);
  assert.equal((await read(d)).statusCode, 200);
});

test("route classes: API reads and writes by method, the identity provider's endpoints as auth, an explicit class wins", () => {
  const req = (method: string, url: string, config: Record<string, unknown>) =>
    // the rate-limit key reads only the method and route of the request
    // eslint-disable-next-line no-restricted-syntax -- the comment above says why
    ({ method, routeOptions: { url, config } }) as unknown as FastifyRequest;
  const access = ROUTES.getOrder;
  assert.equal(rateLimitClassOf(req('GET', '/v1/orders/:orderId', { access })), 'read');
  assert.equal(rateLimitClassOf(req('POST', '/v1/payments', { access: ROUTES.createPayment })), 'write');
  assert.equal(rateLimitClassOf(req('DELETE', '/v1/orders/:orderId', { access: ROUTES.cancelOrder })), 'write');
  assert.equal(rateLimitClassOf(req('POST', '/oauth/token', { public: true })), 'auth');
  assert.equal(rateLimitClassOf(req('GET', '/oauth/auth', { public: true })), 'auth');
  assert.equal(rateLimitClassOf(req('GET', '/openapi.json', { public: true })), 'public');
  assert.equal(rateLimitClassOf(req('POST', '/login', { public: true, rateLimitClass: 'auth' })), 'auth');
});
