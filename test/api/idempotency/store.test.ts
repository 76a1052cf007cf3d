import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { openIdempotencyStore, PURGE_CHUNK, purgeInChunks } from '../../../src/api/idempotency/store.ts';

test('idempotency records: execute, in flight, lease takeover, replay, mismatch, expiry — per caller', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'corebridge-idem-'));
  let now = 1_000_000;
  const store = openIdempotencyStore(join(dir, 'api.sqlite'), { ttlSeconds: 3600, leaseMs: 1000, now: () => now });
  t.after(() => {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  assert.deepEqual(store.begin('ada', 'k', 'h1'), { outcome: 'execute' });
  assert.deepEqual(store.begin('ada', 'k', 'h1'), { outcome: 'in-flight' });
  assert.deepEqual(store.begin('ada', 'k', 'h2'), { outcome: 'mismatch' });
  assert.deepEqual(store.begin('alan', 'k', 'h2'), { outcome: 'execute' }, 'keys are scoped to the caller');

  now += 1001; // the holder crashed: its lease ran out
  assert.deepEqual(store.begin('ada', 'k', 'h1'), { outcome: 'execute' });
  assert.deepEqual(store.begin('ada', 'k', 'h1'), { outcome: 'in-flight' });
  const response = {
    statusCode: 201,
    contentType: 'application/json',
    headers: { location: '/v1/payments/PAY-1' },
    body: '{"paymentId":"PAY-1"}',
  };
  store.complete('ada', 'k', response);
  assert.deepEqual(store.begin('ada', 'k', 'h1'), { outcome: 'replay', response });
  assert.deepEqual(store.begin('ada', 'k', 'h2'), { outcome: 'mismatch' });

  store.release('alan', 'k');
  assert.deepEqual(store.begin('alan', 'k', 'h3'), { outcome: 'execute' }, 'a released key can run again');

  now += 3600 * 1000;
  assert.deepEqual(store.begin('ada', 'k', 'h2'), { outcome: 'execute' }, 'an expired key is forgotten');
  now += 3600 * 1000 + 1;
  assert.equal(store.purgeExpired(), 2);
});

test('expired records are purged in bounded chunks, leaving live ones', async () => {
  let now = 1_000_000;
  const store = openIdempotencyStore(':memory:', { ttlSeconds: 60, leaseMs: 1000, now: () => now });
  for (let i = 0; i < PURGE_CHUNK * 2 + 7; i++) store.begin('ada', `old-${i}`, 'h');
  now += 61_000;
  store.begin('ada', 'live', 'h');
  assert.equal(store.purgeExpired(10), 10, 'one statement deletes at most its chunk');
  assert.equal(await purgeInChunks(store), PURGE_CHUNK * 2 + 7 - 10);
  assert.equal(store.purgeExpired(), 0);
  assert.deepEqual(store.begin('ada', 'live', 'h'), { outcome: 'in-flight' }, 'the live key is kept');
  store.close();
});
