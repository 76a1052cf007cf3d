/**
 * Idempotency records in Redis (REDIS_URL): the same semantics as the embedded store, shared by API
 * instances. Needs the local Redis (127.0.0.1:6379); fails, never skips, without it.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { Redis } from 'ioredis';
import { openRedisIdempotencyStore } from '../../../src/api/idempotency/redis-store.ts';
import { startApp, type TestApp } from '../../helpers/app.ts';
import { freePort } from '../../../support/free-port.ts';

const REDIS_URL = 'redis://127.0.0.1:6379';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A connection to the local Redis, and a key prefix of this test's own, removed afterwards. */
async function redisFor(t: TestContext): Promise<{ redis: Redis; prefix: string }> {
  const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 2000 });
  await redis.connect();
  const prefix = `corebridge-test:${randomUUID()}:`;
  t.after(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });
  return { redis, prefix };
}

test('Redis records: execute, in flight, mismatch, per caller, lease takeover, replay, release, expiry', async (t) => {
  const { redis, prefix } = await redisFor(t);
  const store = openRedisIdempotencyStore(redis, { ttlSeconds: 1, leaseMs: 200, prefix });
  assert.deepEqual(await store.begin('ada', 'k', 'h1'), { outcome: 'execute' });
  assert.deepEqual(await store.begin('ada', 'k', 'h1'), { outcome: 'in-flight' });
  assert.deepEqual(await store.begin('ada', 'k', 'h2'), { outcome: 'mismatch' });
  assert.deepEqual(await store.begin('alan', 'k', 'h2'), { outcome: 'execute' }, 'keys are scoped to the caller');

  await sleep(250); // the holder crashed: its lease ran out
  assert.deepEqual(await store.begin('ada', 'k', 'h1'), { outcome: 'execute' });
  assert.deepEqual(await store.begin('ada', 'k', 'h1'), { outcome: 'in-flight' });
  const response = {
    statusCode: 201,
    contentType: 'application/json',
    headers: { location: '/v1/payments/PAY-1' },
    body: '{"paymentId":"PAY-1"}',
  };
  await store.complete('ada', 'k', response);
  assert.deepEqual(await store.begin('ada', 'k', 'h1'), { outcome: 'replay', response });
  assert.deepEqual(await store.begin('ada', 'k', 'h2'), { outcome: 'mismatch' });

  await store.release('alan', 'k');
  assert.deepEqual(await store.begin('alan', 'k', 'h3'), { outcome: 'execute' }, 'a released key can run again');
  await store.release('ada', 'k');
  assert.deepEqual(
    await store.begin('ada', 'k', 'h1'),
    { outcome: 'replay', response },
    'a stored answer is never released',
  );

  await sleep(1100);
  assert.deepEqual(await store.begin('ada', 'k', 'h2'), { outcome: 'execute' }, 'an expired key is forgotten');
  assert.ok((await redis.pttl(`${prefix}ada:k`)) > 0, 'every record carries its expiry');

  await store.clear();
  assert.deepEqual(await redis.keys(`${prefix}*`), []);
});

test('the same key from many connections at once: exactly one executes', async (t) => {
  const { prefix } = await redisFor(t);
  const connections = await Promise.all(
    Array.from({ length: 4 }, async () => {
      const redis = new Redis(REDIS_URL, { lazyConnect: true });
      await redis.connect();
      t.after(() => redis.quit());
      return openRedisIdempotencyStore(redis, { ttlSeconds: 60, leaseMs: 10_000, prefix });
    }),
  );
  const outcomes = await Promise.all(
    Array.from({ length: 40 }, (_, i) => connections[i % 4]!.begin('clerk', 'race', 'h')),
  );
  assert.equal(outcomes.filter((o) => o.outcome === 'execute').length, 1);
  assert.equal(outcomes.filter((o) => o.outcome === 'in-flight').length, 39);
});

test('two API instances, two back-end services, one Redis: a key sent to both at once pays once; the other answers 409, then replays', async (t) => {
  const { prefix } = await redisFor(t);
  const shared = { REDIS_URL, IDEMPOTENCY_REDIS_PREFIX: `${prefix}idem:`, RATE_LIMIT_REDIS_PREFIX: `${prefix}rl:` };
  const a = await startApp(t, shared, { backendService: true });
  const certs = join(a.dataDir, 'certs');
  const b = await startApp(
    t,
    {
      ...shared,
      BACKEND_URL: a.backendServices.map((s) => s.url).join(','),
      BACKEND_TLS_CA: join(certs, 'ca.crt'),
      BACKEND_TLS_CERT: join(certs, 'api.crt'),
      BACKEND_TLS_KEY: join(certs, 'api.key'),
    },
    { backendService: false },
  );
  const balance = async (h: TestApp) =>
    Math.round(
      (await h.request({ method: 'GET', url: '/v1/accounts/1003-01/balance', as: 'clerk' })).json().balance * 100,
    );
  const before = await balance(a);

  const body = {
    debtorAccount: '1003-01',
    creditorAccount: '1001-01',
    amount: 7.25,
    currency: 'EUR',
    reference: 'two instances',
  };
  const pay = (h: TestApp) =>
    h.request({
      method: 'POST',
      url: '/v1/payments',
      as: 'clerk',
      body,
      headers: { 'idempotency-key': 'shared-key-1' },
    });
  const [fromA, fromB] = await Promise.all([pay(a), pay(b)]);
  const answers = [fromA, fromB];
  const executed = answers.filter((r) => r.statusCode === 201 && r.headers['idempotent-replayed'] === undefined);
  assert.equal(executed.length, 1, `one execution: ${answers.map((r) => `${r.statusCode} ${r.body}`).join(' | ')}`);
  const other = answers.find((r) => r !== executed[0])!;
  if (other.statusCode === 409) {
    assert.equal(other.json().code, 'IDEMPOTENCY_IN_PROGRESS');
    assert.equal(other.headers['retry-after'], '1');
  } else {
    assert.equal(other.headers['idempotent-replayed'], 'true');
  }
  // Retried on either instance: the first answer, replayed.
  for (const h of [a, b]) {
    const again = await pay(h);
    assert.equal(again.statusCode, 201);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.deepEqual(again.json(), executed[0]!.json());
  }
  assert.equal(await balance(b), before - 725, 'the money moved once');
  // The same key with another body is refused on the instance that did not run it too.
  const reused = await b.request({
    method: 'POST',
    url: '/v1/payments',
    as: 'clerk',
    body: { ...body, amount: 8 },
    headers: { 'idempotency-key': 'shared-key-1' },
  });
  assert.equal(reused.statusCode, 422);
  assert.equal(reused.json().code, 'IDEMPOTENCY_KEY_REUSED');
});

test('Redis unreachable: writes answer 503 with Retry-After, nothing is paid, not ready; when it is back, they run', async (t) => {
  // A Redis of this test's own, so that stopping it disturbs nothing else.
  const port = await freePort();
  const startRedis = () =>
    spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
  const waitRedis = async () => {
    for (let i = 0; i < 100; i++) {
      const probe = new Redis(`redis://127.0.0.1:${port}`, {
        lazyConnect: true,
        maxRetriesPerRequest: 0,
        retryStrategy: () => null,
      });
      probe.on('error', () => {});
      const up = await probe.connect().then(
        () => true,
        () => false,
      );
      probe.disconnect();
      if (up) return;
      await sleep(50);
    }
    assert.fail('redis-server did not start');
  };
  let redis = startRedis();
  t.after(() => redis.kill('SIGKILL'));
  await waitRedis();
  const h = await startApp(t, { REDIS_URL: `redis://127.0.0.1:${port}` });
  const body = { debtorAccount: '1003-01', creditorAccount: '1001-01', amount: 1, currency: 'EUR' };
  const pay = () =>
    h.request({
      method: 'POST',
      url: '/v1/payments',
      as: 'clerk',
      body,
      headers: { 'idempotency-key': 'redis-down-1' },
    });
  const balance = async () =>
    (await h.request({ method: 'GET', url: '/v1/accounts/1003-01/balance', as: 'clerk' })).json().balance as number;
  const before = await balance();

  redis.kill('SIGKILL');
  await new Promise((resolve) => redis.once('exit', resolve));
  const refused = await pay();
  assert.equal(refused.statusCode, 503, refused.body);
  assert.match(String(refused.headers['content-type']), /^application\/problem\+json/);
  assert.equal(refused.headers['retry-after'], '1');
  assert.equal(refused.json().code, 'OVERLOADED');
  assert.equal(
    (await h.request({ method: 'GET', url: '/health/ready' })).statusCode,
    503,
    'not ready without its shared state',
  );

  redis = startRedis();
  await waitRedis();
  // Each instance's connection comes back on its own; every instance is asked, since requests alternate between them.
  for (const app of h.apps) {
    let ready = await app.inject({ method: 'GET', url: '/health/ready' });
    for (let i = 0; i < 100 && ready.statusCode === 503; i++) {
      await sleep(100);
      ready = await app.inject({ method: 'GET', url: '/health/ready' });
    }
    assert.equal(ready.statusCode, 200, `ready again once Redis is back: ${ready.body}`);
  }
  const paid = await pay();
  assert.equal(paid.statusCode, 201, paid.body);
  assert.equal(await balance(), before - 1, 'paid once');
});
