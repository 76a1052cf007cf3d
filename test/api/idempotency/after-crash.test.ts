/** Idempotency across a crash of the API process, simulated on the real stores. */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import { openIdempotencyStore } from '../../../src/api/idempotency/store.ts';
import { requestFingerprint } from '../../../src/api/plugins/idempotency.ts';
import { assertProblem } from '../../helpers/assert-shape.ts';
import { startApp } from '../../helpers/app.ts';

const BODY = { debtorAccount: '1001-01', creditorAccount: '1002-01', amount: 40, currency: 'EUR' };

test('a key held by a crashed request answers 409 until its lease runs out, then runs', async (t) => {
  // A lease long enough that a loaded machine still sends the first retry within it.
  const h = await startApp(t, { IDEMPOTENCY_LEASE_MS: '3000' }, { singleInstance: true });
  // Another process took the key and died before answering.
  const other = openIdempotencyStore(join(h.dataDir, 'api.sqlite'), { ttlSeconds: 3600, leaseMs: 3000 });
  assert.equal(other.begin('ada', 'held', requestFingerprint('POST', '/v1/payments', {}, BODY)).outcome, 'execute');
  other.close();

  const send = () =>
    h.request({ method: 'POST', url: '/v1/payments', as: 'ada', body: BODY, headers: { 'idempotency-key': 'held' } });
  assertProblem(await send(), 409, 'IDEMPOTENCY_IN_PROGRESS');
  await new Promise((r) => setTimeout(r, 3050));
  const res = await send();
  assert.equal(res.statusCode, 201);
  assert.equal(res.json().status, 'COMPLETED');
});

test('crash after the payment committed but before the response was stored: the retry finds it, money moves once', async (t) => {
  const h = await startApp(t, { IDEMPOTENCY_LEASE_MS: '100' }, { singleInstance: true });
  const send = () =>
    h.request({
      method: 'POST',
      url: '/v1/payments',
      as: 'ada',
      body: BODY,
      headers: { 'idempotency-key': 'lost-answer' },
    });
  const first = await send();
  assert.equal(first.statusCode, 201);
  // Make the API layer forget the answer, as if the process died between the back-end commit and the response
  // (after the turn in which the store commits its writes).
  await new Promise((resolve) => setImmediate(resolve));
  const db = new DatabaseSync(join(h.dataDir, 'api.sqlite'));
  db.prepare("UPDATE idempotency_records SET state = 'IN_FLIGHT', response_body = NULL, locked_until = 0").run();
  db.close();

  const retry = await send();
  assert.equal(retry.statusCode, 201);
  assert.equal(retry.headers['idempotent-replayed'], undefined, 'executed again at the API layer');
  assert.equal(retry.json().paymentId, first.json().paymentId, 'the back-end returned the original payment');
  const balance = await h.request({ method: 'GET', url: '/v1/accounts/1001-01/balance', as: 'ada' });
  assert.equal(balance.json().balance, 2460);
});
