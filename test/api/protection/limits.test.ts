/**
 * Resource limits: body size, JSON depth and array length, prototype-poisoning keys,
 * header size, server-side timeout, concurrent back-end calls, event-loop overload. Every refusal is
 * problem+json, and a refused payment moves no money.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { test, type TestContext } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { buildApp, type App } from '../../../src/app.ts';
import { createLogger } from '../../../src/logger.ts';
import { ROLE_SCOPES } from '../../../src/auth/roles.ts';
import { backendFile, createBackend } from '../../../src/backend/index.ts';
import { loadMessageCatalog } from '../../../src/backend/copybooks/index.ts';
import { loadConfig } from '../../../src/config.ts';
import { inProcessTransport } from '../../../src/transport/in-process.ts';
import { assertProblem } from '../../helpers/assert-shape.ts';
import { startApp, type TestApp } from '../../helpers/app.ts';

const TRANSFER = { debtorAccount: '1001-01', creditorAccount: '1002-01', amount: 10, currency: 'EUR' };

async function balance(h: TestApp, account: string): Promise<number> {
  const res = await h.request({ method: 'GET', url: `/v1/accounts/${account}/balance`, as: 'clerk' });
  assert.equal(res.statusCode, 200);
  return res.json().balance;
}

function payRaw(h: TestApp, payload: string, key: string) {
  return h.app.inject({
    method: 'POST',
    url: '/v1/payments',
    payload,
    headers: { 'content-type': 'application/json', 'idempotency-key': key },
  });
}

async function payAsAda(h: TestApp, payload: string, key: string) {
  const token = await h.token('ada');
  return h.app.inject({
    method: 'POST',
    url: '/v1/payments',
    payload,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': key },
  });
}

test('a body over BODY_LIMIT_BYTES (default 16 KiB) → 413 problem+json, and no money moves', async (t) => {
  const h = await startApp(t);
  const before = [await balance(h, '1001-01'), await balance(h, '1002-01')];
  const big = JSON.stringify({ ...TRANSFER, reference: 'x'.repeat(17 * 1024) });
  assertProblem(await payAsAda(h, big, 'big-1'), 413, 'PAYLOAD_TOO_LARGE');
  // Without a token too: the size is refused before anything else reads the body.
  assert.equal((await payRaw(h, big, 'big-2')).statusCode, 401);
  assert.deepEqual([await balance(h, '1001-01'), await balance(h, '1002-01')], before);

  const small = await startApp(t, { BODY_LIMIT_BYTES: '1024' });
  assertProblem(
    await payAsAda(small, JSON.stringify({ ...TRANSFER, reference: 'y'.repeat(1100) }), 'big-3'),
    413,
    'PAYLOAD_TOO_LARGE',
  );
  assert.equal(await balance(small, '1001-01'), 2500);
});

test('deeply nested bodies and long arrays → 400 naming the place; no money moves', async (t) => {
  const h = await startApp(t);
  let nested: unknown = 'deep';
  for (let i = 0; i < 200; i++) nested = { a: nested };
  const deep = await payAsAda(h, JSON.stringify({ ...TRANSFER, reference: nested }), 'deep-1');
  const body = assertProblem(deep, 400, 'VALIDATION_FAILED');
  const errors = body['errors'] as Array<{ pointer: string; in: string }>;
  assert.equal(errors[0]!.in, 'body');
  assert.match(errors[0]!.pointer, /^\/reference(\/a)+$/);
  // The shape is checked first among the body's hooks, before the idempotency plugin fingerprints the
  // body: a deep body without a key is refused for its depth, not for the missing key.
  const token = await h.token('ada');
  const keyless = await h.app.inject({
    method: 'POST',
    url: '/v1/payments',
    payload: JSON.stringify({ ...TRANSFER, reference: nested }),
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
  });
  assert.match(String(assertProblem(keyless, 400, 'VALIDATION_FAILED')['detail']), /nests deeper than/);

  let arrays: unknown = [];
  for (let i = 0; i < 2000; i++) arrays = [arrays];
  assertProblem(
    await payAsAda(h, JSON.stringify({ ...TRANSFER, reference: arrays }), 'deep-2'),
    400,
    'VALIDATION_FAILED',
  );

  const long = await payAsAda(
    h,
    JSON.stringify({ ...TRANSFER, reference: Array.from({ length: 500 }, () => 1) }),
    'long-1',
  );
  const longBody = assertProblem(long, 400, 'VALIDATION_FAILED');
  assert.match(String(longBody['detail']), /more than 100 items/);
  assert.equal(await balance(h, '1001-01'), 2500);
  assert.equal(await balance(h, '1002-01'), 1200);
});

test('__proto__ and constructor.prototype keys → 400, nothing polluted, no money moves', async (t) => {
  const h = await startApp(t);
  const attacks = [
    `{"debtorAccount":"1001-01","creditorAccount":"1002-01","amount":10,"currency":"EUR","__proto__":{"polluted":true}}`,
    `{"debtorAccount":"1001-01","creditorAccount":"1002-01","amount":10,"currency":"EUR","constructor":{"prototype":{"polluted":true}}}`,
    `{"debtorAccount":"1001-01","creditorAccount":"1002-01","amount":10,"currency":"EUR","reference":{"__proto__":{"polluted":true}}}`,
  ];
  for (const [i, payload] of attacks.entries()) {
    const res = await payAsAda(h, payload, `proto-${i}`);
    assertProblem(res, 400, res.json().code);
    assert.ok(['MALFORMED_REQUEST', 'VALIDATION_FAILED'].includes(res.json().code), res.body);
  }
  const created = await h.app.inject({
    method: 'POST',
    url: '/v1/customers',
    payload: '{"name":"Mallory","email":"m@example.com","__proto__":{"role":"agent"}}',
    headers: { authorization: `Bearer ${await h.token('clerk')}`, 'content-type': 'application/json' },
  });
  assert.equal(created.statusCode, 400);
  assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
  assert.equal(({} as Record<string, unknown>)['role'], undefined);
  assert.equal(Object.prototype.hasOwnProperty.call(Object.prototype, 'polluted'), false);
  assert.equal(await balance(h, '1001-01'), 2500);
  assert.equal(await balance(h, '1002-01'), 1200);
});

test('headers over MAX_HEADER_BYTES → 431 problem+json from the listening server', async (t) => {
  const h = await startApp(t, { MAX_HEADER_BYTES: '4096', HOST: '127.0.0.1' });
  await h.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = h.app.server.address() as AddressInfo;
  const send = (headers: Record<string, string>) =>
    new Promise<{ status: number; type: string; body: string }>((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port, path: '/health/live', headers }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          body += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), body }));
      });
      req.on('error', reject);
      req.end();
    });
  const ok = await send({ 'x-small': 'a'.repeat(1000) });
  assert.equal(ok.status, 200);
  const big = await send({ 'x-big': 'a'.repeat(6000) });
  assert.equal(big.status, 431);
  assert.match(big.type, /^application\/problem\+json/);
  const problem = JSON.parse(big.body) as Record<string, unknown>;
  assert.equal(problem['code'], 'HEADERS_TOO_LARGE');
  assert.equal(problem['status'], 431);
});

/** The real app with a transport that waits `delayMs` before each back-end call. */
async function slowApp(
  t: TestContext,
  env: Record<string, string>,
  delayMs: number,
): Promise<{ app: App; token(subject: 'ada' | 'clerk'): Promise<string> }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'corebridge-limits-'));
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', ...env });
  const logger = createLogger(
    config,
    new Writable({
      write(_c, _e, done) {
        done();
      },
    }),
  );
  const catalog = loadMessageCatalog();
  const inner = inProcessTransport(await createBackend({ file: backendFile(dataDir), log: logger, catalog }));
  const transport = {
    ...inner,
    async call(request: Buffer, options?: { signal?: AbortSignal }) {
      await sleep(delayMs);
      return inner.call(request, options);
    },
  };
  const app = await buildApp(config, { logger, transport });
  t.after(async () => {
    await app.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  return {
    app,
    token: (subject) =>
      app.devIssuer.sign(
        subject === 'ada'
          ? { subject, role: 'customer', customerId: '1001', scopes: ROLE_SCOPES.customer }
          : { subject, role: 'agent', scopes: ROLE_SCOPES.agent },
      ),
  };
}

test('a request not answered within REQUEST_TIMEOUT_MS → 504 problem+json', async (t) => {
  const { app, token } = await slowApp(t, { REQUEST_TIMEOUT_MS: '100' }, 400);
  const res = await app.inject({
    method: 'GET',
    url: '/v1/customers/1001',
    headers: { authorization: `Bearer ${await token('ada')}` },
  });
  assertProblem(res, 504, 'REQUEST_TIMEOUT');
  assert.equal(res.json().detail, undefined, '5xx details stay in the log');
  await sleep(400); // let the abandoned back-end call finish before the app closes
});

test('back-end calls beyond BACKEND_MAX_CONCURRENT → 503 with Retry-After; the refused payment moves no money', async (t) => {
  const { app, token } = await slowApp(t, { BACKEND_MAX_CONCURRENT: '1', OVERLOAD_RETRY_AFTER_SECONDS: '2' }, 200);
  const ada = await token('ada');
  const pay = (key: string) =>
    app.inject({
      method: 'POST',
      url: '/v1/payments',
      payload: TRANSFER,
      headers: { authorization: `Bearer ${ada}`, 'idempotency-key': key },
    });
  const [first, second] = await Promise.all([pay('conc-1'), pay('conc-2')]);
  const statuses = [first.statusCode, second.statusCode].sort();
  assert.deepEqual(statuses, [201, 503]);
  const refused = first.statusCode === 503 ? first : second;
  assertProblem(refused, 503, 'BACKEND_BUSY');
  assert.equal(refused.headers['retry-after'], '2');

  const clerk = await token('clerk');
  const read = await app.inject({
    method: 'GET',
    url: '/v1/accounts/1001-01/balance',
    headers: { authorization: `Bearer ${clerk}` },
  });
  assert.equal(read.json().balance, 2490, 'one payment of 10.00, not two');
  // The refused key was released: a retry with it now runs.
  const retry = await pay(first.statusCode === 503 ? 'conc-1' : 'conc-2');
  assert.equal(retry.statusCode, 201);
});

test('event-loop overload → 503 problem+json with Retry-After (@fastify/under-pressure)', async (t) => {
  const h = await startApp(t, { OVERLOAD_MAX_EVENT_LOOP_UTILIZATION: '0.5', OVERLOAD_RETRY_AFTER_SECONDS: '7' });
  assert.equal((await h.request({ method: 'GET', url: '/health/live' })).statusCode, 200);
  // Block the event loop across at least one sampling interval (1 s), then let the sampler run.
  const until = Date.now() + 1500;
  while (Date.now() < until) {
    /* busy */
  }
  let res = await h.request({ method: 'GET', url: '/health/ready' });
  for (let i = 0; i < 30 && res.statusCode === 200; i++) {
    const spin = Date.now() + 90;
    while (Date.now() < spin) {
      /* keep the loop busy between samples */
    }
    await sleep(10);
    res = await h.request({ method: 'GET', url: '/health/ready' });
  }
  assertProblem(res, 503, 'OVERLOADED');
  assert.equal(res.headers['retry-after'], '7');
  // Liveness is never shed: an orchestrator would restart the overloaded instance.
  assert.equal((await h.request({ method: 'GET', url: '/health/live' })).statusCode, 200);
});

test('limit variables are checked at startup', () => {
  for (const [name, value] of [
    ['BODY_LIMIT_BYTES', '10'],
    ['JSON_MAX_DEPTH', 'x'],
    ['REQUEST_TIMEOUT_MS', '-1'],
    ['OVERLOAD_MAX_EVENT_LOOP_UTILIZATION', '1.5'],
    ['BACKEND_MAX_CONCURRENT', '0'],
  ] as const) {
    assert.throws(() => loadConfig({ [name]: value }), new RegExp(name));
  }
  const defaults = loadConfig({}).protection.limits;
  assert.equal(defaults.bodyBytes, 16_384);
  assert.equal(defaults.requestTimeoutMs, 5000);
});
