import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Payment } from '../../src/resources/payment.ts';
import { assertProblem, assertShape } from '../helpers/assert-shape.ts';
import { startApp, type TestApp } from '../helpers/app.ts';

const PAYMENT_KEYS = [
  'paymentId',
  'status',
  'debtorAccount',
  'creditorAccount',
  'amount',
  'currency',
  'reference',
  'createdAt',
];

function pay(h: TestApp, body: Record<string, unknown>, key: string | undefined, as = 'ada') {
  return h.request({ method: 'POST', url: '/v1/payments', as, body, headers: key ? { 'idempotency-key': key } : {} });
}

async function balance(h: TestApp, account: string): Promise<number> {
  const res = await h.request({ method: 'GET', url: `/v1/accounts/${account}/balance`, as: 'clerk' });
  assert.equal(res.statusCode, 200);
  return res.json().balance;
}

const TRANSFER = {
  debtorAccount: '1001-01',
  creditorAccount: '1002-01',
  amount: 100.25,
  currency: 'EUR',
  reference: 'Invoice 42',
};

test('POST /v1/payments completes: 201, two postings move the money, GET returns it', async (t) => {
  const h = await startApp(t);
  const res = await pay(h, TRANSFER, 'pay-1');
  assert.equal(res.statusCode, 201);
  const payment = res.json();
  assertShape(Payment, payment, PAYMENT_KEYS);
  assert.equal(payment.status, 'COMPLETED');
  assert.equal(payment.amount, 100.25);
  assert.equal(payment.debtorAccount, '1001-01');
  assert.equal(payment.creditorAccount, '1002-01');
  assert.equal(payment.reference, 'Invoice 42');
  assert.equal(res.headers['location'], `/v1/payments/${payment.paymentId}`);
  assert.equal(await balance(h, '1001-01'), 2399.75);
  assert.equal(await balance(h, '1002-01'), 1300.25);

  const read = await h.request({ method: 'GET', url: `/v1/payments/${payment.paymentId}`, as: 'ada' });
  assert.equal(read.statusCode, 200);
  assert.deepEqual(read.json(), payment);
  assertProblem(
    await h.request({ method: 'GET', url: '/v1/payments/PAY-0000000000000000', as: 'ada' }),
    404,
    'NOT_FOUND',
  );
  assertProblem(await h.request({ method: 'GET', url: '/v1/payments/123', as: 'ada' }), 400, 'VALIDATION_FAILED');
});

test('same key and body replays the first response and moves money once', async (t) => {
  const h = await startApp(t);
  const first = await pay(h, TRANSFER, 'retry-me');
  const second = await pay(h, TRANSFER, 'retry-me');
  assert.equal(second.statusCode, 201);
  assert.equal(second.headers['idempotent-replayed'], 'true');
  assert.equal(first.headers['idempotent-replayed'], undefined);
  assert.equal(second.body, first.body);
  assert.equal(second.headers['location'], first.headers['location']);
  assert.equal(await balance(h, '1001-01'), 2399.75);

  // The key is the caller's: another caller may use the same key string for its own payment.
  const alan = await pay(
    h,
    { debtorAccount: '1002-01', creditorAccount: '1001-01', amount: 1, currency: 'EUR' },
    'retry-me',
    'alan',
  );
  assert.equal(alan.statusCode, 201);
  assert.notEqual(alan.json().paymentId, first.json().paymentId);
});

test('the same JSON value with its keys in another order is the same request: replayed, paid once', async (t) => {
  const h = await startApp(t);
  const first = await pay(h, TRANSFER, 'reordered');
  assert.equal(first.statusCode, 201);
  const reordered = Object.fromEntries(Object.entries(TRANSFER).reverse());
  assert.notEqual(JSON.stringify(reordered), JSON.stringify(TRANSFER));
  const again = await pay(h, reordered, 'reordered');
  assert.equal(again.statusCode, 201);
  assert.equal(again.headers['idempotent-replayed'], 'true');
  assert.equal(again.json().paymentId, first.json().paymentId);
  assert.equal(await balance(h, '1001-01'), 2399.75);
});

test('same key with another body → 422; missing or malformed key → 400', async (t) => {
  const h = await startApp(t);
  await pay(h, TRANSFER, 'k-1');
  const other = await pay(h, { ...TRANSFER, amount: 999 }, 'k-1');
  assertProblem(other, 422, 'IDEMPOTENCY_KEY_REUSED');
  assert.equal(await balance(h, '1001-01'), 2399.75);

  const missing = assertProblem(await pay(h, TRANSFER, undefined), 400, 'IDEMPOTENCY_KEY_REQUIRED');
  assert.deepEqual(missing['errors'], [{ pointer: '/idempotency-key', in: 'header', detail: 'is required' }]);
  // Checked before the body: a payment without a key is refused for that, whatever else is wrong with it.
  assertProblem(await pay(h, { ...TRANSFER, amount: 'ten' }, undefined), 400, 'IDEMPOTENCY_KEY_REQUIRED');
  assertProblem(await pay(h, TRANSFER, 'has spaces in it'), 400, 'VALIDATION_FAILED');
  assertProblem(await pay(h, TRANSFER, 'x'.repeat(65)), 400, 'VALIDATION_FAILED');
});

test('parallel requests with one key: one execution, the others wait (409) or replay', async (t) => {
  const h = await startApp(t);
  const token = await h.token('ada');
  const results = await Promise.all(
    Array.from({ length: 8 }, () =>
      h.request({
        method: 'POST',
        url: '/v1/payments',
        token,
        body: TRANSFER,
        headers: { 'idempotency-key': 'parallel' },
      }),
    ),
  );
  const statuses = results.map((r) => r.statusCode).sort();
  assert.ok(
    statuses.every((s) => s === 201 || s === 409),
    statuses.join(),
  );
  const created = results.filter((r) => r.statusCode === 201);
  assert.equal(new Set(created.map((r) => r.json().paymentId)).size, 1);
  assert.equal(created.filter((r) => r.headers['idempotent-replayed'] !== 'true').length, 1, 'exactly one execution');
  for (const r of results.filter((x) => x.statusCode === 409)) {
    assertProblem(r, 409, 'IDEMPOTENCY_IN_PROGRESS');
    assert.equal(r.headers['retry-after'], '1');
  }
  assert.equal(await balance(h, '1001-01'), 2399.75);
  const replay = await h.request({
    method: 'POST',
    url: '/v1/payments',
    token,
    body: TRANSFER,
    headers: { 'idempotency-key': 'parallel' },
  });
  assert.equal(replay.statusCode, 201);
  assert.equal(replay.json().paymentId, created[0]!.json().paymentId);
});

test('business rejections: 200 REJECTED with reason, no money moved', async (t) => {
  const h = await startApp(t);
  const cases = [
    { body: { ...TRANSFER, creditorAccount: '9999-01' }, reason: 'CREDITOR_NOT_FOUND' },
    { body: { ...TRANSFER, creditorAccount: '1001-02' }, reason: 'CURRENCY_MISMATCH' },
    { body: { ...TRANSFER, currency: 'USD' }, reason: 'CURRENCY_MISMATCH' },
    { body: { ...TRANSFER, amount: 2500.01 }, reason: 'INSUFFICIENT_FUNDS' },
  ];
  let i = 0;
  for (const c of cases) {
    const res = await pay(h, c.body, `rej-${i++}`);
    assert.equal(res.statusCode, 200, c.reason);
    assertShape(Payment, res.json(), [...PAYMENT_KEYS, 'reason']);
    assert.equal(res.json().status, 'REJECTED');
    assert.equal(res.json().reason, c.reason);
  }
  assert.equal(await balance(h, '1001-01'), 2500);
  // Exactly the balance is allowed.
  const all = await pay(h, { ...TRANSFER, amount: 2500 }, 'everything');
  assert.equal(all.json().status, 'COMPLETED');
  assert.equal(await balance(h, '1001-01'), 0);
});

test('an unaffordable payment learns nothing about its creditor: INSUFFICIENT_FUNDS whether the account exists or not', async (t) => {
  const h = await startApp(t);
  const probe = (creditorAccount: string, key: string) =>
    pay(h, { debtorAccount: '1003-01', creditorAccount, amount: 999_999, currency: 'EUR' }, key, 'grace');
  for (const [creditor, key] of [
    ['9999-01', 'probe-missing'],
    ['1001-01', 'probe-existing'],
    ['1001-02', 'probe-usd'],
  ] as const) {
    const res = await probe(creditor, key);
    assert.equal(res.statusCode, 200, creditor);
    assert.equal(res.json().status, 'REJECTED');
    assert.equal(res.json().reason, 'INSUFFICIENT_FUNDS', creditor);
  }
  // In the payer's own currency check too: a USD payment from a EUR account says so, whatever the creditor.
  const usd = await pay(
    h,
    { debtorAccount: '1003-01', creditorAccount: '9999-01', amount: 1, currency: 'USD' },
    'probe-currency',
    'grace',
  );
  assert.equal(usd.json().reason, 'CURRENCY_MISMATCH');
  assert.equal(await balance(h, '1003-01'), 10_000);
});

test('payment input rules → 400: same account, amount ≤ 0, above 1,000,000.00, three decimals, wrong types', async (t) => {
  const h = await startApp(t);
  const bad = [
    { ...TRANSFER, creditorAccount: '1001-01' },
    { ...TRANSFER, amount: 0 },
    { ...TRANSFER, amount: -5 },
    { ...TRANSFER, amount: 1_000_000.01 },
    { ...TRANSFER, amount: 10.123 },
    { ...TRANSFER, amount: '10.00' },
    { ...TRANSFER, currency: 'eur' },
    { ...TRANSFER, debtorAccount: '1001' },
    { ...TRANSFER, extra: true },
  ];
  let i = 0;
  for (const body of bad) assertProblem(await pay(h, body, `bad-${i++}`), 400, 'VALIDATION_FAILED');
  assert.equal(await balance(h, '1001-01'), 2500);
  const decimals = assertProblem(await pay(h, { ...TRANSFER, amount: 10.123 }, 'decimals'), 400, 'VALIDATION_FAILED');
  assert.deepEqual(
    (decimals['errors'] as Array<{ pointer: string }>).map((e) => e.pointer),
    ['/amount'],
  );
});

test('debtor account not the caller’s → 404; staff may pay from any customer account', async (t) => {
  const h = await startApp(t);
  assertProblem(
    await pay(h, { ...TRANSFER, debtorAccount: '1002-01', creditorAccount: '1001-01' }, 'steal'),
    404,
    'NOT_FOUND',
  );
  assertProblem(await pay(h, { ...TRANSFER, debtorAccount: '9999-01' }, 'ghost'), 404, 'NOT_FOUND');
  const staff = await pay(
    h,
    { ...TRANSFER, debtorAccount: '1002-01', creditorAccount: '1001-01', amount: 1 },
    'staff',
    'clerk',
  );
  assert.equal(staff.statusCode, 201);
  assert.equal(await balance(h, '1002-01'), 1199);
  assert.equal(
    (await h.request({ method: 'GET', url: `/v1/payments/${staff.json().paymentId}`, as: 'alan' })).statusCode,
    200,
  );
  // ada received it (completed, into her account): hers to read too; grace has nothing to do with it
  assert.equal(
    (await h.request({ method: 'GET', url: `/v1/payments/${staff.json().paymentId}`, as: 'ada' })).statusCode,
    200,
  );
  assertProblem(
    await h.request({ method: 'GET', url: `/v1/payments/${staff.json().paymentId}`, as: 'grace' }),
    404,
    'NOT_FOUND',
  );
});
