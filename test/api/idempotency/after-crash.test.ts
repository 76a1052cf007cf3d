/**
 * Idempotency when the API layer has forgotten a key: its records are memory only, so a restart (or a crash, or the
 * cache's bound) leaves the back-end, which keeps the key with the payment, to answer a retry.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { requestFingerprint } from '../../../src/api/plugins/idempotency.ts';
import type { EmbeddedIdempotencyStore } from '../../../src/api/idempotency/store.ts';
import { assertProblem } from '../../helpers/assert-shape.ts';
import { startApp } from '../../helpers/app.ts';
import { queryStore } from '../../helpers/backend-store.ts';

const BODY = { debtorAccount: '1001-01', creditorAccount: '1002-01', amount: 40, currency: 'EUR' };

test('a key held by a hung request answers 409 until its lease runs out, then runs', async (t) => {
  // A lease long enough that a loaded machine still sends the first retry within it.
  const h = await startApp(t, { IDEMPOTENCY_LEASE_MS: '3000' }, { singleInstance: true });
  // A request on this instance took the key and never finished.
  const held = await h.app.idempotencyStore.begin('ada', 'held', requestFingerprint('POST', '/v1/payments', {}, BODY));
  assert.equal(held.outcome, 'execute');

  const send = () =>
    h.request({ method: 'POST', url: '/v1/payments', as: 'ada', body: BODY, headers: { 'idempotency-key': 'held' } });
  assertProblem(await send(), 409, 'IDEMPOTENCY_IN_PROGRESS');
  await new Promise((r) => setTimeout(r, 3050));
  const res = await send();
  assert.equal(res.statusCode, 201);
  assert.equal(res.json().status, 'COMPLETED');
});

test('the API forgot the answer after the payment committed: the retry finds it, money moves once', async (t) => {
  const h = await startApp(t, {}, { singleInstance: true });
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
  // As if the process died between the back-end's commit and the response.
  await h.app.idempotencyStore.clear();

  const retry = await send();
  assert.equal(retry.statusCode, 201);
  assert.equal(retry.headers['idempotent-replayed'], 'true', 'the back-end says it answered the key again');
  assert.equal(retry.json().paymentId, first.json().paymentId, 'the back-end returned the original payment');
  assert.deepEqual(retry.json(), first.json());
  const balance = await h.request({ method: 'GET', url: '/v1/accounts/1001-01/balance', as: 'ada' });
  assert.equal(balance.json().balance, 2460);
});

test('after a restart of the API, a retry finds its payment, and the key stays bound to its request', async (t) => {
  const h = await startApp(t, {}, { singleInstance: true });
  const send = (body: typeof BODY) =>
    h.request({ method: 'POST', url: '/v1/payments', as: 'ada', body, headers: { 'idempotency-key': 'restart-1' } });
  const first = await send(BODY);
  assert.equal(first.statusCode, 201);
  assert.equal((await send(BODY)).headers['idempotent-replayed'], 'true', 'replayed before the restart');

  await h.restart();
  const retry = await send(BODY);
  assert.equal(retry.statusCode, 201);
  assert.equal(retry.headers['idempotent-replayed'], 'true', 'answered again by the back-end');
  assert.deepEqual(retry.json(), first.json());
  assert.equal(retry.headers['location'], first.headers['location']);
  assertProblem(await send({ ...BODY, amount: 41 }), 422, 'IDEMPOTENCY_KEY_REUSED');

  const payments = await queryStore(h, "SELECT payment_id FROM payments WHERE idempotency_key = 'restart-1'");
  assert.equal(payments.length, 1);
  const balance = await h.request({ method: 'GET', url: '/v1/accounts/1001-01/balance', as: 'ada' });
  assert.equal(balance.json().balance, 2460);
});

test('an answered payment leaves no record in the API layer; the back-end answers its retries, and a refusal is replayed here', async (t) => {
  const h = await startApp(t, {}, { singleInstance: true });
  const store = h.app.idempotencyStore;
  const records = () => ('size' in store ? (store as EmbeddedIdempotencyStore).size().records : null);
  const send = (body: Record<string, unknown>, key: string) =>
    h.request({ method: 'POST', url: '/v1/payments', as: 'ada', body, headers: { 'idempotency-key': key } });

  const first = await send(BODY, 'kept-below');
  assert.equal(first.statusCode, 201, first.body);
  assert.equal(first.headers['idempotent-replayed'], undefined);
  if (records() !== null) assert.equal(records(), 0, 'nothing of the answered payment is kept by the API');
  // Another request under the key is refused by the back-end, and that refusal does not take the key over.
  assertProblem(await send({ ...BODY, amount: 41 }, 'kept-below'), 422, 'IDEMPOTENCY_KEY_REUSED');
  const again = await send(BODY, 'kept-below');
  assert.equal(again.statusCode, 201, again.body);
  assert.equal(again.headers['idempotent-replayed'], 'true');
  assert.deepEqual(again.json(), first.json());

  // A refusal leaves nothing in the back-end: the API keeps it, and answers the retry without running it again.
  const refused = { ...BODY, debtorAccount: '9999-01' };
  assertProblem(await send(refused, 'refused-here'), 404, 'NOT_FOUND');
  const retry = await send(refused, 'refused-here');
  // The first answer as it was, its request id included.
  assert.equal(retry.statusCode, 404);
  assert.equal(retry.json().code, 'NOT_FOUND');
  assert.equal(retry.headers['idempotent-replayed'], 'true');
  if (records() !== null) assert.equal(records(), 1);

  const balance = await h.request({ method: 'GET', url: '/v1/accounts/1001-01/balance', as: 'ada' });
  assert.equal(balance.json().balance, 2460, 'one payment of 40.00');
});
