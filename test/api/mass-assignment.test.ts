/**
 * Mass assignment (OWASP API3): read-only and unknown fields in request bodies are refused with 400 naming
 * the field, and nothing is stored. Bodies are never copied into stored data.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertProblem } from '../helpers/assert-shape.ts';
import { startApp, type TestApp } from '../helpers/app.ts';

async function state(h: TestApp, orderId: string): Promise<string> {
  const parts = await Promise.all([
    h.request({ method: 'GET', url: `/v1/orders/${orderId}`, as: 'clerk' }),
    h.request({ method: 'GET', url: '/v1/orders?customerId=1001&limit=100', as: 'clerk' }),
    h.request({ method: 'GET', url: '/v1/accounts/1001-01/balance', as: 'clerk' }),
    h.request({ method: 'GET', url: '/v1/customers/1001', as: 'clerk' }),
  ]);
  return JSON.stringify(parts.map((p) => ({ ...p.json(), asOf: undefined })));
}

test('read-only and unknown fields in bodies are refused with their JSON pointer, and nothing is stored', async (t) => {
  const h = await startApp(t);
  const order = (
    await h.request({
      method: 'POST',
      url: '/v1/orders',
      as: 'ada',
      body: { customerId: '1001', productId: 'P-100', quantity: 1 },
    })
  ).json();
  const before = await state(h, order.orderId);
  const merge = { 'content-type': 'application/merge-patch+json' };
  const cases: Array<[string, Parameters<TestApp['request']>[0], string]> = [
    [
      'order status on create',
      {
        method: 'POST',
        url: '/v1/orders',
        as: 'ada',
        body: { customerId: '1001', productId: 'P-100', quantity: 1, status: 'CONFIRMED' },
      },
      '/status',
    ],
    [
      'order amount on create',
      {
        method: 'POST',
        url: '/v1/orders',
        as: 'ada',
        body: { customerId: '1001', productId: 'P-100', quantity: 1, amount: 0.01 },
      },
      '/amount',
    ],
    [
      'orderId on create',
      {
        method: 'POST',
        url: '/v1/orders',
        as: 'ada',
        body: { customerId: '1001', productId: 'P-100', quantity: 1, orderId: 'ORD-1' },
      },
      '/orderId',
    ],
    [
      'status on update',
      {
        method: 'PUT',
        url: `/v1/orders/${order.orderId}`,
        as: 'ada',
        headers: { 'if-match': '*' },
        body: { productId: 'P-100', quantity: 1, status: 'CANCELLED' },
      },
      '/status',
    ],
    [
      'customerId on update',
      {
        method: 'PUT',
        url: `/v1/orders/${order.orderId}`,
        as: 'ada',
        headers: { 'if-match': '*' },
        body: { productId: 'P-100', quantity: 1, customerId: '1002' },
      },
      '/customerId',
    ],
    [
      'customerId in a customer patch',
      { method: 'PATCH', url: '/v1/customers/1001', as: 'ada', headers: merge, body: { customerId: '1002' } },
      '/customerId',
    ],
    [
      'createdAt in a customer patch',
      {
        method: 'PATCH',
        url: '/v1/customers/1001',
        as: 'ada',
        headers: merge,
        body: { createdAt: '2000-01-01T00:00:00Z' },
      },
      '/createdAt',
    ],
    [
      'risk rating in a customer patch',
      { method: 'PATCH', url: '/v1/customers/1001', as: 'ada', headers: merge, body: { riskRating: 'A' } },
      '/riskRating',
    ],
    [
      'balance in a payment',
      {
        method: 'POST',
        url: '/v1/payments',
        as: 'ada',
        headers: { 'idempotency-key': 'ma-1' },
        body: { debtorAccount: '1001-01', creditorAccount: '1002-01', amount: 1, currency: 'EUR', balance: 1000000 },
      },
      '/balance',
    ],
    [
      'status in a payment',
      {
        method: 'POST',
        url: '/v1/payments',
        as: 'ada',
        headers: { 'idempotency-key': 'ma-2' },
        body: { debtorAccount: '1001-01', creditorAccount: '1002-01', amount: 1, currency: 'EUR', status: 'COMPLETED' },
      },
      '/status',
    ],
    [
      'approvedAmount in a loan request',
      {
        method: 'POST',
        url: '/v1/loan-applications',
        as: 'ada',
        body: { customerId: '1001', amount: 1000, installments: 12, approvedAmount: 1000000 },
      },
      '/approvedAmount',
    ],
    [
      'a nested unknown field',
      {
        method: 'PATCH',
        url: '/v1/customers/1001',
        as: 'ada',
        headers: merge,
        body: { address: { line1: 'x', postalCode: '1', city: 'y', country: 'GB', owner: 'me' } },
      },
      '/address/owner',
    ],
  ];
  for (const [name, call, pointer] of cases) {
    const res = await h.request(call);
    assertProblem(res, 400, 'VALIDATION_FAILED');
    assert.ok(
      res.json().errors.some((e: { pointer: string }) => e.pointer === pointer),
      `${name}: ${res.body}`,
    );
  }
  assert.equal(await state(h, order.orderId), before, 'a refused body changed stored data');
  const orders = await h.request({ method: 'GET', url: '/v1/orders?customerId=1001&limit=100', as: 'ada' });
  assert.equal(orders.json().items.length, 1, 'an order was created from a refused body');
});

test('__proto__, constructor and prototype keys in any body → 400, no prototype pollution, nothing stored', async (t) => {
  const h = await startApp(t);
  const order = (
    await h.request({
      method: 'POST',
      url: '/v1/orders',
      as: 'ada',
      body: { customerId: '1001', productId: 'P-100', quantity: 1 },
    })
  ).json();
  const before = await state(h, order.orderId);
  const ada = `Bearer ${await h.token('ada')}`;
  const clerk = `Bearer ${await h.token('clerk')}`;
  const json = { 'content-type': 'application/json' };
  const merge = { 'content-type': 'application/merge-patch+json' };
  const base = '"customerId":"1001","productId":"P-100","quantity":1';
  const cases: Array<[string, string, string, Record<string, string>, string]> = [
    [
      'POST',
      '/v1/orders',
      `{${base},"__proto__":{"polluted":true}}`,
      { ...json, authorization: ada },
      'order with __proto__',
    ],
    [
      'POST',
      '/v1/orders',
      `{${base},"constructor":{"prototype":{"polluted":true}}}`,
      { ...json, authorization: ada },
      'order with constructor.prototype',
    ],
    [
      'POST',
      '/v1/orders',
      `{${base},"prototype":{"polluted":true}}`,
      { ...json, authorization: ada },
      'order with prototype',
    ],
    [
      'PUT',
      `/v1/orders/${order.orderId}`,
      '{"productId":"P-100","quantity":2,"__proto__":{"status":"CANCELLED"}}',
      { ...json, authorization: ada, 'if-match': '*' },
      'order update with __proto__',
    ],
    [
      'PATCH',
      '/v1/customers/1001',
      '{"__proto__":{"riskRating":"D","polluted":true}}',
      { ...merge, authorization: clerk },
      'customer patch with __proto__',
    ],
    [
      'PATCH',
      '/v1/customers/1001',
      '{"address":{"constructor":{"prototype":{"polluted":true}}}}',
      { ...merge, authorization: clerk },
      'nested constructor in a patch',
    ],
    [
      'POST',
      '/v1/loan-applications',
      '{"customerId":"1001","amount":1000,"installments":12,"__proto__":{"approvedAmount":1000000}}',
      { ...json, authorization: ada },
      'loan with __proto__',
    ],
  ];
  for (const [method, url, payload, headers, name] of cases) {
    const res = await h.app.inject({ method: method as 'POST', url, payload, headers });
    assert.equal(res.statusCode, 400, `${name}: ${res.body}`);
    assert.match(String(res.headers['content-type']), /^application\/problem\+json/, name);
    assert.ok(['MALFORMED_REQUEST', 'VALIDATION_FAILED'].includes(res.json().code), `${name}: ${res.body}`);
  }
  assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
  assert.equal(({} as Record<string, unknown>)['riskRating'], undefined);
  assert.equal(({} as Record<string, unknown>)['approvedAmount'], undefined);
  assert.equal(await state(h, order.orderId), before, 'a refused body changed stored data');
});

test('a __proto__ or constructor key, top-level or nested, → 400 VALIDATION_FAILED naming it; nothing polluted, nothing stored', async (t) => {
  const h = await startApp(t);
  const order = (
    await h.request({
      method: 'POST',
      url: '/v1/orders',
      as: 'ada',
      body: { customerId: '1001', productId: 'P-100', quantity: 1 },
    })
  ).json();
  const before = await state(h, order.orderId);
  const ada = `Bearer ${await h.token('ada')}`;
  const clerk = `Bearer ${await h.token('clerk')}`;
  const transfer = '"debtorAccount":"1001-01","creditorAccount":"1002-01","amount":10,"currency":"EUR"';
  const cases: Array<[string, string, string, Record<string, string>, string]> = [
    [
      'POST',
      '/v1/orders',
      '{"customerId":"1001","productId":"P-100","quantity":1,"__proto__":{"polluted":true}}',
      { authorization: ada },
      '/__proto__',
    ],
    [
      'POST',
      '/v1/orders',
      '{"__proto__":{"quantity":1},"customerId":"1001","productId":"P-100"}',
      { authorization: ada },
      '/__proto__',
    ],
    [
      'POST',
      '/v1/orders',
      '{"customerId":"1001","productId":"P-100","quantity":1,"constructor":{"prototype":{"polluted":true}}}',
      { authorization: ada },
      '/constructor',
    ],
    [
      'POST',
      '/v1/customers',
      '{"name":"Mallory","email":"m@example.com","address":{"line1":"x","postalCode":"1","city":"y","country":"GB","__proto__":{"polluted":true}}}',
      { authorization: clerk },
      '/address/__proto__',
    ],
    [
      'POST',
      '/v1/payments',
      `{${transfer},"reference":{"__proto__":{"polluted":true}}}`,
      { authorization: ada, 'idempotency-key': 'proto-pay-1' },
      '/reference/__proto__',
    ],
    [
      'PUT',
      `/v1/orders/${order.orderId}`,
      '{"productId":"P-100","quantity":2,"__proto__":{"status":"CANCELLED"}}',
      { authorization: ada, 'if-match': '*' },
      '/__proto__',
    ],
  ];
  for (const [method, url, payload, headers, pointer] of cases) {
    const res = await h.app.inject({
      method: method as 'POST',
      url,
      payload,
      headers: { 'content-type': 'application/json', ...headers },
    });
    const problem = assertProblem(res, 400, 'VALIDATION_FAILED');
    assert.deepEqual(
      problem['errors'],
      [{ pointer, in: 'body', detail: 'is not an accepted name' }],
      `${method} ${url}: ${res.body}`,
    );
  }
  assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
  assert.equal(Object.prototype.hasOwnProperty.call(Object.prototype, 'polluted'), false);
  assert.equal(await state(h, order.orderId), before, 'a refused body changed stored data');
  const orders = await h.request({ method: 'GET', url: '/v1/orders?customerId=1001&limit=100', as: 'ada' });
  assert.equal(orders.json().items.length, 1, 'an order was created from a refused body');
  assert.equal(
    (await h.request({ method: 'GET', url: '/v1/customers/1005', as: 'clerk' })).statusCode,
    404,
    'a customer was created from a refused body',
  );
});
