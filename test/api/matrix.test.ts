/**
 * The object-level matrix (OWASP API1): every route of the route table × every role (a customer, another
 * customer, an agent, a partner) × the owner's object, another customer's object and a missing one. Nobody
 * reaches another customer's object (404, never 200 and never a 403 that reveals it exists), writes that are
 * refused change nothing, and a route added to the table without a row here fails this test.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ROUTES, type OperationId } from '../../src/api/route-table.ts';
import { startApp, type TestApp } from '../helpers/app.ts';

type Actor = 'owner' | 'otherCustomer' | 'agent' | 'partner';
const ACTORS: Record<Actor, string> = { owner: 'ada', otherCustomer: 'alan', agent: 'clerk', partner: 'acme-shop' };
type Target = 'own' | 'missing';

interface Ids {
  order: string;
  payment: string;
  loan: string;
  operation: string;
  subscription: string;
  delivery: string;
  /** The event of ada's order (getEvent only). */
  event?: string;
}
interface Call {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  url: string;
  body?: unknown;
  headers?: Record<string, string>;
}

let keyCounter = 0;
const key = () => ({ 'idempotency-key': `matrix-${++keyCounter}` });

/** How to call each route on ada's object (own) or on one that does not exist (missing). */
const CALLS: Record<OperationId, (ids: Ids, target: Target) => Call> = {
  createOrder: (_ids, t) => ({
    method: 'POST',
    url: '/v1/orders',
    body: { customerId: t === 'own' ? '1001' : '9999', productId: 'P-100', quantity: 1 },
  }),
  getOrder: (ids, t) => ({ method: 'GET', url: `/v1/orders/${t === 'own' ? ids.order : 'ORD-0000000000000000'}` }),
  listOrders: (_ids, t) => ({ method: 'GET', url: `/v1/orders?customerId=${t === 'own' ? '1001' : '9999'}` }),
  updateOrder: (ids, t) => ({
    method: 'PUT',
    url: `/v1/orders/${t === 'own' ? ids.order : 'ORD-0000000000000000'}`,
    body: { productId: 'P-100', quantity: 2 },
    headers: { 'if-match': '*' },
  }),
  cancelOrder: (ids, t) => ({
    method: 'DELETE',
    url: `/v1/orders/${t === 'own' ? ids.order : 'ORD-0000000000000000'}`,
  }),
  getCustomer: (_ids, t) => ({ method: 'GET', url: `/v1/customers/${t === 'own' ? '1001' : '9999'}` }),
  createCustomer: () => ({
    method: 'POST',
    url: '/v1/customers',
    body: { name: 'Mary Jackson', email: `mary.${++keyCounter}@example.com` },
  }),
  updateCustomer: (_ids, t) => ({
    method: 'PATCH',
    url: `/v1/customers/${t === 'own' ? '1001' : '9999'}`,
    body: { phone: '+44 1234 5678' },
    headers: { 'content-type': 'application/merge-patch+json' },
  }),
  getBalance: (_ids, t) => ({ method: 'GET', url: `/v1/accounts/${t === 'own' ? '1001-01' : '9999-01'}/balance` }),
  listCustomerAccounts: (_ids, t) => ({
    method: 'GET',
    url: `/v1/customers/${t === 'own' ? '1001' : '9999'}/accounts`,
  }),
  createPayment: (_ids, t) => ({
    method: 'POST',
    url: '/v1/payments',
    body: {
      debtorAccount: t === 'own' ? '1001-01' : '9999-01',
      creditorAccount: '1002-01',
      amount: 1,
      currency: 'EUR',
    },
    headers: key(),
  }),
  getPayment: (ids, t) => ({
    method: 'GET',
    url: `/v1/payments/${t === 'own' ? ids.payment : 'PAY-0000000000000000'}`,
  }),
  listPayments: (_ids, t) => ({ method: 'GET', url: `/v1/payments?accountId=${t === 'own' ? '1001-01' : '9999-01'}` }),
  createLoanApplication: (_ids, t) => ({
    method: 'POST',
    url: '/v1/loan-applications',
    body: { customerId: t === 'own' ? 1001 : 9999, amount: 1000, installments: 12 },
  }),
  getLoanApplication: (ids, t) => ({
    method: 'GET',
    url: `/v1/loan-applications/${t === 'own' ? ids.loan : 'LN-0000000000000000'}`,
  }),
  listLoanApplications: (_ids, t) => ({
    method: 'GET',
    url: `/v1/loan-applications?customerId=${t === 'own' ? '1001' : '9999'}`,
  }),
  // missing: a cursor past every event
  createWebhookSubscription: () => ({
    method: 'POST',
    url: '/v1/webhook-subscriptions',
    // Not the fixture's URL: the owner's second subscription like its first is refused (SUBSCRIPTION_EXISTS).
    body: { url: `${HOOK_URL}/created`, eventTypes: ['OrderConfirmed'] },
  }),
  listWebhookSubscriptions: () => ({ method: 'GET', url: '/v1/webhook-subscriptions' }),
  getWebhookSubscription: (ids, t) => ({
    method: 'GET',
    url: `/v1/webhook-subscriptions/${t === 'own' ? ids.subscription : 'WHS-0000000000000000'}`,
  }),
  updateWebhookSubscription: (ids, t) => ({
    method: 'PATCH',
    url: `/v1/webhook-subscriptions/${t === 'own' ? ids.subscription : 'WHS-0000000000000000'}`,
    body: { description: 'matrix' },
    headers: { 'content-type': 'application/merge-patch+json' },
  }),
  deleteWebhookSubscription: (ids, t) => ({
    method: 'DELETE',
    url: `/v1/webhook-subscriptions/${t === 'own' ? ids.subscription : 'WHS-0000000000000000'}`,
  }),
  listWebhookDeliveries: (ids, t) => ({
    method: 'GET',
    url: `/v1/webhook-subscriptions/${t === 'own' ? ids.subscription : 'WHS-0000000000000000'}/deliveries`,
  }),
  getWebhookDelivery: (ids, t) => ({
    method: 'GET',
    url: `/v1/webhook-subscriptions/${ids.subscription}/deliveries/${t === 'own' ? ids.delivery : 'WHD-0000000000000000'}`,
  }),
  listWebhookDeliveryAttempts: (ids, t) => ({
    method: 'GET',
    url: `/v1/webhook-subscriptions/${ids.subscription}/deliveries/${t === 'own' ? ids.delivery : 'WHD-0000000000000000'}/attempts`,
  }),
  rotateWebhookSecret: (ids, t) => ({
    method: 'POST',
    url: `/v1/webhook-subscriptions/${t === 'own' ? ids.subscription : 'WHS-0000000000000000'}/rotate-secret`,
    body: {},
  }),
  retryWebhookDelivery: (ids, t) => ({
    method: 'POST',
    url: `/v1/webhook-subscriptions/${ids.subscription}/deliveries/${t === 'own' ? ids.delivery : 'WHD-0000000000000000'}/retry`,
  }),
  recoverWebhookSubscription: (ids, t) => ({
    method: 'POST',
    url: `/v1/webhook-subscriptions/${t === 'own' ? ids.subscription : 'WHS-0000000000000000'}/recover`,
    body: { since: '2026-01-01T00:00:00Z' },
  }),
  getOperation: (ids, t) => ({
    method: 'GET',
    url: `/v1/operations/${t === 'own' ? ids.operation : 'OP-0000000000000000'}`,
  }),
  listEvents: (_ids, t) => ({
    method: 'GET',
    url: `/v1/events?limit=100${t === 'own' ? '' : `&cursor=${Buffer.from('e1:999999999').toString('base64url')}`}`,
  }),
  getEvent: (ids, t) => ({
    method: 'GET',
    url: `/v1/events/${t === 'own' ? ids.event : '00000000-0000-4000-8000-000000000000'}`,
  }),
  sendWebhookTestEvent: (ids, t) => ({
    method: 'POST',
    url: `/v1/webhook-subscriptions/${t === 'own' ? ids.subscription : 'WHS-0000000000000000'}/test`,
  }),
};

/**
 * Expected status for ada's object by actor; `missing` is 404 for everyone the route admits. `role` means the
 * role may not use the route at all (403, the same for any object, so it reveals nothing).
 */
const OWN: Record<OperationId, Record<Actor, number | 'role'>> = {
  createOrder: { owner: 201, otherCustomer: 404, agent: 201, partner: 201 },
  getOrder: { owner: 200, otherCustomer: 404, agent: 200, partner: 404 },
  // a filter, not an object: everyone gets 200 with only what they may see (empty for others' customers)
  listOrders: { owner: 200, otherCustomer: 200, agent: 200, partner: 200 },
  updateOrder: { owner: 200, otherCustomer: 404, agent: 200, partner: 404 },
  cancelOrder: { owner: 200, otherCustomer: 404, agent: 200, partner: 404 },
  getCustomer: { owner: 200, otherCustomer: 404, agent: 200, partner: 200 },
  createCustomer: { owner: 'role', otherCustomer: 'role', agent: 201, partner: 201 },
  updateCustomer: { owner: 200, otherCustomer: 404, agent: 200, partner: 'role' },
  getBalance: { owner: 200, otherCustomer: 404, agent: 200, partner: 'role' },
  // lists of one customer's or account's objects: the customer or the account is the object (404 to others)
  listCustomerAccounts: { owner: 200, otherCustomer: 404, agent: 200, partner: 'role' },
  createPayment: { owner: 201, otherCustomer: 404, agent: 201, partner: 'role' },
  getPayment: { owner: 200, otherCustomer: 404, agent: 200, partner: 'role' },
  listPayments: { owner: 200, otherCustomer: 404, agent: 200, partner: 'role' },
  createLoanApplication: { owner: 201, otherCustomer: 404, agent: 201, partner: 'role' },
  getLoanApplication: { owner: 200, otherCustomer: 404, agent: 200, partner: 'role' },
  listLoanApplications: { owner: 200, otherCustomer: 404, agent: 200, partner: 'role' },
  // a filter too: everyone reads the events of what they may see
  listEvents: { owner: 200, otherCustomer: 200, agent: 200, partner: 200 },
  // the event of ada's order: the order's readers (ada placed it, so not the partner)
  getEvent: { owner: 200, otherCustomer: 404, agent: 200, partner: 404 },
  getOperation: { owner: 200, otherCustomer: 404, agent: 200, partner: 'role' },
  // Subscriptions are the partner's here (acme-shop made it): an agent does not reach another principal's either.
  createWebhookSubscription: { owner: 'role', otherCustomer: 'role', agent: 201, partner: 201 },
  listWebhookSubscriptions: { owner: 'role', otherCustomer: 'role', agent: 200, partner: 200 },
  getWebhookSubscription: { owner: 'role', otherCustomer: 'role', agent: 404, partner: 200 },
  updateWebhookSubscription: { owner: 'role', otherCustomer: 'role', agent: 404, partner: 200 },
  deleteWebhookSubscription: { owner: 'role', otherCustomer: 'role', agent: 404, partner: 204 },
  listWebhookDeliveries: { owner: 'role', otherCustomer: 'role', agent: 404, partner: 200 },
  getWebhookDelivery: { owner: 'role', otherCustomer: 'role', agent: 404, partner: 200 },
  listWebhookDeliveryAttempts: { owner: 'role', otherCustomer: 'role', agent: 404, partner: 200 },
  retryWebhookDelivery: { owner: 'role', otherCustomer: 'role', agent: 404, partner: 202 },
  rotateWebhookSecret: { owner: 'role', otherCustomer: 'role', agent: 404, partner: 200 },
  recoverWebhookSubscription: { owner: 'role', otherCustomer: 'role', agent: 404, partner: 202 },
  sendWebhookTestEvent: { owner: 'role', otherCustomer: 'role', agent: 404, partner: 202 },
};

/** A receiver that is not there (the discard port): deliveries fail and wait for their next attempt. */
const HOOK_URL = 'http://127.0.0.1:9/hooks';
const HOOK_ENV = { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOWED_CIDRS: '127.0.0.1/32', WEBHOOK_ALLOWED_PORTS: '9' };

async function fixtures(h: TestApp): Promise<Ids> {
  const order = await h.request({
    method: 'POST',
    url: '/v1/orders',
    as: 'ada',
    body: { customerId: '1001', productId: 'P-100', quantity: 1 },
  });
  // To grace: the other customer here (alan) is neither payer nor payee (a payee reads what it received).
  const payment = await h.request({
    method: 'POST',
    url: '/v1/payments',
    as: 'ada',
    headers: key(),
    body: { debtorAccount: '1001-01', creditorAccount: '1003-01', amount: 2, currency: 'EUR' },
  });
  const loan = await h.request({
    method: 'POST',
    url: '/v1/loan-applications',
    as: 'ada',
    body: { customerId: '1001', amount: 1000, installments: 12 },
  });
  assert.deepEqual([order.statusCode, payment.statusCode, loan.statusCode], [201, 201, 201]);
  const later = await h.request({
    method: 'POST',
    url: '/v1/loan-applications',
    as: 'ada',
    headers: { prefer: 'respond-async' },
    body: { customerId: '1001', amount: 1000, installments: 12 },
  });
  assert.equal(later.statusCode, 202);
  return {
    order: order.json().orderId,
    payment: payment.json().paymentId,
    loan: loan.json().loanId,
    operation: later.json().operationId,
    subscription: '',
    delivery: '',
  };
}

/** acme-shop's subscription, and its delivery of an order acme-shop placed. */
async function webhookFixtures(h: TestApp, ids: Ids): Promise<Ids> {
  const sub = await h.request({
    method: 'POST',
    url: '/v1/webhook-subscriptions',
    as: 'acme-shop',
    body: { url: HOOK_URL, eventTypes: ['OrderConfirmed'] },
  });
  assert.equal(sub.statusCode, 201, sub.body);
  const subscription = sub.json().subscriptionId;
  // 1001 is linked to acme-shop in the demo data (a partner orders only for its own customers).
  assert.equal(
    (
      await h.request({
        method: 'POST',
        url: '/v1/orders',
        as: 'acme-shop',
        body: { customerId: '1001', productId: 'P-100', quantity: 1 },
      })
    ).statusCode,
    201,
  );
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const [delivery] = (
      await h.request({ method: 'GET', url: `/v1/webhook-subscriptions/${subscription}/deliveries`, as: 'acme-shop' })
    ).json().items;
    if (delivery) return { ...ids, subscription, delivery: delivery.deliveryId };
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.fail('no delivery of the partner order within 10 s');
}

/** What a refused write could have changed: ada's order, balances, customer record. */
async function snapshot(h: TestApp, ids: Ids): Promise<string> {
  const parts = await Promise.all([
    h.request({ method: 'GET', url: `/v1/orders/${ids.order}`, as: 'clerk' }),
    h.request({ method: 'GET', url: '/v1/accounts/1001-01/balance', as: 'clerk' }),
    h.request({ method: 'GET', url: '/v1/accounts/1002-01/balance', as: 'clerk' }),
    h.request({ method: 'GET', url: '/v1/customers/1001', as: 'clerk' }),
    h.request({ method: 'GET', url: '/v1/orders?customerId=1001&limit=100', as: 'clerk' }),
  ]);
  return JSON.stringify(
    parts.map((p) => {
      const body = p.json();
      delete body.asOf;
      return body;
    }),
  );
}

/**
 * The partner's own customers are those it onboarded or is linked to (the demo data links acme-shop to ada,
 * 1001); a customer unrelated to it (alan, 1002) is as missing to it as to another customer.
 */
const UNRELATED_TO_PARTNER: Partial<Record<OperationId, Call>> = {
  createOrder: { method: 'POST', url: '/v1/orders', body: { customerId: '1002', productId: 'P-100', quantity: 1 } },
  getCustomer: { method: 'GET', url: '/v1/customers/1002' },
};

/** Collections filtered to what the caller may see: a filter that matches nothing is an empty 200, not a 404. */
const LISTS: readonly OperationId[] = ['listOrders', 'listEvents', 'listWebhookSubscriptions'];

async function eventually(h: TestApp, subject: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const feed = await h.request({ method: 'GET', url: '/v1/events?limit=100', as: 'clerk' });
    if (feed.json().items.some((e: { subject: string }) => e.subject === subject)) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.fail(`no event about ${subject} in the feed after 10 s`);
}

/** The id of the first event about `subject`, once the relay has given it a position. */
async function eventOf(h: TestApp, subject: string): Promise<string> {
  await eventually(h, subject);
  const feed = await h.request({ method: 'GET', url: '/v1/events?limit=100', as: 'clerk' });
  return feed.json().items.find((e: { subject: string }) => e.subject === subject).id;
}

test('every route of the route table has a matrix row', () => {
  assert.deepEqual(Object.keys(CALLS).sort(), Object.keys(ROUTES).sort());
  assert.deepEqual(Object.keys(OWN).sort(), Object.keys(ROUTES).sort());
});

for (const operation of Object.keys(ROUTES) as OperationId[]) {
  test(`object-level matrix: ${operation}`, async (t) => {
    const webhooks = operation.includes('Webhook');
    const h = await startApp(t, webhooks ? HOOK_ENV : {});
    const ids = webhooks ? await webhookFixtures(h, await fixtures(h)) : await fixtures(h);
    // The fixtures' events are in the feed once the relay has given them positions.
    if (operation === 'listEvents') await eventually(h, ids.loan);
    if (operation === 'getEvent') ids.event = await eventOf(h, ids.order);
    for (const actor of Object.keys(ACTORS) as Actor[]) {
      const expected = OWN[operation][actor];
      for (const target of ['own', 'missing'] as Target[]) {
        if (target === 'missing' && (operation === 'createCustomer' || operation === 'createWebhookSubscription'))
          continue;
        const call = CALLS[operation](ids, target);
        const before = await snapshot(h, ids);
        const res = await h.request({ ...call, as: ACTORS[actor] });
        const want = expected === 'role' ? 403 : target === 'missing' && !LISTS.includes(operation) ? 404 : expected;
        const where = `${operation} by ${actor} (${ACTORS[actor]}) on ${target}: ${res.body.slice(0, 200)}`;
        assert.equal(res.statusCode, want, where);
        if (res.statusCode >= 400) {
          assert.match(String(res.headers['content-type']), /application\/problem\+json/, where);
          if (call.method !== 'GET') assert.equal(await snapshot(h, ids), before, `refused ${where} changed state`);
        }
        if (operation === 'listOrders' && res.statusCode === 200) {
          for (const item of res.json().items) assert.equal(item.customerId, target === 'own' ? '1001' : '9999', where);
          if (actor === 'otherCustomer' || target === 'missing')
            assert.deepEqual(res.json().items, [], `orders listed that the caller may not see: ${where}`);
          if (actor === 'owner' || actor === 'agent')
            assert.ok(res.json().items.length > 0 || target === 'missing', where);
          if (actor === 'partner')
            assert.deepEqual(
              res.json().items.filter((o: { orderId: string }) => o.orderId === ids.order),
              [],
              `a partner listed an order it did not create: ${where}`,
            );
        }
        if (operation === 'listEvents' && res.statusCode === 200) {
          const subjects = res.json().items.map((e: { subject: string }) => e.subject);
          const adas = [ids.order, ids.payment, ids.loan];
          if (actor === 'otherCustomer' || actor === 'partner' || target === 'missing') {
            assert.deepEqual(
              subjects.filter((s: string) => adas.includes(s)),
              [],
              `events listed that the caller may not see: ${where}`,
            );
          } else {
            for (const id of adas) assert.ok(subjects.includes(id), `${id} missing: ${where}`);
          }
        }
        if (operation === 'listWebhookSubscriptions' && res.statusCode === 200) {
          const listed = res.json().items.map((s: { subscriptionId: string }) => s.subscriptionId);
          assert.equal(
            listed.includes(ids.subscription),
            actor === 'partner',
            `only its owner lists a subscription: ${where}`,
          );
        }
        if (operation === 'getCustomer' && res.statusCode === 200) assert.equal(res.json().customerId, '1001', where);
        if (operation === 'listCustomerAccounts' && res.statusCode === 200) {
          assert.deepEqual(
            res.json().items.map((a: { account: string }) => a.account),
            ['1001-01', '1001-02'],
            where,
          );
        }
        if (operation === 'listPayments' && res.statusCode === 200) {
          assert.ok(
            res.json().items.some((p: { paymentId: string }) => p.paymentId === ids.payment),
            where,
          );
        }
        if (operation === 'listLoanApplications' && res.statusCode === 200) {
          const loans = res.json().items as Array<{ loanId: string; customerId: string }>;
          assert.ok(loans.some((l) => l.loanId === ids.loan) && loans.every((l) => l.customerId === '1001'), where);
        }
      }
      const unrelated = UNRELATED_TO_PARTNER[operation];
      if (actor === 'partner' && unrelated) {
        const alansOrders = async () =>
          (await h.request({ method: 'GET', url: '/v1/orders?customerId=1002&limit=100', as: 'clerk' })).body;
        const before = await alansOrders();
        const res = await h.request({ ...unrelated, as: ACTORS.partner });
        assert.equal(
          res.statusCode,
          404,
          `${operation} by the partner on a customer not its own: ${res.body.slice(0, 200)}`,
        );
        assert.equal(await alansOrders(), before, 'a refused partner order was stored');
      }
    }
  });
}
