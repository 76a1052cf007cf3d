/**
 * The lists a customer expects (issue 10): their accounts, an account's payments (paid and received), their
 * loan applications. Each is paged by an opaque cursor, shows exactly what the single GET would show the
 * caller (the same objects, the same fields), and answers 404 for another customer's account or customer.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ROLE_SCOPES } from '../../src/auth/roles.ts';
import { AccountList } from '../../src/resources/account.ts';
import { LoanApplicationList } from '../../src/resources/loan.ts';
import { PaymentList } from '../../src/resources/payment.ts';
import { assertProblem, assertShape } from '../helpers/assert-shape.ts';
import { startApp, type TestApp } from '../helpers/app.ts';

type Item = Record<string, unknown>;

/** Every page of a list, walked with `limit`: the items in order, and how many pages it took. */
async function walk(h: TestApp, url: string, as: string, limit: number): Promise<{ items: Item[]; pages: number }> {
  const items: Item[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const sep = url.includes('?') ? '&' : '?';
    const res = await h.request({
      method: 'GET',
      url: `${url}${sep}limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`,
      as,
    });
    assert.equal(res.statusCode, 200, `${url} as ${as}: ${res.body}`);
    const body = res.json() as { items: Item[]; nextCursor: string | null };
    assert.ok(body.items.length <= limit, 'a page holds at most limit items');
    assert.ok(body.nextCursor === null || body.items.length === limit, 'a page before the last is full');
    items.push(...body.items);
    cursor = body.nextCursor;
    pages++;
    assert.ok(pages < 100, 'the walk ends');
  } while (cursor);
  return { items, pages };
}

/** The 400 of a query parameter, at its pointer. */
async function assertQueryRefused(h: TestApp, url: string, as: string, pointer: string): Promise<void> {
  const problem = assertProblem(await h.request({ method: 'GET', url, as }), 400, 'VALIDATION_FAILED');
  const errors = problem['errors'] as Array<{ pointer: string; in: string }>;
  assert.ok(
    errors.some((e) => e.pointer === pointer && e.in === 'query'),
    `${url}: ${JSON.stringify(errors)}`,
  );
}

/** Bad pages of a list: limits out of range, a cursor this API did not issue or issued for another list. */
async function assertPagingRefused(h: TestApp, url: string, as: string, otherListsCursor: string): Promise<void> {
  const sep = url.includes('?') ? '&' : '?';
  for (const limit of ['0', '101', 'abc', '-1', '1.5'])
    await assertQueryRefused(h, `${url}${sep}limit=${limit}`, as, '/limit');
  const tampered = [
    'x',
    'not-base64!',
    Buffer.from('o1:abc').toString('base64url'),
    Buffer.from('a2:5').toString('base64url'),
    Buffer.from('p1:1234567890123456').toString('base64url'),
    otherListsCursor,
  ];
  for (const cursor of tampered)
    await assertQueryRefused(h, `${url}${sep}cursor=${encodeURIComponent(cursor)}`, as, '/cursor');
}

/**
 * Partners never reach these lists: their token has no such scope, and with it forged in, the role still stops it
 * (route table).
 */
async function assertPartnerRefused(h: TestApp, url: string): Promise<void> {
  assertProblem(await h.request({ method: 'GET', url, as: 'acme-shop' }), 403, 'INSUFFICIENT_SCOPE');
  const everyScope = await h.token('acme-shop', { scopes: [...ROLE_SCOPES.agent] });
  assertProblem(await h.request({ method: 'GET', url, token: everyScope }), 403, 'FORBIDDEN');
}

const withoutAsOf = ({ asOf: _asOf, ...rest }: Item) => rest;

test("GET /v1/customers/{id}/accounts: the customer's accounts in opening order, each as its balance route shows it", async (t) => {
  const h = await startApp(t);
  const first = await h.request({ method: 'GET', url: '/v1/customers/1001/accounts', as: 'ada' });
  assert.equal(first.statusCode, 200, first.body);
  assertShape(AccountList, first.json(), ['items', 'nextCursor']);
  const accounts = first.json().items as Item[];
  assert.deepEqual(
    accounts.map((a) => [a['account'], a['currency'], a['balance'], a['availableBalance']]),
    [
      ['1001-01', 'EUR', 2500, 2500],
      ['1001-02', 'USD', 800, 800],
    ],
  );
  assert.equal(first.json().nextCursor, null);
  for (const account of accounts) {
    const single = await h.request({
      method: 'GET',
      url: `/v1/accounts/${String(account['account'])}/balance`,
      as: 'ada',
    });
    assert.deepEqual(
      withoutAsOf(account),
      withoutAsOf(single.json()),
      'the same fields and values as the balance route',
    );
    assert.deepEqual(Object.keys(account).sort(), Object.keys(single.json()).sort());
  }

  // one item a page: both accounts, once each, then the end
  const walked = await walk(h, '/v1/customers/1001/accounts', 'ada', 1);
  assert.deepEqual(
    walked.items.map((a) => a['account']),
    ['1001-01', '1001-02'],
  );
  assert.equal(walked.pages, 2);

  // staff read any customer's; a balance moved by a payment shows in the list
  assert.equal(
    (
      await h.request({
        method: 'POST',
        url: '/v1/payments',
        as: 'ada',
        headers: { 'idempotency-key': 'acc-list' },
        body: { debtorAccount: '1001-01', creditorAccount: '1002-01', amount: 12.5, currency: 'EUR' },
      })
    ).statusCode,
    201,
  );
  const alans = await h.request({ method: 'GET', url: '/v1/customers/1002/accounts', as: 'clerk' });
  assert.deepEqual(
    alans.json().items.map((a: Item) => [a['account'], a['balance']]),
    [['1002-01', 1212.5]],
  );
  const adas = await h.request({ method: 'GET', url: '/v1/customers/1001/accounts', as: 'clerk' });
  assert.deepEqual(
    adas.json().items.map((a: Item) => withoutAsOf(a)),
    (await h.request({ method: 'GET', url: '/v1/customers/1001/accounts', as: 'ada' })).json().items.map(withoutAsOf),
  );

  // another customer's accounts, or a customer who is not there: 404, never the data
  for (const [as, url] of [
    ['alan', '/v1/customers/1001/accounts'],
    ['clerk', '/v1/customers/9999/accounts'],
    ['ada', '/v1/customers/9999/accounts'],
  ] as const) {
    const res = await h.request({ method: 'GET', url, as });
    assertProblem(res, 404, 'NOT_FOUND');
    assert.doesNotMatch(res.body, /1001-0|"balance"/);
  }
  await assertPartnerRefused(h, '/v1/customers/1001/accounts');
  assertProblem(
    await h.request({ method: 'GET', url: '/v1/customers/abc/accounts', as: 'clerk' }),
    400,
    'VALIDATION_FAILED',
  );
  await assertQueryRefused(h, '/v1/customers/1001/accounts?sort=asc', 'ada', '/sort');
  await assertPagingRefused(h, '/v1/customers/1001/accounts', 'ada', Buffer.from('p1:1').toString('base64url'));
});

interface Made {
  id: string;
  debtor: string;
  creditor: string;
  status: string;
}

/**
 * Payments between the demo customers, oldest first: ada (1001-01 EUR, 1001-02 USD), alan (1002-01), grace
 * (1003-01). Completed and rejected, paid and received, and between a customer's own accounts.
 */
async function payments(h: TestApp): Promise<Made[]> {
  const plan: Array<[string, string, string, number, string, string]> = [
    ['ada', '1001-01', '1002-01', 10, 'EUR', 'COMPLETED'], // ada pays alan
    ['alan', '1002-01', '1001-01', 5, 'EUR', 'COMPLETED'], // alan pays ada
    ['alan', '1002-01', '1001-01', 999_999, 'EUR', 'REJECTED'], // alan cannot afford it: ada never sees it
    ['ada', '1001-01', '1001-02', 1, 'EUR', 'REJECTED'], // to her own USD account: currency mismatch
    ['grace', '1003-01', '1002-01', 7, 'EUR', 'COMPLETED'], // nothing of ada's
    ['ada', '1001-02', '1001-01', 1, 'USD', 'REJECTED'], // from her USD account to her EUR one
    ['ada', '1001-01', '1003-01', 3, 'EUR', 'COMPLETED'], // ada pays grace
    ['clerk', '1002-01', '1001-01', 2, 'EUR', 'COMPLETED'], // staff pay from alan's account to ada's
  ];
  const made: Made[] = [];
  for (const [as, debtor, creditor, amount, currency, status] of plan) {
    const res = await h.request({
      method: 'POST',
      url: '/v1/payments',
      as,
      headers: { 'idempotency-key': `list-${made.length}` },
      body: { debtorAccount: debtor, creditorAccount: creditor, amount, currency, reference: `payment ${made.length}` },
    });
    assert.equal(res.json().status, status, res.body);
    made.push({ id: res.json().paymentId, debtor, creditor, status });
  }
  return made;
}

test('GET /v1/payments?accountId=: paid and received, newest first; a payment is listed exactly when GET shows it to the caller, with the same body', async (t) => {
  const h = await startApp(t);
  const made = await payments(h);
  const [adaPaysAlan, alanPaysAda, alanRejected, adaToOwnUsd, , adaFromUsd, adaPaysGrace, clerkFromAlan] = made.map(
    (m) => m.id,
  );

  const page = await h.request({ method: 'GET', url: '/v1/payments?accountId=1001-01', as: 'ada' });
  assert.equal(page.statusCode, 200, page.body);
  assertShape(PaymentList, page.json(), ['items', 'nextCursor']);
  // newest first; alan's rejected attempt to pay her is not hers to read
  assert.deepEqual(
    page.json().items.map((p: Item) => p['paymentId']),
    [clerkFromAlan, adaPaysGrace, adaFromUsd, adaToOwnUsd, alanPaysAda, adaPaysAlan],
  );
  // staff read every payment of the account
  const staff = await h.request({ method: 'GET', url: '/v1/payments?accountId=1001-01', as: 'clerk' });
  assert.deepEqual(
    staff.json().items.map((p: Item) => p['paymentId']),
    [clerkFromAlan, adaPaysGrace, adaFromUsd, adaToOwnUsd, alanRejected, alanPaysAda, adaPaysAlan],
  );

  // For every caller and account they may use: the list (walked page by page) is exactly the payments of the
  // account that GET /v1/payments/{id} shows that caller, newest first, each with the body that GET answers.
  const accountsOf: Record<string, string[]> = {
    ada: ['1001-01', '1001-02'],
    alan: ['1002-01'],
    grace: ['1003-01'],
    clerk: ['1001-01', '1001-02', '1002-01', '1003-01'],
  };
  for (const [as, accounts] of Object.entries(accountsOf)) {
    const shown = new Map<string, Item>();
    for (const m of made) {
      const res = await h.request({ method: 'GET', url: `/v1/payments/${m.id}`, as });
      if (res.statusCode === 200) shown.set(m.id, res.json());
      else assertProblem(res, 404, 'NOT_FOUND');
    }
    for (const account of accounts) {
      const expected = [...made]
        .reverse()
        .filter((m) => (m.debtor === account || m.creditor === account) && shown.has(m.id))
        .map((m) => shown.get(m.id));
      for (const limit of [2, 100]) {
        const walked = await walk(h, `/v1/payments?accountId=${account}`, as, limit);
        assert.deepEqual(walked.items, expected, `${as}'s list of ${account} (limit ${limit})`);
      }
    }
  }

  // a payment between two customers is in both lists, with the same body each gets from GET
  const inAlans = (await walk(h, '/v1/payments?accountId=1002-01', 'alan', 100)).items.find(
    (p) => p['paymentId'] === adaPaysAlan,
  );
  const inAdas = (await walk(h, '/v1/payments?accountId=1001-01', 'ada', 100)).items.find(
    (p) => p['paymentId'] === adaPaysAlan,
  );
  assert.ok(inAlans && inAdas);
  assert.deepEqual(inAlans, inAdas);
  assert.deepEqual(
    inAlans,
    (await h.request({ method: 'GET', url: `/v1/payments/${adaPaysAlan}`, as: 'alan' })).json(),
  );
  assert.equal(inAlans['reference'], 'payment 0');
  // the payee never reads a rejected payment to them (its reason is the payer's business)
  assertProblem(await h.request({ method: 'GET', url: `/v1/payments/${alanRejected}`, as: 'ada' }), 404, 'NOT_FOUND');

  // filters: status, newest first still
  const rejected = await h.request({
    method: 'GET',
    url: '/v1/payments?accountId=1001-01&status=REJECTED',
    as: 'clerk',
  });
  assert.deepEqual(
    rejected.json().items.map((p: Item) => p['paymentId']),
    [adaFromUsd, adaToOwnUsd, alanRejected],
  );
  const adasRejected = await h.request({
    method: 'GET',
    url: '/v1/payments?accountId=1001-01&status=REJECTED',
    as: 'ada',
  });
  assert.deepEqual(
    adasRejected.json().items.map((p: Item) => p['paymentId']),
    [adaFromUsd, adaToOwnUsd],
  );

  // another customer's account, or one that is not there: 404 (never an empty list that confirms it exists)
  for (const [as, account] of [
    ['ada', '1002-01'],
    ['alan', '1001-01'],
    ['ada', '9999-01'],
    ['clerk', '9999-01'],
  ] as const) {
    const res = await h.request({ method: 'GET', url: `/v1/payments?accountId=${account}`, as });
    assertProblem(res, 404, 'NOT_FOUND');
    assert.doesNotMatch(res.body, /PAY-|"amount"/);
  }
  await assertPartnerRefused(h, '/v1/payments?accountId=1001-01');
  await assertQueryRefused(h, '/v1/payments', 'clerk', '/accountId');
  await assertQueryRefused(h, '/v1/payments?accountId=SYS-OPENING-EUR', 'clerk', '/accountId');
  await assertQueryRefused(h, '/v1/payments?accountId=1001-01&status=PENDING', 'ada', '/status');
  await assertPagingRefused(h, '/v1/payments?accountId=1001-01', 'ada', Buffer.from('a1:1').toString('base64url'));
});

test("GET /v1/loan-applications?customerId=: a customer's applications newest first; staff any customer's", async (t) => {
  const h = await startApp(t);
  const made: Array<{ id: string; customerId: string; status: string }> = [];
  for (const [as, customerId, amount] of [
    ['ada', '1001', 1000],
    ['alan', '1002', 2000],
    ['ada', '1001', 3000],
    ['grace', '1003', 4000],
    ['clerk', '1001', 5000],
  ] as const) {
    const res = await h.request({
      method: 'POST',
      url: '/v1/loan-applications',
      as,
      body: { customerId, amount, installments: 12 },
    });
    assert.ok(res.statusCode === 201 || res.statusCode === 200, res.body);
    made.push({ id: res.json().loanId, customerId, status: res.json().status });
  }
  const ids = (customerId: string | null, status?: string) =>
    [...made]
      .reverse()
      .filter(
        (m) => (customerId === null || m.customerId === customerId) && (status === undefined || m.status === status),
      )
      .map((m) => m.id);
  assert.deepEqual(
    made.map((m) => m.status),
    ['APPROVED', 'APPROVED', 'APPROVED', 'REJECTED', 'APPROVED'],
    'grace (rating D) is not lent to',
  );

  const own = await h.request({ method: 'GET', url: '/v1/loan-applications', as: 'ada' });
  assert.equal(own.statusCode, 200, own.body);
  assertShape(LoanApplicationList, own.json(), ['items', 'nextCursor']);
  assert.deepEqual(
    own.json().items.map((l: Item) => l['loanId']),
    ids('1001'),
  );
  // each item is the single GET's body
  for (const item of own.json().items as Item[]) {
    assert.deepEqual(
      item,
      (await h.request({ method: 'GET', url: `/v1/loan-applications/${String(item['loanId'])}`, as: 'ada' })).json(),
    );
  }
  // naming herself, also as a number with a leading zero, is the same list
  for (const query of ['customerId=1001', 'customerId=01001']) {
    assert.deepEqual(
      (await h.request({ method: 'GET', url: `/v1/loan-applications?${query}`, as: 'ada' })).json(),
      own.json(),
      query,
    );
  }
  const walked = await walk(h, '/v1/loan-applications', 'ada', 2);
  assert.deepEqual(walked.items, own.json().items, 'pages of 2: every application once, in order');
  assert.equal(walked.pages, 2);

  // staff: one customer's, or everyone's; with the status filter
  assert.deepEqual(
    (await h.request({ method: 'GET', url: '/v1/loan-applications?customerId=1001', as: 'clerk' })).json().items,
    own.json().items,
  );
  const all = await walk(h, '/v1/loan-applications', 'clerk', 2);
  assert.deepEqual(
    all.items.map((l) => l['loanId']),
    ids(null),
  );
  assert.equal(all.pages, 3);
  assert.deepEqual(
    (await h.request({ method: 'GET', url: '/v1/loan-applications?status=REJECTED', as: 'clerk' }))
      .json()
      .items.map((l: Item) => l['loanId']),
    ids(null, 'REJECTED'),
  );
  assert.deepEqual(
    (await h.request({ method: 'GET', url: '/v1/loan-applications?status=APPROVED', as: 'alan' }))
      .json()
      .items.map((l: Item) => l['loanId']),
    ids('1002', 'APPROVED'),
  );

  // another customer's applications, or a customer who is not there: 404
  for (const [as, customerId] of [
    ['ada', '1002'],
    ['alan', '1001'],
    ['clerk', '9999'],
    ['ada', '9999'],
  ] as const) {
    const res = await h.request({ method: 'GET', url: `/v1/loan-applications?customerId=${customerId}`, as });
    assertProblem(res, 404, 'NOT_FOUND');
    assert.doesNotMatch(res.body, /LN-|"approvedAmount"/);
  }
  await assertPartnerRefused(h, '/v1/loan-applications?customerId=1001');
  await assertQueryRefused(h, '/v1/loan-applications?customerId=abc', 'clerk', '/customerId');
  await assertQueryRefused(h, '/v1/loan-applications?customerId=12345678901', 'clerk', '/customerId');
  await assertQueryRefused(h, '/v1/loan-applications?status=PENDING', 'ada', '/status');
  await assertPagingRefused(h, '/v1/loan-applications', 'ada', Buffer.from('o1:1').toString('base64url'));
});
