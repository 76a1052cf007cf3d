/**
 * A partner reaches only its own customers: those it onboarded (POST /v1/customers) and those linked to it
 * (partner_customers; the demo data links acme-shop to 1001). Every other customer is "not found" to it:
 * reading the record, ordering against the customer's credit limit, or filtering the order list by it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ROLE_SCOPES } from '../../src/auth/roles.ts';
import { assertProblem } from '../helpers/assert-shape.ts';
import { startApp, type TestApp } from '../helpers/app.ts';
import { queryStore } from '../helpers/backend-store.ts';

const order = (h: TestApp, customerId: string, as: string | { token: string }) =>
  h.request({
    method: 'POST',
    url: '/v1/orders',
    body: { customerId, productId: 'P-100', quantity: 1 },
    ...(typeof as === 'string' ? { as } : as),
  });

async function orderCount(h: TestApp, customerId: string): Promise<number> {
  return Number((await queryStore(h, 'SELECT COUNT(*) AS n FROM orders WHERE customer_id = ?', customerId))[0]!['n']);
}

test('a partner reads and orders for its linked customer only; others are 404 and nothing is stored', async (t) => {
  const h = await startApp(t);
  const linked = await h.request({ method: 'GET', url: '/v1/customers/1001', as: 'acme-shop' });
  assert.equal(linked.statusCode, 200);
  // the partner's field list: basic data only
  assert.deepEqual(linked.json(), { customerId: '1001', name: 'Ada Lovelace' });

  for (const id of ['1002', '1003']) {
    const read = assertProblem(
      await h.request({ method: 'GET', url: `/v1/customers/${id}`, as: 'acme-shop' }),
      404,
      'NOT_FOUND',
    );
    assert.doesNotMatch(JSON.stringify(read), /Turing|Hopper/);
    const refused = assertProblem(await order(h, id, 'acme-shop'), 404, 'NOT_FOUND');
    assert.equal(refused['reason'], 'CUSTOMER_NOT_FOUND');
    assert.equal(await orderCount(h, id), 0, `an order for ${id} was stored`);
    // a filter naming the customer finds nothing of it
    const listed = await h.request({ method: 'GET', url: `/v1/orders?customerId=${id}`, as: 'acme-shop' });
    assert.equal(listed.statusCode, 200);
    assert.deepEqual(listed.json().items, []);
  }
  // An unknown customer looks exactly like an unrelated one.
  const unknown = assertProblem(await order(h, '9999', 'acme-shop'), 404, 'NOT_FOUND');
  const unrelated = assertProblem(await order(h, '1002', 'acme-shop'), 404, 'NOT_FOUND');
  assert.deepEqual([unknown['title'], unknown['reason']], [unrelated['title'], unrelated['reason']]);

  const placed = await order(h, '1001', 'acme-shop');
  assert.equal(placed.statusCode, 201, placed.body);
  assert.equal(placed.json().customerId, '1001');
  assert.equal(await orderCount(h, '1001'), 1);
  const mine = await h.request({ method: 'GET', url: '/v1/orders?customerId=1001', as: 'acme-shop' });
  assert.deepEqual(
    mine.json().items.map((o: { orderId: string }) => o.orderId),
    [placed.json().orderId],
  );

  // Staff and the customers themselves are unaffected.
  assert.equal((await h.request({ method: 'GET', url: '/v1/customers/1002', as: 'clerk' })).statusCode, 200);
  assert.equal((await order(h, '1002', 'alan')).statusCode, 201);
});

test('a customer a partner onboards is its own: readable and orderable by it, not by another partner', async (t) => {
  const h = await startApp(t);
  const created = await h.request({
    method: 'POST',
    url: '/v1/customers',
    as: 'acme-shop',
    body: { name: 'Mary Jackson', email: 'mary@example.com' },
  });
  assert.equal(created.statusCode, 201, created.body);
  const id = created.json().customerId as string;
  const read = await h.request({ method: 'GET', url: `/v1/customers/${id}`, as: 'acme-shop' });
  assert.equal(read.statusCode, 200);
  assert.deepEqual(read.json(), { customerId: id, name: 'Mary Jackson' });
  assert.equal((await order(h, id, 'acme-shop')).statusCode, 201);

  // Another partner (a client of its own) reaches neither this customer nor the demo ones.
  const other = {
    token: await h.app.devIssuer.sign({
      subject: 'globex-shop',
      role: 'partner',
      clientId: 'globex-shop',
      scopes: ROLE_SCOPES.partner,
    }),
  };
  for (const customerId of [id, '1001']) {
    assertProblem(await h.request({ method: 'GET', url: `/v1/customers/${customerId}`, ...other }), 404, 'NOT_FOUND');
    assertProblem(await order(h, customerId, other), 404, 'NOT_FOUND');
  }
  assert.equal(await orderCount(h, id), 1);
  // ... and its own onboarded customer is its own.
  const theirs = await h.request({
    method: 'POST',
    url: '/v1/customers',
    ...other,
    body: { name: 'Dorothy Vaughan', email: 'dorothy@example.com' },
  });
  assert.equal(theirs.statusCode, 201, theirs.body);
  assert.equal((await order(h, theirs.json().customerId, other)).statusCode, 201);
  assertProblem(
    await h.request({ method: 'GET', url: `/v1/customers/${theirs.json().customerId}`, as: 'acme-shop' }),
    404,
    'NOT_FOUND',
  );
});
