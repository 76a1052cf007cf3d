/**
 * Health probes behind a balancer: they come from one address, so they are not counted against the public
 * per-address limit; /health/ready, open to anyone, asks the back-end at most once per HEALTH_READY_INTERVAL_MS.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../../../src/config.ts';
import { assertProblem } from '../../helpers/assert-shape.ts';
import { startApp } from '../../helpers/app.ts';
import { startBackendService, testPki, writeDevPki } from '../../helpers/backend-service.ts';

test('with the public limit used up for an address, its probes still answer 200 while another public route answers 429', async (t) => {
  const h = await startApp(t, { RATE_LIMIT_PUBLIC_MAX: '2' }, { singleInstance: true });
  const get = (url: string, remoteAddress = '10.0.0.7') => h.app.inject({ method: 'GET', url, remoteAddress });
  assert.equal((await get('/openapi.json')).statusCode, 200);
  assert.equal((await get('/openapi.json')).statusCode, 200);
  assertProblem(await get('/openapi.json'), 429, 'RATE_LIMITED');
  for (let i = 0; i < 5; i++) {
    for (const url of ['/health/live', '/health/ready']) {
      const res = await get(url);
      assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
      assert.deepEqual(res.json(), { status: 'ok' });
      assert.equal(res.headers['ratelimit'], undefined, 'a probe is counted against no limit');
    }
  }
  // The probes used nothing of the address's allowance, and gave none back.
  assertProblem(await get('/openapi.json'), 429, 'RATE_LIMITED');
  assert.equal((await get('/openapi.json', '10.0.0.8')).statusCode, 200);
});

test('concurrent and repeated /health/ready within the interval reach the back-end once', async (t) => {
  const pki = await testPki();
  const backend = await startBackendService(t);
  // One connection to one back-end service: one readiness check is one ping.
  const h = await startApp(
    t,
    { BACKEND_URL: backend.url, BACKEND_CONNECTIONS: '1', HEALTH_READY_INTERVAL_MS: '60000' },
    { singleInstance: true, beforeBuild: (dataDir) => writeDevPki(dataDir, pki) },
  );
  const before = backend.pings;
  const ready = () => h.app.inject({ method: 'GET', url: '/health/ready', remoteAddress: '10.0.0.7' });
  const concurrent = await Promise.all(Array.from({ length: 50 }, ready));
  assert.deepEqual(
    concurrent.map((res) => res.statusCode),
    Array.from({ length: 50 }, () => 200),
  );
  assert.equal(backend.pings - before, 1, 'fifty probes at once: one ping');
  for (let i = 0; i < 20; i++) assert.equal((await ready()).statusCode, 200);
  assert.equal(backend.pings - before, 1, 'probes within the interval get its answer');
});

test('HEALTH_READY_INTERVAL_MS: 1000 ms by default, 100 ms to 60 s', () => {
  assert.equal(loadConfig({}).protection.limits.readyIntervalMs, 1000);
  assert.equal(loadConfig({ HEALTH_READY_INTERVAL_MS: '250' }).protection.limits.readyIntervalMs, 250);
  for (const bad of ['0', '99', '60001', 'soon']) {
    assert.throws(() => loadConfig({ HEALTH_READY_INTERVAL_MS: bad }), /HEALTH_READY_INTERVAL_MS/, bad);
  }
});
