/**
 * Events: every state change raises its event in the same transaction, and the events feed shows
 * them as CloudEvents in commit order, to whoever may read the resource, with that role's field lists.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.ts';
import { feedWhen, readFeed } from '../helpers/events.ts';
import { queryStore } from '../helpers/backend-store.ts';
import { until } from '../../src/until.ts';

/** A UUIDv7 (RFC 9562): time-ordered, so the event rows' index grows at its end. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

async function post(h: TestApp, url: string, as: string, body: unknown, headers: Record<string, string> = {}) {
  return h.request({ method: 'POST', url, as, body, headers });
}

test('every kind of change raises its event; the feed shows each once, in commit order, as the resource reads', async (t) => {
  const h = await startApp(t);
  const order = await post(h, '/v1/orders', 'ada', { customerId: '1001', productId: 'P-100', quantity: 1 });
  const rejectedOrder = await post(h, '/v1/orders', 'ada', { customerId: '1001', productId: 'P-300', quantity: 1 });
  const orderId = order.json().orderId;
  const updated = await h.request({
    method: 'PUT',
    url: `/v1/orders/${orderId}`,
    as: 'ada',
    body: { productId: 'P-100', quantity: 3 },
    headers: { 'if-match': '"1"' },
  });
  const cancelled = await h.request({ method: 'DELETE', url: `/v1/orders/${orderId}`, as: 'ada' });
  const paid = await post(
    h,
    '/v1/payments',
    'ada',
    { debtorAccount: '1001-01', creditorAccount: '1002-01', amount: 12.5, currency: 'EUR' },
    { 'idempotency-key': 'ev-1' },
  );
  const unpaid = await post(
    h,
    '/v1/payments',
    'alan',
    { debtorAccount: '1002-01', creditorAccount: '1001-01', amount: 999999, currency: 'EUR' },
    { 'idempotency-key': 'ev-2' },
  );
  const approved = await post(h, '/v1/loan-applications', 'ada', {
    customerId: '1001',
    amount: 1000,
    installments: 12,
  });
  const refused = await post(h, '/v1/loan-applications', 'grace', {
    customerId: '1003',
    amount: 1000,
    installments: 12,
  });
  const created = await post(h, '/v1/customers', 'clerk', { name: 'Mary Jackson', email: 'mary@example.com' });
  const customerId = created.json().customerId;
  const patched = await h.request({
    method: 'PATCH',
    url: `/v1/customers/${customerId}`,
    as: 'clerk',
    body: { phone: '+44 20 7946 0000' },
    headers: { 'content-type': 'application/merge-patch+json' },
  });
  assert.deepEqual(
    [order, rejectedOrder, updated, cancelled, paid, unpaid, approved, refused, created, patched].map(
      (r) => r.statusCode,
    ),
    [201, 200, 200, 200, 201, 200, 201, 200, 201, 200],
  );

  const events = await feedWhen(h, 'clerk', (e) => e.some((x) => x.type === 'CustomerUpdated'));
  assert.deepEqual(
    events.map((e) => e.type),
    [
      'OrderConfirmed',
      'OrderRejected',
      'OrderUpdated',
      'OrderCancelled',
      'PaymentCompleted',
      'PaymentRejected',
      'LoanApproved',
      'LoanRejected',
      'CustomerCreated',
      'CustomerUpdated',
    ],
  );
  // Commit order: sequences strictly increasing; ids unique UUIDv7s, made in the same order.
  assert.deepEqual(
    events.map((e) => e.sequence),
    [...events.map((e) => e.sequence)].sort(),
  );
  assert.equal(new Set(events.map((e) => e.sequence)).size, events.length);
  assert.equal(new Set(events.map((e) => e.id)).size, events.length);
  assert.deepEqual(
    events.map((e) => e.id),
    [...events.map((e) => e.id)].sort(),
  );

  const responses = [order, rejectedOrder, updated, cancelled, paid, unpaid, approved, refused, created, patched];
  events.forEach((event, i) => {
    const res = responses[i]!;
    assert.equal(event.specversion, '1.0');
    assert.match(event.id, UUID);
    assert.equal(event.datacontenttype, 'application/json');
    assert.equal(event.correlationid, res.headers['x-request-id'], `${event.type} carries its request's id`);
    assert.match(event.time, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    assert.match(event.sequence, /^[0-9]{15}$/);
    // data is the resource as the agent's answer showed it at that moment
    assert.deepEqual(event.data, res.json(), `${event.type} data`);
  });
  assert.deepEqual(
    events.map((e) => `${e.source}/${e.subject}`),
    [
      ...Array(4)
        .fill(null)
        .map((_, i) => `/v1/orders/${i === 1 ? rejectedOrder.json().orderId : orderId}`),
      `/v1/payments/${paid.json().paymentId}`,
      `/v1/payments/${unpaid.json().paymentId}`,
      `/v1/loan-applications/${approved.json().loanId}`,
      `/v1/loan-applications/${refused.json().loanId}`,
      `/v1/customers/${customerId}`,
      `/v1/customers/${customerId}`,
    ],
  );
  // The resources' own paths answer for them.
  const read = await h.request({ method: 'GET', url: `${events[6]!.source}/${events[6]!.subject}`, as: 'clerk' });
  assert.deepEqual(read.json(), events[6]!.data);
});

test('no event for a replay or a refused change; none lost or doubled under concurrent writes', async (t) => {
  const h = await startApp(t);
  const pay = (key: string, debtor = '1001-01') =>
    post(
      h,
      '/v1/payments',
      'clerk',
      { debtorAccount: debtor, creditorAccount: '1002-01', amount: 1, currency: 'EUR' },
      { 'idempotency-key': key },
    );
  assert.equal((await pay('same')).statusCode, 201);
  assert.equal((await pay('same')).statusCode, 201, 'replayed');
  assert.equal((await pay('unknown-debtor', '9999-01')).statusCode, 404);
  assert.equal(
    (
      await h.request({
        method: 'PUT',
        url: '/v1/orders/ORD-0000000000000000',
        as: 'clerk',
        body: { productId: 'P-100', quantity: 1 },
        headers: { 'if-match': '*' },
      })
    ).statusCode,
    404,
  );
  const results = await Promise.all(Array.from({ length: 40 }, (_, i) => pay(`burst-${i}`)));
  assert.ok(results.every((r) => r.statusCode === 201));
  const events = await feedWhen(h, 'clerk', (e) => e.length >= 41);
  await new Promise((r) => setTimeout(r, 300));
  const final = await readFeed(h, 'clerk');
  assert.equal(final.length, 41, 'one event per payment made, none for the replay or the refusals');
  assert.deepEqual(
    new Set(final.map((e) => e.subject)),
    new Set([...results.map((r) => r.json().paymentId), events[0]!.subject]),
  );
  const rows = await queryStore(
    h,
    'SELECT COUNT(*) AS n, COUNT(position) AS positioned, COUNT(DISTINCT position) AS distinct_positions FROM events',
  );
  assert.deepEqual({ ...rows[0] }, { n: 41, positioned: 41, distinct_positions: 41 });
  // Without a broker, the relay counts what it has handed on as published: its mark reaches the last event.
  await until(
    'the relay marks every event published',
    async () => {
      const [mark] = await queryStore(
        h,
        'SELECT published_through AS through, (SELECT MAX(position) FROM events) AS last FROM event_relay WHERE id = 1',
      );
      return Number(mark?.['through']) === Number(mark?.['last']);
    },
    5000,
  );
});

test('the feed pages with a cursor, filters by type, and refuses a cursor it did not issue', async (t) => {
  const h = await startApp(t);
  for (let i = 0; i < 5; i++)
    await post(h, '/v1/orders', 'ada', { customerId: '1001', productId: 'P-100', quantity: 1 });
  await post(h, '/v1/orders', 'ada', { customerId: '1001', productId: 'P-300', quantity: 1 });
  const all = await feedWhen(h, 'ada', (e) => e.length === 6);
  const paged = await readFeed(h, 'ada', '', 2);
  assert.deepEqual(
    paged.map((e) => e.id),
    all.map((e) => e.id),
    'pages of 2 give the same events, once each, in order',
  );

  const first = (await h.request({ method: 'GET', url: '/v1/events?limit=2', as: 'ada' })).json();
  assert.equal(first.items.length, 2);
  assert.equal(first.hasMore, true);
  const last = (await h.request({ method: 'GET', url: `/v1/events?cursor=${await lastCursor(h)}`, as: 'ada' })).json();
  assert.deepEqual(last.items, []);
  assert.equal(last.hasMore, false);
  assert.equal(typeof last.nextCursor, 'string', 'an empty page still gives the cursor to poll from');

  const rejected = await readFeed(h, 'ada', '&type=OrderRejected');
  assert.deepEqual(
    rejected.map((e) => e.type),
    ['OrderRejected'],
  );

  for (const query of ['cursor=bm90LWEtY3Vyc29y', 'type=OrderShipped', 'limit=0', 'limit=101', 'colour=blue']) {
    const res = await h.request({ method: 'GET', url: `/v1/events?${query}`, as: 'ada' });
    assert.equal(res.statusCode, 400, query);
    assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
  }
});

test('the feed pages with cursor/nextCursor like every list; `after` is still read, with a Deprecation header', async (t) => {
  const h = await startApp(t);
  for (const quantity of [1, 2, 3]) {
    await post(h, '/v1/orders', 'ada', { customerId: '1001', productId: 'P-100', quantity });
  }
  await feedWhen(h, 'ada', (e) => e.length === 3);
  const first = await h.request({ method: 'GET', url: '/v1/events?limit=1', as: 'ada' });
  const next = first.json().nextCursor;
  const byCursor = await h.request({ method: 'GET', url: `/v1/events?limit=1&cursor=${next}`, as: 'ada' });
  assert.equal(byCursor.statusCode, 200);
  assert.equal(byCursor.headers['deprecation'], undefined, 'cursor is the current name');
  assert.notEqual(byCursor.json().items[0].id, first.json().items[0].id, 'cursor reads on from the first page');

  const byAfter = await h.request({ method: 'GET', url: `/v1/events?limit=1&after=${next}`, as: 'ada' });
  assert.equal(byAfter.statusCode, 200);
  assert.deepEqual(byAfter.json().items, byCursor.json().items, 'after is the same position as cursor');
  assert.match(String(byAfter.headers['deprecation']), /^@[0-9]+$/, 'RFC 9745 Deprecation on answers that used after');

  const both = await h.request({ method: 'GET', url: `/v1/events?cursor=${next}&after=${next}`, as: 'ada' });
  assert.equal(both.statusCode, 400);
  assert.deepEqual(
    both.json().errors.map((e: { in: string; pointer: string }) => `${e.in}:${e.pointer}`),
    ['query:/after'],
  );
  const badAfter = await h.request({ method: 'GET', url: '/v1/events?after=bm90LWEtY3Vyc29y', as: 'ada' });
  assert.equal(badAfter.statusCode, 400);
  assert.equal(badAfter.json().errors[0].pointer, '/after', 'a bad alias is named as the client sent it');
});

async function lastCursor(h: TestApp): Promise<string> {
  let body = (await h.request({ method: 'GET', url: '/v1/events?limit=100', as: 'ada' })).json();
  while (body.hasMore)
    body = (
      await h.request({ method: 'GET', url: `/v1/events?limit=100&cursor=${body.nextCursor}`, as: 'ada' })
    ).json();
  return body.nextCursor;
}

test('visibility: a customer reads their own events, a partner those of its orders and onboarded customers, with their field lists', async (t) => {
  const h = await startApp(t);
  const adaOrder = (await post(h, '/v1/orders', 'ada', { customerId: '1001', productId: 'P-100', quantity: 1 })).json();
  const onboarded = (
    await post(h, '/v1/customers', 'acme-shop', { name: 'Katherine Johnson', email: 'kj@example.com' })
  ).json();
  const partnerOrder = (
    await post(h, '/v1/orders', 'acme-shop', { customerId: onboarded.customerId, productId: 'P-100', quantity: 1 })
  ).json();
  const clerkCustomer = (
    await post(h, '/v1/customers', 'clerk', { name: 'Dorothy Vaughan', email: 'dv@example.com' })
  ).json();
  const alanPayment = (
    await post(
      h,
      '/v1/payments',
      'alan',
      { debtorAccount: '1002-01', creditorAccount: '1001-01', amount: 1, currency: 'EUR' },
      { 'idempotency-key': 'v-1' },
    )
  ).json();
  await feedWhen(h, 'clerk', (e) => e.length === 5);

  const ada = await readFeed(h, 'ada');
  assert.deepEqual(
    ada.map((e) => e.subject),
    [adaOrder.orderId],
    'ada: her order only (not the payment alan sent her)',
  );
  const alan = await readFeed(h, 'alan');
  assert.deepEqual(
    alan.map((e) => e.subject),
    [alanPayment.paymentId],
  );

  const partner = await readFeed(h, 'acme-shop');
  assert.deepEqual(
    partner.map((e) => `${e.type} ${e.subject}`),
    [`CustomerCreated ${onboarded.customerId}`, `OrderConfirmed ${partnerOrder.orderId}`],
  );
  // the partner's field list for customers: id and name only
  assert.deepEqual(partner[0]!.data, { customerId: onboarded.customerId, name: 'Katherine Johnson' });

  const clerk = await readFeed(h, 'clerk');
  assert.ok(clerk.some((e) => e.subject === clerkCustomer.customerId));
  const agentView = clerk.find((e) => e.type === 'CustomerCreated' && e.subject === onboarded.customerId)!;
  assert.equal(agentView.data['riskRating'], 'C', 'agents get the agent field list');

  // another customer's token cannot widen its view with a type filter or a cursor
  assert.deepEqual(await readFeed(h, 'grace', '&type=OrderConfirmed'), []);
});
