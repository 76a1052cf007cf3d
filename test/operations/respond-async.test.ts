/**
 * Operations run later (docs/events-webhooks-operations.md, "Operations"): Prefer: respond-async answers 202
 * and a status resource whose outcome is exactly what the synchronous call answers; the same authorization;
 * idempotency keys; once only, across a restart of the API while pending.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.ts';
import { queryStore } from '../helpers/backend-store.ts';
import { feedWhen } from '../helpers/events.ts';
import { until } from '../../src/until.ts';

const ASYNC = { prefer: 'respond-async' };

async function settled(h: TestApp, location: string, as: string) {
  let body: Record<string, unknown> = {};
  await until(`${location} settled`, async () => {
    body = (await h.request({ method: 'GET', url: location, as })).json();
    return body['status'] !== 'pending';
  });
  return body;
}

async function balance(h: TestApp, account: string): Promise<number> {
  return (await h.request({ method: 'GET', url: `/v1/accounts/${account}/balance`, as: 'clerk' })).json().balance;
}

test('a payment with Prefer: respond-async: 202, then succeeded with the body the synchronous call answers', async (t) => {
  const h = await startApp(t);
  const before = await balance(h, '1001-01');
  const res = await h.request({
    method: 'POST',
    url: '/v1/payments',
    as: 'ada',
    headers: { ...ASYNC, 'idempotency-key': 'async-1' },
    body: {
      debtorAccount: '1001-01',
      creditorAccount: '1002-01',
      amount: 12.5,
      currency: 'EUR',
      reference: 'Invoice 7',
    },
  });
  assert.equal(res.statusCode, 202, res.body);
  assert.equal(res.headers['preference-applied'], 'respond-async');
  const { operationId, status } = res.json();
  assert.match(operationId, /^OP-[0-9A-F]{16}$/);
  assert.equal(status, 'pending');
  assert.equal(res.headers['location'], `/v1/operations/${operationId}`);

  const done = await settled(h, res.headers['location'] as string, 'ada');
  assert.equal(done['status'], 'succeeded');
  assert.equal(done['operationId'], operationId);
  const result = done['result'] as Record<string, unknown>;
  const read = await h.request({ method: 'GET', url: `/v1/payments/${String(result['paymentId'])}`, as: 'ada' });
  assert.deepEqual(result, read.json(), 'the result is the payment as the API shows it');
  assert.equal(result['status'], 'COMPLETED');
  assert.equal(result['reference'], 'Invoice 7');
  assert.equal(await balance(h, '1001-01'), before - 12.5);

  // The same key again: the same operation as it is now (a queued 202 is never replayed stale), and one payment only.
  const again = await h.request({
    method: 'POST',
    url: '/v1/payments',
    as: 'ada',
    headers: { ...ASYNC, 'idempotency-key': 'async-1' },
    body: {
      debtorAccount: '1001-01',
      creditorAccount: '1002-01',
      amount: 12.5,
      currency: 'EUR',
      reference: 'Invoice 7',
    },
  });
  assert.equal(again.statusCode, 202, again.body);
  assert.equal(again.json().operationId, operationId);
  assert.equal(again.json().status, 'succeeded');
  assert.equal(again.headers['idempotent-replayed'], 'true', 'the operation the key made, not a second one');
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(await balance(h, '1001-01'), before - 12.5);

  // Completion raised the event, under the submitting request's correlation id.
  const [event] = await feedWhen(h, 'ada', (e) => e.some((x) => x.type === 'PaymentCompleted'));
  assert.equal(event!.subject, result['paymentId']);
  assert.equal(event!.correlationid, res.headers['x-request-id']);
});

test('a synchronous retry of a request that was answered 202 gets the outcome, not the stale 202, and one effect', async (t) => {
  const h = await startApp(t);
  const before = await balance(h, '1001-01');
  const body = {
    debtorAccount: '1001-01',
    creditorAccount: '1002-01',
    amount: 3.25,
    currency: 'EUR',
    reference: 'R-8',
  };
  const queued = await h.request({
    method: 'POST',
    url: '/v1/payments',
    as: 'ada',
    headers: { ...ASYNC, 'idempotency-key': 'async-then-sync' },
    body,
  });
  assert.equal(queued.statusCode, 202, queued.body);
  const done = await settled(h, queued.headers['location'] as string, 'ada');
  assert.equal(done['status'], 'succeeded');
  const paymentId = (done['result'] as Record<string, unknown>)['paymentId'];

  const sync = await h.request({
    method: 'POST',
    url: '/v1/payments',
    as: 'ada',
    headers: { 'idempotency-key': 'async-then-sync' },
    body,
  });
  assert.equal(sync.statusCode, 201, sync.body);
  assert.equal(sync.json().paymentId, paymentId, 'the payment the operation made');
  assert.equal(sync.json().status, 'COMPLETED');
  assert.equal(sync.headers['preference-applied'], undefined);
  // A different body under the same key is still refused, however the first was answered.
  const other = await h.request({
    method: 'POST',
    url: '/v1/payments',
    as: 'ada',
    headers: { 'idempotency-key': 'async-then-sync' },
    body: { ...body, amount: 4 },
  });
  assert.equal(other.statusCode, 422, other.body);
  assert.equal(other.json().code, 'IDEMPOTENCY_KEY_REUSED');
  // From now on the synchronous answer is the one replayed.
  const replay = await h.request({
    method: 'POST',
    url: '/v1/payments',
    as: 'ada',
    headers: { 'idempotency-key': 'async-then-sync' },
    body,
  });
  assert.equal(replay.statusCode, 201);
  assert.equal(replay.json().paymentId, paymentId);
  assert.equal(await balance(h, '1001-01'), before - 3.25, 'one payment');
});

test('outcomes: a business rejection succeeds with status REJECTED; a refused request fails with its problem', async (t) => {
  const h = await startApp(t);
  const loan = await h.request({
    method: 'POST',
    url: '/v1/loan-applications',
    as: 'grace',
    headers: ASYNC,
    body: { customerId: '1003', amount: 1000, installments: 12 },
  });
  assert.equal(loan.statusCode, 202);
  const decided = await settled(h, loan.headers['location'] as string, 'grace');
  assert.equal(decided['status'], 'succeeded');
  const decision = decided['result'] as Record<string, unknown>;
  assert.equal(decision['status'], 'REJECTED');
  assert.equal(decision['reason'], 'RISK_RATING');
  assert.deepEqual(
    decision,
    (
      await h.request({ method: 'GET', url: `/v1/loan-applications/${String(decision['loanId'])}`, as: 'grace' })
    ).json(),
  );

  const pay = await h.request({
    method: 'POST',
    url: '/v1/payments',
    as: 'ada',
    headers: { ...ASYNC, 'idempotency-key': 'async-missing' },
    body: { debtorAccount: '9999-01', creditorAccount: '1002-01', amount: 1, currency: 'EUR' },
  });
  const failed = await settled(h, pay.headers['location'] as string, 'ada');
  assert.equal(failed['status'], 'failed');
  const problem = failed['problem'] as Record<string, unknown>;
  assert.equal(problem['status'], 404);
  assert.equal(problem['code'], 'NOT_FOUND');
  assert.equal(problem['instance'], '/v1/payments');
  assert.equal(problem['requestId'], pay.headers['x-request-id']);
  // What the synchronous call answers for the same request
  const sync = await h.request({
    method: 'POST',
    url: '/v1/payments',
    as: 'ada',
    headers: { 'idempotency-key': 'sync-missing' },
    body: { debtorAccount: '9999-01', creditorAccount: '1002-01', amount: 1, currency: 'EUR' },
  });
  assert.equal(sync.json().code, problem['code']);
  assert.equal(sync.json().detail, problem['detail']);
});

test('the same authorization as the resource: another customer gets 404, an agent reads it; invalid requests are refused at once', async (t) => {
  const h = await startApp(t);
  const res = await h.request({
    method: 'POST',
    url: '/v1/loan-applications',
    as: 'ada',
    headers: ASYNC,
    body: { customerId: '1001', amount: 1000, installments: 12 },
  });
  const location = res.headers['location'] as string;
  await settled(h, location, 'ada');
  assert.equal((await h.request({ method: 'GET', url: location, as: 'alan' })).statusCode, 404);
  assert.equal((await h.request({ method: 'GET', url: location, as: 'clerk' })).json().status, 'succeeded');
  assert.equal(
    (await h.request({ method: 'GET', url: '/v1/operations/OP-0000000000000000', as: 'ada' })).statusCode,
    404,
  );
  const invalid = await h.request({
    method: 'POST',
    url: '/v1/loan-applications',
    as: 'ada',
    headers: ASYNC,
    body: { customerId: '1001', amount: 1000, installments: 'twelve' },
  });
  assert.equal(invalid.statusCode, 400, 'validated against the schema before it is queued');
  // A rule the back-end program checks is told by the operation, as the synchronous call tells it.
  const toItself = await h.request({
    method: 'POST',
    url: '/v1/payments',
    as: 'ada',
    headers: { ...ASYNC, 'idempotency-key': 'async-to-itself' },
    body: { debtorAccount: '1001-01', creditorAccount: '1001-01', amount: 1, currency: 'EUR' },
  });
  assert.equal(toItself.statusCode, 202);
  const refused = await settled(h, toItself.headers['location'] as string, 'ada');
  assert.equal(refused['status'], 'failed');
  assert.equal((refused['problem'] as Record<string, unknown>)['status'], 400);
  assert.equal((refused['problem'] as Record<string, unknown>)['reason'], 'SAME_ACCOUNT');
  const notYours = await h.request({
    method: 'POST',
    url: '/v1/loan-applications',
    as: 'ada',
    headers: ASYNC,
    body: { customerId: '1002', amount: 1000, installments: 12 },
  });
  assert.equal(notYours.statusCode, 404);
});

test('a restart of the API while operations are pending: each completes, once', async (t) => {
  const h = await startApp(t);
  const before = await balance(h, '1001-01');
  const submitted = await Promise.all(
    Array.from({ length: 10 }, (_, i) =>
      h.request({
        method: 'POST',
        url: '/v1/payments',
        as: 'ada',
        headers: { ...ASYNC, 'idempotency-key': `restart-${i}` },
        body: { debtorAccount: '1001-01', creditorAccount: '1002-01', amount: 1, currency: 'EUR' },
      }),
    ),
  );
  assert.ok(submitted.every((r) => r.statusCode === 202));
  await h.restart();
  for (const r of submitted)
    assert.equal((await settled(h, r.headers['location'] as string, 'ada'))['status'], 'succeeded');
  assert.equal(await balance(h, '1001-01'), before - 10, 'ten payments, no more, no fewer');
  const rows = await queryStore(h, "SELECT COUNT(*) AS n FROM payments WHERE idempotency_key LIKE 'restart-%'");
  assert.equal(Number(rows[0]?.['n']), 10);
});
