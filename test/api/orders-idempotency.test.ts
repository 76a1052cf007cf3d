/**
 * The back-end's own idempotency of orders, once the API's idempotency record is gone (expired, dropped from its
 * memory, or lost in a restart): a key reused with another request is refused, never answered with the earlier order.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertProblem } from '../helpers/assert-shape.ts';
import { startApp, type TestApp } from '../helpers/app.ts';
import { queryStore } from '../helpers/backend-store.ts';

/** As a restart of the API, or the expiry of its record, makes it forget a key. */
async function forgetApiIdempotency(h: TestApp): Promise<void> {
  await h.app.idempotencyStore.clear();
}

test('an order key reused after the API record expired: another request is 422, the same one finds the order', async (t) => {
  // One instance: the API's idempotency records are in its memory, which the test clears.
  const h = await startApp(t, {}, { singleInstance: true });
  const send = (body: Record<string, unknown>) =>
    h.request({ method: 'POST', url: '/v1/orders', as: 'ada', body, headers: { 'idempotency-key': 'order-key-1' } });
  const request = { customerId: '1001', productId: 'P-100', quantity: 2 };
  const first = await send(request);
  assert.equal(first.statusCode, 201, first.body);
  await forgetApiIdempotency(h);

  for (const other of [
    { ...request, productId: 'P-200' },
    { ...request, quantity: 3 },
  ]) {
    const reused = assertProblem(await send(other), 422, 'IDEMPOTENCY_KEY_REUSED');
    assert.doesNotMatch(JSON.stringify(reused), /ORDCRT|ordc/);
    await forgetApiIdempotency(h);
  }
  const orders = await queryStore(h, 'SELECT order_id, product_id, quantity FROM orders');
  assert.deepEqual(
    orders,
    [{ order_id: first.json().orderId, product_id: 'P-100', quantity: 2 }],
    'no second order stored',
  );

  const again = await send(request);
  assert.equal(again.statusCode, 201);
  assert.deepEqual(again.json(), first.json(), 'the original order');
  assert.equal(again.headers['idempotent-replayed'], 'true', 'answered again by the back-end');

  // A later change of the order (PUT) does not make the original request a different one.
  const changed = await h.request({
    method: 'PUT',
    url: `/v1/orders/${first.json().orderId}`,
    as: 'ada',
    body: { productId: 'P-100', quantity: 5 },
    headers: { 'if-match': '"1"' },
  });
  assert.equal(changed.statusCode, 200, changed.body);
  await forgetApiIdempotency(h);
  const replay = await send(request);
  assert.equal(replay.statusCode, 201);
  assert.equal(replay.json().orderId, first.json().orderId);
  assert.equal(replay.json().quantity, 5, 'the order as it now is');
  assert.equal(replay.headers['idempotent-replayed'], 'true');
  assertProblem(await send({ ...request, quantity: 5 }), 422, 'IDEMPOTENCY_KEY_REUSED');
});
