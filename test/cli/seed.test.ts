import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { startApp } from '../helpers/app.ts';

test('npm run seed reloads the demo data; after a restart of the API a key runs again on the new data', async (t) => {
  const h = await startApp(t);
  const pay = () =>
    h.request({
      method: 'POST',
      url: '/v1/payments',
      as: 'ada',
      headers: { 'idempotency-key': 'before-seed' },
      body: { debtorAccount: '1001-01', creditorAccount: '1002-01', amount: 500, currency: 'EUR' },
    });
  assert.equal((await pay()).statusCode, 201);
  await h.request({
    method: 'POST',
    url: '/v1/customers',
    as: 'clerk',
    body: { name: 'Temp', email: 'temp@example.com' },
  });

  const run = spawnSync(process.execPath, ['src/cli/seed.ts'], {
    // Where this app keeps its store and, with Redis, its idempotency records.
    env: {
      ...process.env,
      DATA_DIR: h.dataDir,
      DATABASE_URL: h.config.backend.databaseUrl ?? '',
      REDIS_URL: h.config.protection.rateLimit.redisUrl ?? '',
      IDEMPOTENCY_REDIS_PREFIX: h.config.idempotency.redisPrefix,
    },
    encoding: 'utf8',
  });
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /demo data loaded/);
  const redis = h.config.protection.rateLimit.redisUrl;
  // Redis' shared records are forgotten by the seed; an instance's own are in its memory until it restarts.
  if (!redis) assert.match(run.stdout, /restart a running API/);
  await h.restart();

  const balance = await h.request({ method: 'GET', url: '/v1/accounts/1001-01/balance', as: 'ada' });
  assert.equal(balance.json().balance, 2500);
  assert.equal((await h.request({ method: 'GET', url: '/v1/customers/1004', as: 'clerk' })).statusCode, 404);
  const again = await pay();
  assert.equal(again.statusCode, 201);
  assert.equal(again.headers['idempotent-replayed'], undefined);
  assert.equal(
    (await h.request({ method: 'GET', url: '/v1/accounts/1001-01/balance', as: 'ada' })).json().balance,
    2000,
  );
});
