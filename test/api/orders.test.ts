import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Order, OrderList } from '../../src/resources/order.ts';
import { assertProblem, assertShape } from '../helpers/assert-shape.ts';
import { startApp, type TestApp } from '../helpers/app.ts';

const ORDER_KEYS = [
  'orderId',
  'status',
  'customerId',
  'productId',
  'quantity',
  'amount',
  'currency',
  'createdAt',
  'updatedAt',
];

async function createOrder(h: TestApp, body: Record<string, unknown>, as = 'ada') {
  return h.request({ method: 'POST', url: '/v1/orders', as, body });
}

test('POST /v1/orders confirms an order: 201, Location, amount = price × quantity, stock reserved', async (t) => {
  const h = await startApp(t);
  const res = await createOrder(h, { customerId: '1001', productId: 'P-100', quantity: 3 });
  assert.equal(res.statusCode, 201);
  const order = res.json();
  assertShape(Order, order, ORDER_KEYS);
  assert.equal(order.status, 'CONFIRMED');
  assert.equal(order.customerId, '1001');
  assert.equal(order.productId, 'P-100');
  assert.equal(order.quantity, 3);
  assert.equal(order.amount, 149.7);
  assert.equal(order.currency, 'EUR');
  assert.equal(res.headers['location'], `/v1/orders/${order.orderId}`);

  const read = await h.request({ method: 'GET', url: res.headers['location'] as string, as: 'ada' });
  assert.equal(read.statusCode, 200);
  assert.deepEqual(read.json(), order);
  assert.equal(read.headers['etag'], '"1"');
});

test('quantity bounds: 1 and 100 accepted; 0, -1, 101, "5", 1.5 rejected with 400 naming /quantity', async (t) => {
  const h = await startApp(t);
  // 100 keyboards (4,990.00) fit Ada's 5,000.00 limit only alone: cancel before ordering 1.
  for (const quantity of [100, 1]) {
    const res = await createOrder(h, { customerId: '1001', productId: 'P-100', quantity });
    assert.equal(res.statusCode, 201, `quantity ${quantity}`);
    assert.equal(res.json().quantity, quantity);
    assert.equal(res.json().status, 'CONFIRMED');
    await h.request({ method: 'DELETE', url: `/v1/orders/${res.json().orderId}`, as: 'ada' });
  }
  for (const quantity of [0, -1, 101, '5', 1.5, null]) {
    const res = await createOrder(h, { customerId: '1001', productId: 'P-100', quantity });
    const problem = assertProblem(res, 400, 'VALIDATION_FAILED');
    const errors = problem['errors'] as Array<{ pointer: string; in: string }>;
    assert.ok(
      errors.some((e) => e.pointer === '/quantity' && e.in === 'body'),
      `quantity ${JSON.stringify(quantity)}`,
    );
  }
});

test('missing field, unknown field, malformed JSON, empty body → 400; non-JSON → 415; nothing stored', async (t) => {
  const h = await startApp(t);
  const missing = await createOrder(h, { customerId: '1001', quantity: 1 });
  assert.deepEqual(
    (assertProblem(missing, 400, 'VALIDATION_FAILED')['errors'] as Array<{ pointer: string }>).map((e) => e.pointer),
    ['/productId'],
  );

  const unknown = await createOrder(h, {
    customerId: '1001',
    productId: 'P-100',
    quantity: 1,
    status: 'CONFIRMED',
    price: 0,
  });
  const pointers = (assertProblem(unknown, 400, 'VALIDATION_FAILED')['errors'] as Array<{ pointer: string }>)
    .map((e) => e.pointer)
    .sort();
  assert.deepEqual(pointers, ['/price', '/status']);

  const json = { authorization: `Bearer ${await h.token('ada')}`, 'content-type': 'application/json' };
  const malformed = await h.app.inject({
    method: 'POST',
    url: '/v1/orders',
    headers: json,
    payload: '{"customerId": ',
  });
  assertProblem(malformed, 400, 'MALFORMED_REQUEST');
  const empty = await h.app.inject({ method: 'POST', url: '/v1/orders', headers: json, payload: '' });
  assertProblem(empty, 400, 'MALFORMED_REQUEST');
  const noBody = await h.app.inject({
    method: 'POST',
    url: '/v1/orders',
    headers: { authorization: json.authorization },
  });
  assertProblem(noBody, 400, 'VALIDATION_FAILED');
  const text = await h.app.inject({
    method: 'POST',
    url: '/v1/orders',
    headers: { ...json, 'content-type': 'text/plain' },
    payload: 'quantity=1',
  });
  assertProblem(text, 415, 'UNSUPPORTED_MEDIA_TYPE');
  const form = await h.app.inject({
    method: 'POST',
    url: '/v1/orders',
    headers: { ...json, 'content-type': 'application/x-www-form-urlencoded' },
    payload: 'a=1',
  });
  assertProblem(form, 415, 'UNSUPPORTED_MEDIA_TYPE');

  const list = await h.request({ method: 'GET', url: '/v1/orders', as: 'clerk' });
  assert.deepEqual(list.json().items, []);
});

test('business rejections come back 200 with status REJECTED and a reason', async (t) => {
  const h = await startApp(t);
  const cases = [
    { body: { customerId: '1001', productId: 'P-999', quantity: 1 }, reason: 'UNKNOWN_PRODUCT' },
    { body: { customerId: '1001', productId: 'P-300', quantity: 1 }, reason: 'OUT_OF_STOCK' },
    { body: { customerId: '1001', productId: 'P-200', quantity: 6 }, reason: 'OUT_OF_STOCK' },
    // Alan's order credit limit is 1,000.00; a laptop costs 1,899.00.
    { body: { customerId: '1002', productId: 'P-200', quantity: 1 }, reason: 'CREDIT_LIMIT_EXCEEDED', as: 'alan' },
  ];
  for (const c of cases) {
    const res = await createOrder(h, c.body, c.as);
    assert.equal(res.statusCode, 200, c.reason);
    const order = res.json();
    assertShape(Order, order, [...ORDER_KEYS, 'reason']);
    assert.equal(order.status, 'REJECTED');
    assert.equal(order.reason, c.reason);
    assert.equal(res.headers['location'], undefined);
    const read = await h.request({ method: 'GET', url: `/v1/orders/${order.orderId}`, as: c.as ?? 'ada' });
    assert.equal(read.json().status, 'REJECTED');
  }
});

test('credit limit counts confirmed open orders; cancelling releases stock and limit', async (t) => {
  const h = await startApp(t);
  // Ada: limit 5,000.00. Two laptops = 3,798.00; a third would make 5,697.00.
  const first = await createOrder(h, { customerId: '1001', productId: 'P-200', quantity: 2 });
  assert.equal(first.json().status, 'CONFIRMED');
  const third = await createOrder(h, { customerId: '1001', productId: 'P-200', quantity: 1 });
  assert.equal(third.json().status, 'REJECTED');
  assert.equal(third.json().reason, 'CREDIT_LIMIT_EXCEEDED');

  const cancel = await h.request({ method: 'DELETE', url: `/v1/orders/${first.json().orderId}`, as: 'ada' });
  assert.equal(cancel.statusCode, 200);
  assertShape(Order, cancel.json(), ORDER_KEYS);
  assert.equal(cancel.json().status, 'CANCELLED');
  assert.equal(cancel.json().orderId, first.json().orderId);
  const again = await h.request({ method: 'DELETE', url: `/v1/orders/${first.json().orderId}`, as: 'ada' });
  assert.equal(again.statusCode, 200);
  assert.deepEqual(again.json(), cancel.json());

  // Stock is back to 5: five laptops fit the stock but not the limit; two fit both.
  const two = await createOrder(h, { customerId: '1001', productId: 'P-200', quantity: 2 });
  assert.equal(two.json().status, 'CONFIRMED');
});

/** `If-Match: *`: change whatever the version (the tests below that are not about preconditions). */
const ANY = { 'if-match': '*' };

test('PUT /v1/orders/{id}: update, If-Match, 409 for cancelled or rejected, 422 business rule, 404', async (t) => {
  const h = await startApp(t);
  const created = (await createOrder(h, { customerId: '1001', productId: 'P-100', quantity: 1 })).json();
  const url = `/v1/orders/${created.orderId}`;

  const updated = await h.request({
    method: 'PUT',
    url,
    as: 'ada',
    body: { productId: 'P-100', quantity: 4 },
    headers: { 'if-match': '"1"' },
  });
  assert.equal(updated.statusCode, 200);
  assertShape(Order, updated.json(), ORDER_KEYS);
  assert.equal(updated.json().quantity, 4);
  assert.equal(updated.json().amount, 199.6);
  assert.equal(updated.headers['etag'], '"2"');

  const stale = await h.request({
    method: 'PUT',
    url,
    as: 'ada',
    body: { productId: 'P-100', quantity: 5 },
    headers: { 'if-match': '"1"' },
  });
  assertProblem(stale, 412, 'PRECONDITION_FAILED');

  const tooMuch = await h.request({
    method: 'PUT',
    url,
    as: 'ada',
    body: { productId: 'P-200', quantity: 6 },
    headers: ANY,
  });
  const rule = assertProblem(tooMuch, 422, 'BUSINESS_RULE_VIOLATION');
  assert.equal(rule['reason'], 'OUT_OF_STOCK');
  const unknownProduct = await h.request({
    method: 'PUT',
    url,
    as: 'ada',
    body: { productId: 'P-999', quantity: 1 },
    headers: ANY,
  });
  assert.equal(assertProblem(unknownProduct, 422, 'BUSINESS_RULE_VIOLATION')['reason'], 'UNKNOWN_PRODUCT');
  const unchanged = await h.request({ method: 'GET', url, as: 'ada' });
  assert.equal(unchanged.json().quantity, 4);
  assert.equal(unchanged.json().productId, 'P-100');

  const invalid = await h.request({
    method: 'PUT',
    url,
    as: 'ada',
    body: { productId: 'P-100', quantity: 0 },
    headers: ANY,
  });
  assertProblem(invalid, 400, 'VALIDATION_FAILED');
  const unknownField = await h.request({
    method: 'PUT',
    url,
    as: 'ada',
    body: { productId: 'P-100', quantity: 2, status: 'CANCELLED' },
    headers: ANY,
  });
  assertProblem(unknownField, 400, 'VALIDATION_FAILED');

  await h.request({ method: 'DELETE', url, as: 'ada' });
  const cancelled = await h.request({
    method: 'PUT',
    url,
    as: 'ada',
    body: { productId: 'P-100', quantity: 1 },
    headers: ANY,
  });
  assertProblem(cancelled, 409, 'CONFLICT');

  const rejected = (await createOrder(h, { customerId: '1001', productId: 'P-300', quantity: 1 })).json();
  const putRejected = await h.request({
    method: 'PUT',
    url: `/v1/orders/${rejected.orderId}`,
    as: 'ada',
    body: { productId: 'P-100', quantity: 1 },
    headers: ANY,
  });
  assertProblem(putRejected, 409, 'CONFLICT');
  const deleteRejected = await h.request({ method: 'DELETE', url: `/v1/orders/${rejected.orderId}`, as: 'ada' });
  assertProblem(deleteRejected, 409, 'CONFLICT');

  for (const method of ['GET', 'PUT', 'DELETE'] as const) {
    const res = await h.request({
      method,
      url: '/v1/orders/ORD-0000000000000000',
      as: 'ada',
      ...(method === 'PUT' ? { body: { productId: 'P-100', quantity: 1 }, headers: ANY } : {}),
    });
    assertProblem(res, 404, 'NOT_FOUND');
  }
  const malformedId = await h.request({ method: 'GET', url: '/v1/orders/not-an-id', as: 'ada' });
  assert.equal(
    (assertProblem(malformedId, 400, 'VALIDATION_FAILED')['errors'] as Array<{ in: string }>)[0]!.in,
    'path',
  );
});

test('GET /v1/orders lists only what the caller may see, with a cursor', async (t) => {
  const h = await startApp(t);
  for (let i = 0; i < 3; i++) await createOrder(h, { customerId: '1001', productId: 'P-100', quantity: 1 });
  await createOrder(h, { customerId: '1002', productId: 'P-100', quantity: 1 }, 'alan');
  // A partner orders for its own customers only: one it onboarded.
  const onboarded = await h.request({
    method: 'POST',
    url: '/v1/customers',
    as: 'acme-shop',
    body: { name: 'Mary Jackson', email: 'mary@example.com' },
  });
  assert.equal(
    (await createOrder(h, { customerId: onboarded.json().customerId, productId: 'P-100', quantity: 2 }, 'acme-shop'))
      .statusCode,
    201,
  );

  const ada = await h.request({ method: 'GET', url: '/v1/orders?limit=2', as: 'ada' });
  assert.equal(ada.statusCode, 200);
  assertShape(OrderList, ada.json());
  assert.equal(ada.json().items.length, 2);
  assert.ok(ada.json().items.every((o: { customerId: string }) => o.customerId === '1001'));
  const page2 = await h.request({
    method: 'GET',
    url: `/v1/orders?limit=2&cursor=${ada.json().nextCursor}`,
    as: 'ada',
  });
  assert.equal(page2.json().items.length, 1);
  assert.equal(page2.json().nextCursor, null);

  const adaAsksAlan = await h.request({ method: 'GET', url: '/v1/orders?customerId=1002', as: 'ada' });
  assert.deepEqual(adaAsksAlan.json().items, []);
  const shop = await h.request({ method: 'GET', url: '/v1/orders', as: 'acme-shop' });
  assert.deepEqual(
    shop.json().items.map((o: { quantity: number }) => o.quantity),
    [2],
  );
  const clerk = await h.request({ method: 'GET', url: '/v1/orders?customerId=1002&status=CONFIRMED', as: 'clerk' });
  assert.equal(clerk.json().items.length, 1);

  for (const query of [
    'limit=0',
    'limit=101',
    'limit=abc',
    'status=OPEN',
    'cursor=x',
    'cursor=1',
    'cursor=a%20b',
    'sort=asc',
  ]) {
    assertProblem(await h.request({ method: 'GET', url: `/v1/orders?${query}`, as: 'ada' }), 400, 'VALIDATION_FAILED');
  }
});

test('orders of another customer are 404; a partner sees only the orders it created', async (t) => {
  const h = await startApp(t);
  const adas = (await createOrder(h, { customerId: '1001', productId: 'P-100', quantity: 1 })).json();
  for (const as of ['alan', 'acme-shop']) {
    assertProblem(await h.request({ method: 'GET', url: `/v1/orders/${adas.orderId}`, as }), 404, 'NOT_FOUND');
    assertProblem(await h.request({ method: 'DELETE', url: `/v1/orders/${adas.orderId}`, as }), 404, 'NOT_FOUND');
    assertProblem(
      await h.request({
        method: 'PUT',
        url: `/v1/orders/${adas.orderId}`,
        as,
        body: { productId: 'P-100', quantity: 2 },
        headers: ANY,
      }),
      404,
      'NOT_FOUND',
    );
  }
  assert.equal((await h.request({ method: 'GET', url: `/v1/orders/${adas.orderId}`, as: 'clerk' })).statusCode, 200);
  assert.equal(
    (await h.request({ method: 'GET', url: `/v1/orders/${adas.orderId}`, as: 'ada' })).json().status,
    'CONFIRMED',
  );

  // A customer cannot order for someone else.
  assertProblem(await createOrder(h, { customerId: '1002', productId: 'P-100', quantity: 1 }, 'ada'), 404, 'NOT_FOUND');
  assertProblem(
    await createOrder(h, { customerId: '9999', productId: 'P-100', quantity: 1 }, 'clerk'),
    404,
    'NOT_FOUND',
  );
  const shopOrder = await createOrder(h, { customerId: '1001', productId: 'P-100', quantity: 1 }, 'acme-shop');
  assert.equal(shopOrder.statusCode, 201);
  assert.equal(
    (await h.request({ method: 'GET', url: `/v1/orders/${shopOrder.json().orderId}`, as: 'acme-shop' })).statusCode,
    200,
  );
});

test('conditional requests: If-Match is required and compared strongly, "0" matches nothing, If-None-Match answers 304', async (t) => {
  const h = await startApp(t);
  const created = (await createOrder(h, { customerId: '1001', productId: 'P-100', quantity: 1 })).json();
  const url = `/v1/orders/${created.orderId}`;
  const put = (headers: Record<string, string>, quantity: number) =>
    h.request({ method: 'PUT', url, as: 'ada', body: { productId: 'P-100', quantity }, headers });
  const quantityNow = async () => (await h.request({ method: 'GET', url, as: 'ada' })).json().quantity;

  const missing = assertProblem(await put({}, 2), 428, 'PRECONDITION_REQUIRED');
  assert.match(String(missing['detail']), /If-Match/);
  // A weak tag never matches If-Match (RFC 9110 §13.1.1), nor does a version the order never had.
  assertProblem(await put({ 'if-match': 'W/"1"' }, 2), 412, 'PRECONDITION_FAILED');
  assertProblem(await put({ 'if-match': '"0"' }, 2), 412, 'PRECONDITION_FAILED');
  assertProblem(await put({ 'if-match': '3' }, 2), 400, 'VALIDATION_FAILED');
  assert.equal(await quantityNow(), 1, 'nothing changed');

  const changed = await put({ 'if-match': 'W/"7", "1"' }, 2);
  assert.equal(changed.statusCode, 200);
  assert.equal(changed.headers['etag'], '"2"');
  assertProblem(await put({ 'if-match': '"1"' }, 3), 412, 'PRECONDITION_FAILED');
  const any = await put({ 'if-match': '*' }, 3);
  assert.equal(any.statusCode, 200);
  assert.equal(any.headers['etag'], '"3"');

  const notModified = await h.request({ method: 'GET', url, as: 'ada', headers: { 'if-none-match': '"3"' } });
  assert.equal(notModified.statusCode, 304);
  assert.equal(notModified.body, '');
  assert.equal(notModified.headers['etag'], '"3"');
  // Weak comparison for If-None-Match; an older copy gets the order in full.
  assert.equal(
    (await h.request({ method: 'GET', url, as: 'ada', headers: { 'if-none-match': 'W/"3"' } })).statusCode,
    304,
  );
  const stale = await h.request({ method: 'GET', url, as: 'ada', headers: { 'if-none-match': '"2"' } });
  assert.equal(stale.statusCode, 200);
  assert.equal(stale.json().quantity, 3);
  // Another customer's order is still 404, whatever the ETag.
  assertProblem(
    await h.request({ method: 'GET', url, as: 'alan', headers: { 'if-none-match': '"3"' } }),
    404,
    'NOT_FOUND',
  );
});
