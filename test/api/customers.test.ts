import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Customer } from '../../src/resources/customer.ts';
import { assertProblem, assertShape } from '../helpers/assert-shape.ts';
import { startApp } from '../helpers/app.ts';

test('GET /v1/customers/{id}: the requested customer, 404 when absent or another customer’s', async (t) => {
  const h = await startApp(t);
  const res = await h.request({ method: 'GET', url: '/v1/customers/1001', as: 'ada' });
  assert.equal(res.statusCode, 200);
  assertShape(Customer, res.json(), ['customerId', 'name', 'email', 'createdAt', 'updatedAt']);
  assert.equal(res.json().customerId, '1001');
  assert.equal(res.json().name, 'Ada Lovelace');
  assert.equal(res.json().email, 'ada@example.com');

  assertProblem(await h.request({ method: 'GET', url: '/v1/customers/1002', as: 'ada' }), 404, 'NOT_FOUND');
  assertProblem(await h.request({ method: 'GET', url: '/v1/customers/9999', as: 'clerk' }), 404, 'NOT_FOUND');
  assertProblem(await h.request({ method: 'GET', url: '/v1/customers/abc', as: 'clerk' }), 400, 'VALIDATION_FAILED');
  assertProblem(
    await h.request({ method: 'GET', url: '/v1/customers/12345678901', as: 'clerk' }),
    400,
    'VALIDATION_FAILED',
  );

  const staff = await h.request({ method: 'GET', url: '/v1/customers/1002', as: 'clerk' });
  assert.equal(staff.json().customerId, '1002');
  assert.equal(staff.json().name, 'Alan Turing');
  // A partner gets basic data only, of its own customers (acme-shop is linked to 1001 in the demo data).
  const partner = await h.request({ method: 'GET', url: '/v1/customers/1001', as: 'acme-shop' });
  assert.deepEqual(partner.json(), { customerId: '1001', name: 'Ada Lovelace' });
  assertProblem(await h.request({ method: 'GET', url: '/v1/customers/1002', as: 'acme-shop' }), 404, 'NOT_FOUND');
});

test('POST /v1/customers registers: 201 with Location; 409 for a registered e-mail; 400 for bad input', async (t) => {
  const h = await startApp(t);
  const body = {
    name: 'Katherine Johnson',
    email: 'Katherine@Example.com',
    phone: '+1 555 0100',
    dateOfBirth: '1918-08-26',
    address: { line1: '1 Langley Blvd', postalCode: '23681', city: 'Hampton', country: 'US' },
  };
  const res = await h.request({ method: 'POST', url: '/v1/customers', as: 'clerk', body });
  assert.equal(res.statusCode, 201);
  const c = res.json();
  // an agent receives the internal fields too (src/resources/customer.ts)
  assertShape(Customer, c, [
    'customerId',
    'name',
    'email',
    'phone',
    'dateOfBirth',
    'address',
    'riskRating',
    'monthlyIncome',
    'orderCreditLimit',
    'currency',
    'createdAt',
    'updatedAt',
  ]);
  assert.equal(c.customerId, '1004');
  assert.equal(c.name, body.name);
  assert.deepEqual(c.address, body.address);
  assert.equal(res.headers['location'], '/v1/customers/1004');
  const read = await h.request({ method: 'GET', url: '/v1/customers/1004', as: 'clerk' });
  assert.deepEqual(read.json(), c);

  const dup = await h.request({
    method: 'POST',
    url: '/v1/customers',
    as: 'clerk',
    body: { name: 'Someone', email: 'katherine@example.com' },
  });
  assert.equal(assertProblem(dup, 409, 'CONFLICT')['reason'], 'EMAIL_ALREADY_REGISTERED');

  const invalid = [
    { email: 'a@example.com' },
    { name: 'A', email: 'not-an-email' },
    { name: '', email: 'b@example.com' },
    { name: 'A', email: 'c@example.com', dateOfBirth: '1990-02-30x' },
    { name: 'A', email: 'd@example.com', customerId: '7' },
    { name: 'A', email: 'e@example.com', riskRating: 'A' },
    { name: 'A', email: 'f@example.com', address: { line1: 'x' } },
    { name: 'A'.repeat(71), email: 'g@example.com' },
  ];
  for (const b of invalid)
    assertProblem(
      await h.request({ method: 'POST', url: '/v1/customers', as: 'clerk', body: b }),
      400,
      'VALIDATION_FAILED',
    );
  assert.equal((await h.request({ method: 'GET', url: '/v1/customers/1005', as: 'clerk' })).statusCode, 404);
});

test('PATCH /v1/customers/{id} applies a JSON merge patch', async (t) => {
  const h = await startApp(t);
  const url = '/v1/customers/1001';
  const set = await h.request({
    method: 'PATCH',
    url,
    as: 'ada',
    body: {
      phone: '+44 20 7946 0018',
      address: { line1: '12 St James Sq', postalCode: 'SW1Y 4JH', city: 'London', country: 'GB' },
    },
    headers: { 'content-type': 'application/merge-patch+json' },
  });
  assert.equal(set.statusCode, 200);
  assert.equal(set.json().phone, '+44 20 7946 0018');
  assert.equal(set.json().address.city, 'London');
  assert.equal(set.json().name, 'Ada Lovelace');

  const partial = await h.request({
    method: 'PATCH',
    url,
    as: 'ada',
    body: { address: { city: 'Marylebone' }, phone: null },
  });
  assert.equal(partial.statusCode, 200);
  assert.equal(partial.json().phone, undefined);
  assert.deepEqual(partial.json().address, {
    line1: '12 St James Sq',
    postalCode: 'SW1Y 4JH',
    city: 'Marylebone',
    country: 'GB',
  });

  const read = await h.request({ method: 'GET', url, as: 'ada' });
  assert.deepEqual(read.json(), partial.json());

  assertProblem(await h.request({ method: 'PATCH', url, as: 'ada', body: { name: null } }), 400, 'VALIDATION_FAILED');
  // The merge-patch media type belongs to PATCH only.
  const wrongType = await h.request({
    method: 'POST',
    url: '/v1/customers',
    as: 'clerk',
    body: { name: 'X', email: 'x@example.com' },
    headers: { 'content-type': 'application/merge-patch+json' },
  });
  assertProblem(wrongType, 415, 'UNSUPPORTED_MEDIA_TYPE');
  assertProblem(
    await h.request({ method: 'PATCH', url, as: 'ada', body: { customerId: '2' } }),
    400,
    'VALIDATION_FAILED',
  );
  assertProblem(
    await h.request({ method: 'PATCH', url, as: 'ada', body: { email: 'alan@example.com' } }),
    409,
    'CONFLICT',
  );
  assertProblem(
    await h.request({ method: 'PATCH', url: '/v1/customers/1002', as: 'ada', body: { name: 'Mallory' } }),
    404,
    'NOT_FOUND',
  );
  assertProblem(
    await h.request({ method: 'PATCH', url: '/v1/customers/9999', as: 'clerk', body: { name: 'Nobody' } }),
    404,
    'NOT_FOUND',
  );
  assert.equal((await h.request({ method: 'GET', url: '/v1/customers/1002', as: 'clerk' })).json().name, 'Alan Turing');
});
