/**
 * The API in front of back-end services over mutual TLS (BACKEND_URL), as a client sees it: embedded answers, the
 * other service serving when one is away, 503/504 + Retry-After when none is or one is late, and nothing served to
 * an API instance the back-end does not accept. (`npm run test:tls` runs every API suite this way.)
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { pino } from 'pino';
import { buildApp } from '../../src/app.ts';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { loadMessageCatalog } from '../../src/backend/copybooks/index.ts';
import { serveBackend } from '../../src/transport/tcp/server.ts';
import { DEV_API_CLIENT_NAME } from '../../src/tls/dev-files.ts';
import { until } from '../../src/until.ts';
import { startApp, type TestApp } from '../helpers/app.ts';
import { assertProblem } from '../helpers/assert-shape.ts';
import { startBackendService, startTlsPeer, testPki, writeDevPki } from '../helpers/backend-service.ts';

const PAYMENT = {
  debtorAccount: '1001-01',
  creditorAccount: '1002-01',
  amount: 12.5,
  currency: 'EUR',
  reference: 'over TLS',
};

async function balance(h: TestApp, account: string): Promise<number> {
  const res = await h.request({ method: 'GET', url: `/v1/accounts/${account}/balance`, as: 'clerk' });
  assert.equal(res.statusCode, 200, res.body);
  return Math.round((res.json() as { balance: number }).balance * 100);
}

/** Every API instance ready (each reconnects on its own backoff; under TEST_API_INSTANCES there are several). */
async function waitReady(h: TestApp): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const answers = await Promise.all(h.apps.map((app) => app.inject({ method: 'GET', url: '/health/ready' })));
    if (answers.every((a) => a.statusCode === 200)) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.fail('not ready within 10 s');
}

test('over mutual TLS: a payment, its replay under the same key, and the money it moved', async (t) => {
  const h = await startApp(t, {}, { backendService: true });
  assert.ok(h.config.backend.urls[0]?.startsWith('tls://127.0.0.1:'));
  const before = [await balance(h, '1001-01'), await balance(h, '1002-01')];
  const pay = () =>
    h.request({
      method: 'POST',
      url: '/v1/payments',
      as: 'clerk',
      body: PAYMENT,
      headers: { 'idempotency-key': 'tls-pay-1' },
    });
  const first = await pay();
  assert.equal(first.statusCode, 201, first.body);
  const paid = first.json() as Record<string, unknown>;
  assert.equal(paid['status'], 'COMPLETED');
  assert.equal(paid['amount'], 12.5);
  const again = await pay();
  assert.equal(again.headers['idempotent-replayed'], 'true');
  assert.deepEqual(again.json(), paid);
  assert.deepEqual([await balance(h, '1001-01'), await balance(h, '1002-01')], [before[0]! - 1250, before[1]! + 1250]);
  const read = await h.request({ method: 'GET', url: `/v1/payments/${String(paid['paymentId'])}`, as: 'clerk' });
  assert.deepEqual(read.json(), paid);
  // One line per request at info, with the back-end's facts, as embedded.
  const line = h.logs.find((l) => l['requestId'] === first.headers['x-request-id'] && l['msg'] === 'request completed');
  assert.deepEqual((line?.['backend'] as Record<string, unknown>)?.['tran'], 'PAYCRT');
});

test('back-end services away: the other serves; with none, 503 with Retry-After and not ready; one back on its port, served again', async (t) => {
  const h = await startApp(t, {}, { backendService: true });
  const [running, other] = h.backendServices;
  assert.equal((await h.request({ method: 'GET', url: '/health/ready' })).statusCode, 200);
  await running!.service.close();
  // The API learns at once (its connections close) and sends everything to the other.
  await new Promise((resolve) => setTimeout(resolve, 100));
  for (let i = 0; i < 4; i++) {
    assert.equal(
      (await h.request({ method: 'GET', url: '/v1/accounts/1001-01/balance', as: 'clerk' })).statusCode,
      200,
    );
  }
  const served = await h.request({
    method: 'POST',
    url: '/v1/payments',
    as: 'clerk',
    body: PAYMENT,
    headers: { 'idempotency-key': 'tls-other-1' },
  });
  assert.equal(served.statusCode, 201, served.body);
  assert.equal((await h.request({ method: 'GET', url: '/health/ready' })).statusCode, 200);
  await other!.service.close();
  await new Promise((resolve) => setTimeout(resolve, 100));

  const read = await h.request({ method: 'GET', url: '/v1/accounts/1001-01/balance', as: 'clerk' });
  assertProblem(read, 503, 'BACKEND_UNAVAILABLE');
  assert.equal(read.headers['retry-after'], '1');
  const write = await h.request({
    method: 'POST',
    url: '/v1/payments',
    as: 'clerk',
    body: PAYMENT,
    headers: { 'idempotency-key': 'tls-away-1' },
  });
  assertProblem(write, 503, 'BACKEND_UNAVAILABLE');
  assert.equal(write.headers['retry-after'], '1');
  // Readiness asks the back-ends at most once per HEALTH_READY_INTERVAL_MS: it turns 503 within it.
  let notReady = await h.request({ method: 'GET', url: '/health/ready' });
  await until(
    'not ready',
    async () => (notReady = await h.request({ method: 'GET', url: '/health/ready' })).statusCode !== 200,
  );
  assertProblem(notReady, 503, 'BACKEND_UNAVAILABLE');

  // The same runtime (and store) behind a new listener on the same port: the API reconnects by itself.
  const pki = await testPki();
  const again = await serveBackend(running!.inner, {
    host: '127.0.0.1',
    port: running!.service.port,
    cert: pki.backend.cert,
    key: pki.backend.key,
    ca: pki.ca.cert,
    allowedClients: new Set([DEV_API_CLIENT_NAME]),
    apiClients: new Set([DEV_API_CLIENT_NAME]),
    catalog: loadMessageCatalog(),
    log: pino({ level: 'silent' }),
  });
  t.after(() => again.close());
  await waitReady(h);
  // The retry under the same key runs once: the first attempt never reached the back-end.
  const retried = await h.request({
    method: 'POST',
    url: '/v1/payments',
    as: 'clerk',
    body: PAYMENT,
    headers: { 'idempotency-key': 'tls-away-1' },
  });
  assert.equal(retried.statusCode, 201, retried.body);
  assert.equal(retried.headers['idempotent-replayed'], undefined);
});

test('a back-end that does not answer in time: 504 BACKEND_TIMEOUT with Retry-After', async (t) => {
  const pki = await testPki();
  const url = await startTlsPeer(t, () => {}); // takes every call, answers none
  const h = await startApp(
    t,
    { BACKEND_URL: url, BACKEND_CALL_TIMEOUT_MS: '200' },
    { beforeBuild: (dataDir) => writeDevPki(dataDir, pki) },
  );
  const res = await h.request({ method: 'GET', url: '/v1/accounts/1001-01/balance', as: 'clerk' });
  const problem = assertProblem(res, 504, 'BACKEND_TIMEOUT');
  assert.equal(res.headers['retry-after'], '1');
  assert.ok(!JSON.stringify(problem).includes('tls://'), 'no back-end address in the answer');
});

test('an API instance whose certificate the back-end does not accept gets nothing; both sides log why', async (t) => {
  const pki = await testPki();
  const storeDir = mkdtempSync(join(tmpdir(), 'corebridge-refused-'));
  t.after(() => rmSync(storeDir, { recursive: true, force: true }));
  const running = await startBackendService(t, { file: join(storeDir, 'backend.sqlite') });
  const h = await startApp(
    t,
    { BACKEND_URL: running.url },
    {
      beforeBuild(dataDir) {
        writeDevPki(dataDir, pki);
        writeFileSync(join(dataDir, 'certs', 'intruder.crt'), pki.intruder.cert);
        writeFileSync(join(dataDir, 'certs', 'intruder.key'), pki.intruder.key, { mode: 0o600 });
        return {
          BACKEND_TLS_CERT: join(dataDir, 'certs', 'intruder.crt'),
          BACKEND_TLS_KEY: join(dataDir, 'certs', 'intruder.key'),
        };
      },
    },
  );
  const res = await h.request({ method: 'GET', url: '/v1/accounts/1001-01/balance', as: 'clerk' });
  assertProblem(res, 503, 'BACKEND_UNAVAILABLE');
  const refusal = h.logs.find((l) => l['msg'] === 'back-end refused this API instance; retrying every 5 s');
  assert.match(String(refusal?.['reason']), /certificate CN=intruder \(no SAN DNS or URI name\) is not allowed/);
  assertProblem(await h.request({ method: 'GET', url: '/health/ready' }), 503, 'BACKEND_UNAVAILABLE');
});

test('certificate files that cannot be read stop startup, naming the setting', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'corebridge-nocerts-'));
  try {
    await assert.rejects(
      buildApp(loadConfig({ DATA_DIR: dataDir, BACKEND_URL: 'tls://127.0.0.1:7443', LOG_LEVEL: 'silent' })),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.equal(error.variable, 'BACKEND_TLS_CA');
        assert.match(error.message, /certs\/ca\.crt.*npm run certs/);
        return true;
      },
    );
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
