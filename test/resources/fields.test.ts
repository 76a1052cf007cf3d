import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CUSTOMER_FIELDS } from '../../src/resources/customer.ts';
import { startApp } from '../helpers/app.ts';

const INTERNAL = ['riskRating', 'monthlyIncome', 'orderCreditLimit', 'currency'];

test('customer records are projected per role: agent all, customer without internal fields, partner id and name', async (t) => {
  const h = await startApp(t);
  const agent = (await h.request({ method: 'GET', url: '/v1/customers/1001', as: 'clerk' })).json();
  assert.deepEqual(
    {
      riskRating: agent.riskRating,
      monthlyIncome: agent.monthlyIncome,
      orderCreditLimit: agent.orderCreditLimit,
      currency: agent.currency,
    },
    { riskRating: 'A', monthlyIncome: 6000, orderCreditLimit: 5000, currency: 'EUR' },
  );
  assert.deepEqual(
    Object.keys(agent).sort(),
    Object.keys(agent)
      .filter((k) => (CUSTOMER_FIELDS.agent as readonly string[]).includes(k))
      .sort(),
  );

  const own = await h.request({ method: 'GET', url: '/v1/customers/1001', as: 'ada' });
  assert.equal(own.statusCode, 200);
  assert.equal(own.json().customerId, '1001');
  for (const field of INTERNAL) assert.equal(field in own.json(), false, `a customer received ${field}`);
  assert.equal(own.json().email, agent.email);

  const partner = await h.request({ method: 'GET', url: '/v1/customers/1001', as: 'acme-shop' });
  assert.deepEqual(partner.json(), { customerId: '1001', name: 'Ada Lovelace' });

  // the same projection on writes: a customer's PATCH answer carries no internal fields
  const patched = await h.request({
    method: 'PATCH',
    url: '/v1/customers/1001',
    as: 'ada',
    body: { phone: '+44 20 7946 0018' },
    headers: { 'content-type': 'application/merge-patch+json' },
  });
  assert.equal(patched.statusCode, 200);
  for (const field of INTERNAL)
    assert.equal(field in patched.json(), false, `a customer's PATCH answer carried ${field}`);
  // and internal fields cannot be written by anyone (mass assignment): unknown to the patch schema
  for (const field of INTERNAL) {
    const res = await h.request({
      method: 'PATCH',
      url: '/v1/customers/1001',
      as: 'clerk',
      body: { [field]: 'B' },
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    assert.equal(res.statusCode, 400, field);
  }
  assert.equal((await h.request({ method: 'GET', url: '/v1/customers/1001', as: 'clerk' })).json().riskRating, 'A');
});

test('OpenAPI marks the fields some roles do not receive', async (t) => {
  const h = await startApp(t);
  const doc = (await h.request({ method: 'GET', url: '/openapi.json' })).json();
  const op = doc.paths['/v1/customers/{customerId}'].get;
  const schema = op.responses['200'].content['application/json'].schema;
  const props = schema.properties ?? doc.components?.schemas?.[schema.$ref?.split('/').pop()]?.properties;
  assert.deepEqual(props.riskRating['x-roles'], ['agent']);
  assert.deepEqual(props.monthlyIncome['x-roles'], ['agent']);
  assert.equal(props.name['x-roles'], undefined);
});

test('every resource has one field list that covers exactly its response schema; partners get no balance, payment or loan fields', async () => {
  const { projectFields } = await import('../../src/resources/fields.ts');
  const { Customer, CUSTOMER_FIELDS } = await import('../../src/resources/customer.ts');
  const { Order, ORDER_FIELDS } = await import('../../src/resources/order.ts');
  const { Balance, BALANCE_FIELDS } = await import('../../src/resources/account.ts');
  const { Payment, PAYMENT_FIELDS } = await import('../../src/resources/payment.ts');
  const { LoanDecision, LOAN_FIELDS } = await import('../../src/resources/loan.ts');
  const schemas = { customer: Customer, order: Order, balance: Balance, payment: Payment, loan: LoanDecision };
  const RESOURCE_FIELDS = {
    customer: CUSTOMER_FIELDS,
    order: ORDER_FIELDS,
    balance: BALANCE_FIELDS,
    payment: PAYMENT_FIELDS,
    loan: LOAN_FIELDS,
  };
  for (const [resource, lists] of Object.entries(RESOURCE_FIELDS)) {
    const props = Object.keys(schemas[resource as keyof typeof schemas].properties).sort();
    // agents see every field: a field added to a schema without a decision here fails
    assert.deepEqual([...lists.agent].sort(), props, `${resource}: agent list vs schema`);
    for (const [role, list] of Object.entries(lists)) {
      for (const field of list) assert.ok(props.includes(field), `${resource}.${role} lists unknown field ${field}`);
    }
  }
  for (const resource of ['balance', 'payment', 'loan'] as const)
    assert.deepEqual(RESOURCE_FIELDS[resource].partner, [], resource);
  // a role without a list, or with an empty one, receives nothing — and inherited keys are never copied
  assert.deepEqual(projectFields({ account: 'X', balance: 1 }, RESOURCE_FIELDS.balance, 'partner'), {});
  assert.deepEqual(projectFields({ account: 'X' }, RESOURCE_FIELDS.balance, undefined), {});
  assert.deepEqual(projectFields(Object.create({ name: 'inherited' }), RESOURCE_FIELDS.customer, 'agent'), {});
});

test('orders, payments and loans reach their allowed roles whole through the projection', async (t) => {
  const h = await startApp(t);
  const order = await h.request({
    method: 'POST',
    url: '/v1/orders',
    as: 'acme-shop',
    body: { customerId: '1001', productId: 'P-100', quantity: 1 },
  });
  assert.equal(order.statusCode, 201, order.body);
  for (const field of [
    'orderId',
    'status',
    'customerId',
    'productId',
    'quantity',
    'amount',
    'currency',
    'createdAt',
    'updatedAt',
  ]) {
    assert.ok(field in order.json(), `partner's order lacks ${field}`);
  }
  const read = await h.request({ method: 'GET', url: `/v1/orders/${order.json().orderId}`, as: 'ada' });
  assert.equal(read.statusCode, 200);
  assert.deepEqual(Object.keys(read.json()).sort(), Object.keys(order.json()).sort());
});
