/**
 * The order credit limit is in the customer's currency (customers.currency). Only orders in that currency
 * count against it, and an order in another currency is refused, since the back-end has no exchange rates
 * to weigh it against the limit.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertProblem } from '../helpers/assert-shape.ts';
import { startApp, type TestApp } from '../helpers/app.ts';
import { queryStore } from '../helpers/backend-store.ts';

/** A product priced in US dollars (the demo products are all in euros). */
async function addDollarProduct(h: TestApp): Promise<void> {
  await queryStore(
    h,
    "INSERT INTO products (product_id, name, unit_price, currency, stock) VALUES ('P-900', 'Desk', 2000, 'USD', 50)",
  );
}

const stock = async (h: TestApp, productId: string) =>
  Number((await queryStore(h, 'SELECT stock FROM products WHERE product_id = ?', productId))[0]!['stock']);

test('an order in another currency than the credit limit is REJECTED with CURRENCY_NOT_SUPPORTED; nothing is reserved', async (t) => {
  const h = await startApp(t);
  await addDollarProduct(h);
  const res = await h.request({
    method: 'POST',
    url: '/v1/orders',
    as: 'ada',
    body: { customerId: '1001', productId: 'P-900', quantity: 1 },
  });
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(res.json().status, 'REJECTED');
  assert.equal(res.json().reason, 'CURRENCY_NOT_SUPPORTED');
  assert.equal(res.json().currency, 'USD');
  assert.equal(await stock(h, 'P-900'), 50);

  // Nor can a confirmed euro order be changed into a dollar one.
  const eur = await h.request({
    method: 'POST',
    url: '/v1/orders',
    as: 'ada',
    body: { customerId: '1001', productId: 'P-100', quantity: 1 },
  });
  assert.equal(eur.statusCode, 201);
  const put = await h.request({
    method: 'PUT',
    url: `/v1/orders/${eur.json().orderId}`,
    as: 'ada',
    body: { productId: 'P-900', quantity: 1 },
    headers: { 'if-match': '"1"' },
  });
  assert.equal(assertProblem(put, 422, 'BUSINESS_RULE_VIOLATION')['reason'], 'CURRENCY_NOT_SUPPORTED');
  const read = await h.request({ method: 'GET', url: `/v1/orders/${eur.json().orderId}`, as: 'ada' });
  assert.deepEqual([read.json().productId, read.json().currency], ['P-100', 'EUR']);
  assert.equal(await stock(h, 'P-900'), 50);
});

test('orders in another currency do not count against the limit in the customer currency', async (t) => {
  const h = await startApp(t);
  // Alan's limit is 1000.00 EUR. An open order in dollars (taken before the rule, say) is not euros.
  await queryStore(
    h,
    `INSERT INTO orders (order_id, status, customer_id, product_id, quantity, amount, currency, created_by, correlation_id, created_at, updated_at)
    VALUES ('ORD-00000000000000D1', 'CONFIRMED', '1002', 'P-900', 45, 90000, 'USD', 'alan', 'test', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')`,
  );
  const within = await h.request({
    method: 'POST',
    url: '/v1/orders',
    as: 'alan',
    body: { customerId: '1002', productId: 'P-100', quantity: 3 },
  });
  assert.equal(within.statusCode, 201, within.body);
  assert.equal(within.json().status, 'CONFIRMED');
  assert.equal(within.json().amount, 149.7);

  // Euros still add up: 149.70 + 18 × 49.90 = 1047.90 > 1000.00.
  const over = await h.request({
    method: 'POST',
    url: '/v1/orders',
    as: 'alan',
    body: { customerId: '1002', productId: 'P-100', quantity: 18 },
  });
  assert.equal(over.statusCode, 200);
  assert.equal(over.json().reason, 'CREDIT_LIMIT_EXCEEDED');
  const put = await h.request({
    method: 'PUT',
    url: `/v1/orders/${within.json().orderId}`,
    as: 'alan',
    body: { productId: 'P-100', quantity: 17 },
    headers: { 'if-match': '"1"' },
  });
  assert.equal(put.statusCode, 200, put.body);
  assert.equal(put.json().amount, 848.3);
});
