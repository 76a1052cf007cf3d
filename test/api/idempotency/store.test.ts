import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openIdempotencyStore, PURGE_CHUNK, purgeInChunks } from '../../../src/api/idempotency/store.ts';

const MB = 1024 * 1024;
const answer = (paymentId: string, bodyBytes = 0) => ({
  statusCode: 201,
  contentType: 'application/json',
  headers: { location: `/v1/payments/${paymentId}` },
  body: `{"paymentId":"${paymentId}"}`.padEnd(bodyBytes, ' '),
});

test('idempotency records: execute, in flight, lease takeover, replay, mismatch, expiry — per caller', () => {
  let now = 1_000_000;
  const store = openIdempotencyStore({ ttlSeconds: 3600, leaseMs: 1000, maxBytes: MB, now: () => now });
  assert.deepEqual(store.begin('ada', 'k', 'h1'), { outcome: 'execute' });
  assert.deepEqual(store.begin('ada', 'k', 'h1'), { outcome: 'in-flight' });
  assert.deepEqual(store.begin('ada', 'k', 'h2'), { outcome: 'mismatch' });
  assert.deepEqual(store.begin('alan', 'k', 'h2'), { outcome: 'execute' }, 'keys are scoped to the caller');

  now += 1001; // the holder hung: its lease ran out
  assert.deepEqual(store.begin('ada', 'k', 'h1'), { outcome: 'execute' });
  assert.deepEqual(store.begin('ada', 'k', 'h1'), { outcome: 'in-flight' });
  const response = answer('PAY-1');
  store.complete('ada', 'k', response);
  assert.deepEqual(store.begin('ada', 'k', 'h1'), { outcome: 'replay', response });
  assert.deepEqual(store.begin('ada', 'k', 'h2'), { outcome: 'mismatch' });
  store.release('ada', 'k');
  assert.deepEqual(store.begin('ada', 'k', 'h1'), { outcome: 'replay', response }, 'release keeps a stored answer');

  store.release('alan', 'k');
  assert.deepEqual(store.begin('alan', 'k', 'h3'), { outcome: 'execute' }, 'a released key can run again');

  now += 3600 * 1000;
  assert.deepEqual(store.begin('ada', 'k', 'h2'), { outcome: 'execute' }, 'an expired key is forgotten');
  now += 3600 * 1000 + 1;
  assert.equal(store.purgeExpired(), 2);
  assert.deepEqual(store.size(), { records: 0, bytes: 0 });
});

test('a key and caller cannot be spelled as another pair', () => {
  const store = openIdempotencyStore({ ttlSeconds: 60, leaseMs: 1000, maxBytes: MB });
  assert.equal(store.begin('a:b', 'c', 'h').outcome, 'execute');
  assert.equal(store.begin('b', 'c:a', 'h').outcome, 'execute');
  assert.equal(store.begin('a', 'b:c', 'h').outcome, 'execute');
});

test('past its memory, the oldest answers go first; keys in flight stay', () => {
  const store = openIdempotencyStore({ ttlSeconds: 3600, leaseMs: 60_000, maxBytes: MB });
  assert.equal(store.begin('ada', 'running', 'h').outcome, 'execute');
  // About 100 KB per answer: ten fill the megabyte.
  for (let i = 0; i < 30; i++) {
    assert.equal(store.begin('ada', `k${i}`, 'h').outcome, 'execute');
    store.complete('ada', `k${i}`, answer(`PAY-${i}`, 50_000));
    assert.ok(store.size().bytes <= MB, `within the bound after answer ${i}: ${store.size().bytes}`);
  }
  assert.equal(store.begin('ada', 'k0', 'h').outcome, 'execute', 'the oldest answer was dropped: the back-end answers');
  assert.equal(store.begin('ada', 'k29', 'h').outcome, 'replay', 'the newest is kept');
  assert.equal(store.begin('ada', 'running', 'h').outcome, 'in-flight', 'a key in flight is never dropped');
  store.clear();
  assert.deepEqual(store.size(), { records: 0, bytes: 0 });
});

test('expired records are purged in bounded chunks, leaving live ones', async () => {
  let now = 1_000_000;
  const store = openIdempotencyStore({ ttlSeconds: 60, leaseMs: 1000, maxBytes: MB, now: () => now });
  for (let i = 0; i < PURGE_CHUNK * 2 + 7; i++) store.begin('ada', `old-${i}`, 'h');
  now += 61_000;
  store.begin('ada', 'live', 'h');
  assert.equal(store.purgeExpired(10), 10, 'one call drops at most its chunk');
  assert.equal(await purgeInChunks(store), PURGE_CHUNK * 2 + 7 - 10);
  assert.equal(store.purgeExpired(), 0);
  assert.deepEqual(store.begin('ada', 'live', 'h'), { outcome: 'in-flight' }, 'the live key is kept');
  store.close();
});

test('a key made anew after it expired is kept by purge and eviction until its own turn', () => {
  let now = 1_000_000;
  const store = openIdempotencyStore({ ttlSeconds: 60, leaseMs: 1000, maxBytes: MB, now: () => now });
  store.begin('ada', 'again', 'h1');
  store.complete('ada', 'again', answer('PAY-OLD'));
  store.begin('ada', 'other', 'h');
  now += 61_000;
  assert.equal(store.begin('ada', 'again', 'h2').outcome, 'execute', 'expired: made anew');
  store.complete('ada', 'again', answer('PAY-NEW'));
  assert.equal(store.purgeExpired(), 1, 'only "other" was due');
  assert.deepEqual(store.begin('ada', 'again', 'h2'), { outcome: 'replay', response: answer('PAY-NEW') });
  assert.equal(store.size().records, 1);
});

test('keys in flight beyond the bound: every one still runs once; answered, the store falls back within its bound', () => {
  const store = openIdempotencyStore({ ttlSeconds: 3600, leaseMs: 60_000, maxBytes: 8 * 1024 });
  for (let i = 0; i < 5000; i++) assert.equal(store.begin('ada', `k${i}`, 'h').outcome, 'execute');
  assert.equal(store.begin('ada', 'k0', 'h').outcome, 'in-flight', 'no key in flight is dropped');
  for (let i = 0; i < 5000; i++) store.complete('ada', `k${i}`, answer(`PAY-${i}`));
  assert.ok(store.size().bytes <= 8 * 1024, `${store.size().bytes} bytes`);
  assert.equal(store.begin('ada', 'k4999', 'h').outcome, 'replay', 'the newest answer is kept');
});
