/**
 * Errors a person can act on: one entry per violation, at the value's pointer, naming what is allowed; every
 * 400 VALIDATION_FAILED lists its violations, the back-end's refusals included; a 415 names the media type
 * that arrived and the one expected.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertProblem } from '../helpers/assert-shape.ts';
import { startApp, type TestApp } from '../helpers/app.ts';
import { until } from '../../src/until.ts';

const EVENT_TYPES =
  'OrderConfirmed, OrderRejected, OrderUpdated, OrderCancelled, PaymentCompleted, PaymentRejected, ' +
  'LoanApproved, LoanRejected, CustomerCreated, CustomerUpdated, WebhookSubscriptionDisabled';

test('a value outside an enum or a range is one entry naming the allowed values', async (t) => {
  const h = await startApp(t);
  const list = await h.request({ method: 'GET', url: '/v1/orders?status=confirmed&limit=1000', as: 'clerk' });
  assert.deepEqual(assertProblem(list, 400, 'VALIDATION_FAILED')['errors'], [
    { pointer: '/status', in: 'query', detail: 'must be one of CONFIRMED, REJECTED, CANCELLED' },
    { pointer: '/limit', in: 'query', detail: 'must be between 1 and 100' },
  ]);
  for (const limit of ['0', '101', 'abc']) {
    const res = await h.request({ method: 'GET', url: `/v1/payments?accountId=1001-01&limit=${limit}`, as: 'ada' });
    assert.deepEqual(assertProblem(res, 400, 'VALIDATION_FAILED')['errors'], [
      { pointer: '/limit', in: 'query', detail: 'must be between 1 and 100' },
    ]);
  }

  // A malformed identifier is told by an example of the format, with its pattern.
  const balance = await h.request({ method: 'GET', url: '/v1/accounts/1001/balance', as: 'ada' });
  assert.deepEqual(assertProblem(balance, 400, 'VALIDATION_FAILED')['errors'], [
    {
      pointer: '/accountId',
      in: 'path',
      detail: 'must look like 1001-01 (Account identifier; pattern ^[0-9]{1,10}-[0-9]{2}$)',
    },
  ]);

  const subscription = await h.request({
    method: 'POST',
    url: '/v1/webhook-subscriptions',
    as: 'clerk',
    body: { url: 'https://example.com/hook', eventTypes: ['OrderConfirmed', 'OrderShipped'] },
  });
  assert.deepEqual(assertProblem(subscription, 400, 'VALIDATION_FAILED')['errors'], [
    { pointer: '/eventTypes/1', in: 'body', detail: `must be one of ${EVENT_TYPES}` },
  ]);

  // A nullable member: its type or null; a value of the right type is told what is wrong with it, once.
  const patch = await h.request({
    method: 'PATCH',
    url: '/v1/customers/1001',
    as: 'ada',
    body: { phone: 42, address: { line1: 7 } },
  });
  assert.deepEqual(assertProblem(patch, 400, 'VALIDATION_FAILED')['errors'], [
    { pointer: '/phone', in: 'body', detail: 'must be string or null' },
    { pointer: '/address/line1', in: 'body', detail: 'must be string' },
  ]);
});

async function refusal(res: { statusCode: number; headers: Record<string, unknown>; json(): unknown }) {
  const problem = assertProblem(res, 400, 'VALIDATION_FAILED');
  return { reason: problem['reason'], errors: problem['errors'] };
}

function post(h: TestApp, url: string, body: unknown, key: string, headers: Record<string, string> = {}) {
  return h.request({ method: 'POST', url, as: 'ada', body, headers: { 'idempotency-key': key, ...headers } });
}

test("a number out of its range, from the schema or the back-end, is listed at the request's pointer in words", async (t) => {
  const h = await startApp(t);
  const payment = { debtorAccount: '1001-01', creditorAccount: '1002-01', amount: 10, currency: 'EUR' };
  assert.deepEqual(await refusal(await post(h, '/v1/payments', { ...payment, amount: 5000000 }, 'pay-range')), {
    reason: undefined,
    errors: [{ pointer: '/amount', in: 'body', detail: 'must be at most 1000000' }],
  });
  assert.deepEqual(await refusal(await post(h, '/v1/payments', { ...payment, amount: 0 }, 'pay-zero')), {
    reason: undefined,
    errors: [{ pointer: '/amount', in: 'body', detail: 'must be above 0' }],
  });
  const loan = { customerId: '1001', amount: 1, installments: 12 };
  assert.deepEqual(await refusal(await post(h, '/v1/loan-applications', loan, 'loan-range')), {
    reason: undefined,
    errors: [{ pointer: '/amount', in: 'body', detail: 'must be at least 500' }],
  });

  // The back-end's own refusals of a value: its reason code, and the entry at the member the client sent.
  const same = { ...payment, creditorAccount: '1001-01' };
  const sameAccount = {
    reason: 'SAME_ACCOUNT',
    errors: [{ pointer: '/creditorAccount', in: 'body', detail: 'debtor and creditor account must differ' }],
  };
  assert.deepEqual(await refusal(await post(h, '/v1/payments', same, 'pay-same')), sameAccount);
  // Run later, the operation's problem is the one the synchronous call answers.
  const later = await post(h, '/v1/payments', same, 'pay-same-later', { prefer: 'respond-async' });
  assert.equal(later.statusCode, 202);
  let operation: Record<string, unknown> = {};
  await until('the payment operation settled', async () => {
    operation = (await h.request({ method: 'GET', url: String(later.headers['location']), as: 'ada' })).json();
    return operation['status'] !== 'pending';
  });
  const problem = operation['problem'] as Record<string, unknown>;
  assert.deepEqual({ reason: problem['reason'], errors: problem['errors'] }, sameAccount);

  const partial = await h.request({
    method: 'PATCH',
    url: '/v1/customers/1001',
    as: 'ada',
    body: { address: { city: 'Lisbon' } },
  });
  assert.deepEqual(await refusal(partial), {
    reason: 'ADDRESS_INCOMPLETE',
    errors: [{ pointer: '/address', in: 'body', detail: 'address needs line1, postalCode, city and country' }],
  });
});

test('a body of a media type the operation does not take: 415 names what arrived and what to send', async (t) => {
  const h = await startApp(t);
  const authorization = `Bearer ${await h.token('ada')}`;
  const send = (method: 'POST' | 'PATCH', url: string, headers: Record<string, string>) =>
    h.app.inject({ method, url, headers: { authorization, ...headers }, payload: Buffer.from('quantity=1') });
  const detail = async (res: Awaited<ReturnType<typeof send>>) =>
    assertProblem(res, 415, 'UNSUPPORTED_MEDIA_TYPE')['detail'];

  assert.equal(
    await detail(await send('POST', '/v1/orders', { 'content-type': 'application/x-www-form-urlencoded' })),
    'the body was sent as application/x-www-form-urlencoded; send it as application/json',
  );
  assert.equal(
    await detail(await send('POST', '/v1/orders', {})),
    'the body was sent without a Content-Type; send it as application/json',
  );
  // The merge-patch route names both the types it takes; the parameters of the type sent are left out.
  assert.equal(
    await detail(await send('PATCH', '/v1/customers/1001', { 'content-type': 'Text/Plain; charset=utf-8' })),
    'the body was sent as text/plain; send it as application/merge-patch+json or application/json',
  );
});
