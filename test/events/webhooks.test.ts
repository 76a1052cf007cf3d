/**
 * Webhooks against a real HTTP receiver on this machine: Standard Webhooks signatures that the
 * standardwebhooks package verifies, retries with the same webhook-id, 410, failure and redelivery, a
 * restart during retries, who receives what, and the outbound guard at registration.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { ROLE_SCOPES } from '../../src/auth/roles.ts';
import { startApp, type TestApp } from '../helpers/app.ts';
import { until } from '../../src/until.ts';
import { startReceiver } from '../helpers/webhook-receiver.ts';

const FAST_RETRIES = { WEBHOOK_RETRY_SCHEDULE: '200ms,200ms,200ms' };

async function subscribe(h: TestApp, as: string | { token: string }, url: string, eventTypes: string[]) {
  const res = await h.request({
    method: 'POST',
    url: '/v1/webhook-subscriptions',
    ...(typeof as === 'string' ? { as } : as),
    body: { url, eventTypes, description: 'test' },
  });
  assert.equal(res.statusCode, 201, res.body);
  return res;
}

async function order(h: TestApp, as: string | { token: string }, customerId = '1001') {
  const res = await h.request({
    method: 'POST',
    url: '/v1/orders',
    ...(typeof as === 'string' ? { as } : as),
    body: { customerId, productId: 'P-100', quantity: 1 },
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json();
}

async function deliveries(h: TestApp, as: string, subscriptionId: string) {
  return (await h.request({ method: 'GET', url: `/v1/webhook-subscriptions/${subscriptionId}/deliveries`, as })).json()
    .items;
}

test('a delivery is a signed CloudEvent that standardwebhooks verifies; the secret is shown once', async (t) => {
  const receiver = await startReceiver(t);
  const h = await startApp(t, receiver.env);
  const created = await subscribe(h, 'clerk', receiver.url, ['OrderConfirmed', 'PaymentCompleted']);
  const sub = created.json();
  assert.match(sub.secret, /^whsec_[A-Za-z0-9+/]{32}$/);
  assert.equal(created.headers['location'], `/v1/webhook-subscriptions/${sub.subscriptionId}`);
  assert.deepEqual(
    { ...sub, secret: undefined, createdAt: undefined },
    {
      subscriptionId: sub.subscriptionId,
      url: receiver.url,
      eventTypes: ['OrderConfirmed', 'PaymentCompleted'],
      description: 'test',
      status: 'active',
      secret: undefined,
      createdAt: undefined,
    },
  );
  const read = await h.request({ method: 'GET', url: `/v1/webhook-subscriptions/${sub.subscriptionId}`, as: 'clerk' });
  assert.equal(read.json().secret, undefined, 'never shown again');
  assert.ok(!read.body.includes(sub.secret));
  const listed = await h.request({ method: 'GET', url: '/v1/webhook-subscriptions', as: 'clerk' });
  assert.ok(!listed.body.includes(sub.secret));
  assert.deepEqual(
    listed.json().items.map((s: { subscriptionId: string }) => s.subscriptionId),
    [sub.subscriptionId],
  );

  const placed = await order(h, 'ada');
  await h.request({
    method: 'POST',
    url: '/v1/orders',
    as: 'ada',
    body: { customerId: '1001', productId: 'P-300', quantity: 1 },
  }); // OrderRejected: not subscribed
  await until('the order delivered', () => receiver.received.length >= 1);
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(receiver.received.length, 1, 'only the subscribed type');
  const [hit] = receiver.received;
  const event = new Webhook(sub.secret).verify(hit!.body, hit!.headers as Record<string, string>) as Record<
    string,
    unknown
  >;
  assert.equal(event['type'], 'OrderConfirmed');
  assert.equal(event['subject'], placed.orderId);
  assert.equal(hit!.headers['webhook-id'], event['id']);
  assert.equal(hit!.headers['content-type'], 'application/json');
  assert.deepEqual(event['data'], placed, 'the order as the API shows it');
  assert.throws(
    () =>
      new Webhook(`whsec_${Buffer.alloc(24, 1).toString('base64')}`).verify(
        hit!.body,
        hit!.headers as Record<string, string>,
      ),
    'another secret does not verify',
  );

  await until(
    'the delivery recorded',
    async () => (await deliveries(h, 'clerk', sub.subscriptionId))[0]?.state === 'succeeded',
  );
  const [d] = await deliveries(h, 'clerk', sub.subscriptionId);
  assert.deepEqual(
    { ...d, deliveryId: undefined, createdAt: undefined, updatedAt: undefined },
    {
      deliveryId: undefined,
      eventId: event['id'],
      eventType: 'OrderConfirmed',
      state: 'succeeded',
      attempts: 1,
      lastStatusCode: 204,
      lastError: null,
      nextAttemptAt: null,
      createdAt: undefined,
      updatedAt: undefined,
    },
  );
});

test('a Retry-After shorter than the schedule does not hasten the next attempt', async (t) => {
  const receiver = await startReceiver(t);
  const h = await startApp(t, { ...receiver.env, WEBHOOK_RETRY_SCHEDULE: '3s,3s' });
  const sub = (await subscribe(h, 'clerk', receiver.url, ['OrderConfirmed'])).json();
  receiver.answers.push({ status: 500, headers: { 'retry-after': '1' } });
  await order(h, 'ada');
  let first = (await deliveries(h, 'clerk', sub.subscriptionId))[0];
  await until('the 500 recorded', async () => {
    first = (await deliveries(h, 'clerk', sub.subscriptionId))[0];
    return first?.attempts === 1;
  });
  // nextAttemptAt is set when the answer comes, updatedAt a few milliseconds later when it is stored, so the
  // difference may fall just short of the schedule's lowest 2.4 s; it stays far above Retry-After's 1 s.
  const wait = Date.parse(first.nextAttemptAt) - Date.parse(first.updatedAt);
  assert.ok(wait >= 2000, `the schedule's 3 s (±20 %) stands over Retry-After: 1 (${wait} ms)`);
  assert.equal(first.state, 'pending');
});

test('after 500s and refused connections the same webhook-id arrives again, until it is taken', async (t) => {
  const receiver = await startReceiver(t);
  const h = await startApp(t, { ...receiver.env, WEBHOOK_RETRY_SCHEDULE: '200ms,200ms,200ms,200ms,200ms' });
  const sub = (await subscribe(h, 'clerk', receiver.url, ['OrderConfirmed'])).json();
  receiver.answers.push({ status: 500 }, { status: 503, headers: { 'retry-after': '2' } });
  await order(h, 'ada');
  await until('two failed attempts', () => receiver.received.length >= 2);
  // Stopped only once the 503 is recorded: a receiver stopped as the request arrives may never send its answer.
  let afterBusy = (await deliveries(h, 'clerk', sub.subscriptionId))[0];
  await until('the 503 recorded', async () => {
    afterBusy = (await deliveries(h, 'clerk', sub.subscriptionId))[0];
    return afterBusy?.attempts === 2;
  });
  await receiver.stop();
  assert.equal(afterBusy.lastStatusCode, 503);
  const wait = Date.parse(afterBusy.nextAttemptAt) - Date.parse(afterBusy.updatedAt);
  assert.ok(wait >= 1900 && wait <= 2100, `Retry-After: 2 honoured over the 200 ms of the schedule (${wait} ms)`);
  await until('an attempt refused', async () => (await deliveries(h, 'clerk', sub.subscriptionId))[0]?.attempts === 3);
  const refused = (await deliveries(h, 'clerk', sub.subscriptionId))[0];
  assert.equal(refused.state, 'pending');
  assert.equal(refused.lastStatusCode, null);
  assert.match(refused.lastError, /could not connect/);
  await receiver.listen();
  await until('delivered', async () => (await deliveries(h, 'clerk', sub.subscriptionId))[0]?.state === 'succeeded');
  const ids = receiver.received.map((r) => r.headers['webhook-id']);
  assert.equal(ids.length, 3, 'two refused by status, one taken (the refused connection never arrived)');
  assert.equal(new Set(ids).size, 1, 'the same webhook-id on every attempt');
  const d = (await deliveries(h, 'clerk', sub.subscriptionId))[0];
  assert.equal(d.attempts, 4);
  assert.equal(d.lastStatusCode, 204);
});

test('410 disables the subscription; a delivery that runs out of attempts fails and can be redelivered', async (t) => {
  const receiver = await startReceiver(t);
  const h = await startApp(t, { ...receiver.env, ...FAST_RETRIES });
  const gone = (await subscribe(h, 'clerk', `${receiver.url}/gone`, ['OrderConfirmed'])).json();
  receiver.answers.push({ status: 410 });
  await order(h, 'ada');
  await until(
    'disabled',
    async () =>
      (await h.request({ method: 'GET', url: `/v1/webhook-subscriptions/${gone.subscriptionId}`, as: 'clerk' })).json()
        .status === 'disabled',
  );
  const disabled = (
    await h.request({ method: 'GET', url: `/v1/webhook-subscriptions/${gone.subscriptionId}`, as: 'clerk' })
  ).json();
  assert.equal(disabled.disabledReason, 'ENDPOINT_GONE');
  assert.equal((await deliveries(h, 'clerk', gone.subscriptionId))[0].state, 'failed');
  await order(h, 'ada');
  await new Promise((r) => setTimeout(r, 500));
  assert.equal(receiver.received.length, 1, 'a disabled subscription receives nothing more');
  assert.equal((await deliveries(h, 'clerk', gone.subscriptionId)).length, 1);

  const failing = (await subscribe(h, 'clerk', receiver.url, ['OrderCancelled'])).json();
  receiver.otherwise = { status: 500 };
  const o = await order(h, 'ada');
  await h.request({ method: 'DELETE', url: `/v1/orders/${o.orderId}`, as: 'ada' });
  await until(
    'failed for good',
    async () => (await deliveries(h, 'clerk', failing.subscriptionId))[0]?.state === 'failed',
  );
  const failed = (await deliveries(h, 'clerk', failing.subscriptionId))[0];
  assert.equal(failed.attempts, 4, 'the first attempt and the three of the schedule');
  assert.equal(failed.lastStatusCode, 500);
  assert.equal(failed.nextAttemptAt, null);

  receiver.otherwise = { status: 200 };
  const before = receiver.received.length;
  const retry = await h.request({
    method: 'POST',
    url: `/v1/webhook-subscriptions/${failing.subscriptionId}/deliveries/${failed.deliveryId}/retry`,
    as: 'clerk',
  });
  assert.equal(retry.statusCode, 202);
  assert.equal(retry.json().state, 'pending');
  await until(
    'redelivered',
    async () => (await deliveries(h, 'clerk', failing.subscriptionId))[0]?.state === 'succeeded',
  );
  assert.equal(receiver.received.at(-1)!.headers['webhook-id'], failed.eventId);
  assert.equal(receiver.received.length, before + 1);
  const refusedRetry = await h.request({
    method: 'POST',
    url: `/v1/webhook-subscriptions/${gone.subscriptionId}/deliveries/${(await deliveries(h, 'clerk', gone.subscriptionId))[0].deliveryId}/retry`,
    as: 'clerk',
  });
  assert.equal(refusedRetry.statusCode, 409, 'not for a disabled subscription');
});

test('a restart during retries loses no delivery and tries none early', async (t) => {
  const receiver = await startReceiver(t);
  const h = await startApp(t, { ...receiver.env, WEBHOOK_RETRY_SCHEDULE: '3s,3s' });
  const sub = (await subscribe(h, 'clerk', receiver.url, ['PaymentCompleted'])).json();
  receiver.answers.push({ status: 500 });
  const paid = await h.request({
    method: 'POST',
    url: '/v1/payments',
    as: 'ada',
    headers: { 'idempotency-key': 'restart-1' },
    body: { debtorAccount: '1001-01', creditorAccount: '1002-01', amount: 1, currency: 'EUR' },
  });
  assert.equal(paid.statusCode, 201);
  await until(
    'the first attempt failed',
    async () => (await deliveries(h, 'clerk', sub.subscriptionId))[0]?.attempts === 1,
  );
  const failedAt = receiver.received[0]!.at;
  const due = Date.parse((await deliveries(h, 'clerk', sub.subscriptionId))[0].nextAttemptAt);
  await h.restart();
  await until(
    'delivered after the restart',
    async () => (await deliveries(h, 'clerk', sub.subscriptionId))[0]?.state === 'succeeded',
  );
  assert.equal(receiver.received.length, 2);
  assert.equal(receiver.received[1]!.headers['webhook-id'], receiver.received[0]!.headers['webhook-id']);
  assert.ok(
    receiver.received[1]!.at >= due,
    `not before it was due (${receiver.received[1]!.at - failedAt} ms after the failure)`,
  );
});

test("a partner's subscription receives only its own orders' and customers' events; customers cannot subscribe", async (t) => {
  const receiver = await startReceiver(t);
  const h = await startApp(t, receiver.env);
  const other = {
    token: await h.app.devIssuer.sign({
      subject: 'globex',
      role: 'partner',
      clientId: 'globex',
      scopes: ROLE_SCOPES.partner,
    }),
  };
  // A partner never receives payment or loan events, so it cannot subscribe to them (webhook-subscriptions.test.ts).
  const types = ['OrderConfirmed', 'CustomerCreated'];
  const acmeSub = (await subscribe(h, 'acme-shop', `${receiver.url}/acme`, types)).json();
  await subscribe(h, other, `${receiver.url}/globex`, types);
  // A partner orders for its own customers: acme-shop's linked 1001, and one globex onboards.
  const acmeOrder = await order(h, 'acme-shop', '1001');
  const globexCustomer = (
    await h.request({
      method: 'POST',
      url: '/v1/customers',
      ...other,
      body: { name: 'Dorothy Vaughan', email: 'dv@example.com' },
    })
  ).json();
  const globexOrder = await order(h, other, globexCustomer.customerId);
  await order(h, 'ada'); // a customer's own order
  const onboarded = (
    await h.request({
      method: 'POST',
      url: '/v1/customers',
      as: 'acme-shop',
      body: { name: 'Katherine Johnson', email: 'kj@example.com' },
    })
  ).json();
  await h.request({
    method: 'POST',
    url: '/v1/payments',
    as: 'ada',
    headers: { 'idempotency-key': 'vis-1' },
    body: { debtorAccount: '1001-01', creditorAccount: '1002-01', amount: 1, currency: 'EUR' },
  });
  await h.request({
    method: 'POST',
    url: '/v1/loan-applications',
    as: 'ada',
    body: { customerId: '1001', amount: 1000, installments: 12 },
  });
  await until('both partners served', () => receiver.received.length >= 4);
  await new Promise((r) => setTimeout(r, 500));
  const to = (path: string) =>
    receiver.received
      .filter((r) => r.path === path)
      .map((r) => JSON.parse(r.body) as { type: string; subject: string; data: Record<string, unknown> });
  assert.deepEqual(
    to('/hooks/acme')
      .map((e) => `${e.type} ${e.subject}`)
      .sort(),
    [`CustomerCreated ${onboarded.customerId}`, `OrderConfirmed ${acmeOrder.orderId}`].sort(),
  );
  assert.deepEqual(
    to('/hooks/globex')
      .map((e) => `${e.type} ${e.subject}`)
      .sort(),
    [`CustomerCreated ${globexCustomer.customerId}`, `OrderConfirmed ${globexOrder.orderId}`].sort(),
  );
  const customerEvent = to('/hooks/acme').find((e) => e.type === 'CustomerCreated')!;
  assert.deepEqual(
    customerEvent.data,
    { customerId: onboarded.customerId, name: 'Katherine Johnson' },
    "the partner's field list",
  );
  assert.equal((await deliveries(h, 'acme-shop', acmeSub.subscriptionId)).length, 2);

  const byCustomer = await h.request({
    method: 'POST',
    url: '/v1/webhook-subscriptions',
    as: 'ada',
    body: { url: receiver.url, eventTypes: ['OrderConfirmed'] },
  });
  assert.equal(byCustomer.statusCode, 403);
});

test('loopback, private and plain-http URLs are refused at registration unless allowed, naming the reason', async (t) => {
  const h = await startApp(t);
  const cases: Array<[string, RegExp]> = [
    ['http://127.0.0.1:8080/hooks', /scheme_not_allowed/],
    ['https://127.0.0.1/hooks', /address_not_allowed/],
    ['https://localhost/hooks', /address_not_allowed/],
    ['https://10.1.2.3/hooks', /address_not_allowed/],
    ['https://169.254.169.254/latest/meta-data', /address_not_allowed/],
    ['https://[::1]/hooks', /address_not_allowed/],
    ['https://user:pass@hooks.example.com/x', /userinfo_not_allowed/],
    ['https://0x7f000001/hooks', /address_not_allowed/],
  ];
  for (const [url, reason] of cases) {
    const res = await h.request({
      method: 'POST',
      url: '/v1/webhook-subscriptions',
      as: 'clerk',
      body: { url, eventTypes: ['OrderConfirmed'] },
    });
    assert.equal(res.statusCode, 400, url);
    assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
    assert.match(res.json().detail, reason, url);
    assert.equal(res.json().errors[0].pointer, '/url');
  }
  const bad = await h.request({
    method: 'POST',
    url: '/v1/webhook-subscriptions',
    as: 'clerk',
    body: { url: 'https://hooks.example.com', eventTypes: ['OrderShipped'] },
  });
  assert.equal(bad.statusCode, 400);
  assert.equal(
    (await h.request({ method: 'GET', url: '/v1/webhook-subscriptions', as: 'clerk' })).json().items.length,
    0,
    'nothing stored',
  );
});

test('a slow endpoint holds up no other: attempts in flight are limited per subscription', async (t) => {
  const slow = await startReceiver(t, '/slow');
  const fast = await startReceiver(t, '/fast');
  const h = await startApp(t, {
    ...slow.env,
    WEBHOOK_ALLOWED_PORTS: `${slow.port},${fast.port}`,
    WEBHOOK_CONCURRENCY_PER_ENDPOINT: '1',
  });
  slow.otherwise = { status: 204, delayMs: 3000 };
  await subscribe(h, 'clerk', slow.url, ['OrderConfirmed']);
  await subscribe(h, 'clerk', fast.url, ['OrderConfirmed']);
  for (let i = 0; i < 3; i++) await order(h, 'ada');
  await until('the fast endpoint has all three', () => fast.received.length === 3, 2500);
  assert.equal(slow.received.length, 1, 'the slow one has one attempt in flight, no more');
});
