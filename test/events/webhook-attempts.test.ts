/**
 * A delivery's history against a real HTTP receiver on this machine: every attempt stored with its status or
 * error, duration, the first 1 KB of the answer and the next attempt; one delivery and its attempts read back,
 * never another owner's; the deliveries filtered by state and event type, with the cursor going on.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test, type TestContext } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { ROLE_SCOPES } from '../../src/auth/roles.ts';
import { until } from '../../src/until.ts';
import { startApp, type TestApp } from '../helpers/app.ts';
import { queryStore } from '../helpers/backend-store.ts';

interface Answer {
  status: number;
  body?: string;
  delayMs?: number;
  /** Writes the body and never ends it (the attempt must not wait for the rest). */
  endless?: boolean;
}

/** A receiver that answers with a body (test/helpers/webhook-receiver.ts answers without one). */
async function startBodyReceiver(t: TestContext) {
  const received: Array<{ headers: IncomingHttpHeaders; body: string }> = [];
  const answers: Answer[] = [];
  const state = { otherwise: { status: 204 } as Answer };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const answer = answers.shift() ?? state.otherwise;
      setTimeout(() => {
        res.writeHead(answer.status, { 'content-type': 'text/plain; charset=utf-8' });
        if (answer.endless) res.write(answer.body ?? '');
        else res.end(answer.body ?? '');
      }, answer.delayMs ?? 0);
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', () => done()));
  t.after(
    () =>
      new Promise<void>((done) => {
        server.close(() => done());
        server.closeAllConnections();
      }),
  );
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    answers,
    state,
    env: { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOWED_CIDRS: '127.0.0.1/32', WEBHOOK_ALLOWED_PORTS: String(port) },
  };
}

type As = string | { token: string };
const who = (as: As) => (typeof as === 'string' ? { as } : as);

async function get(h: TestApp, as: As, url: string) {
  return h.request({ method: 'GET', url, ...who(as) });
}

async function subscribe(h: TestApp, as: As, url: string, eventTypes: string[]) {
  const res = await h.request({
    method: 'POST',
    url: '/v1/webhook-subscriptions',
    ...who(as),
    body: { url, eventTypes },
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json() as { subscriptionId: string; secret: string };
}

async function order(h: TestApp, as: As, customerId = '1001') {
  const res = await h.request({
    method: 'POST',
    url: '/v1/orders',
    ...who(as),
    body: { customerId, productId: 'P-100', quantity: 1 },
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json() as { orderId: string };
}

async function partner(h: TestApp, subject: string) {
  return {
    token: await h.app.devIssuer.sign({ subject, role: 'partner', clientId: subject, scopes: ROLE_SCOPES.partner }),
  };
}

test('every attempt is stored: a 500 with a 5 KB body, then a 200; read back by its owner only', async (t) => {
  const receiver = await startBodyReceiver(t);
  const h = await startApp(t, { ...receiver.env, WEBHOOK_RETRY_SCHEDULE: '300ms,300ms' });
  const sub = await subscribe(h, 'acme-shop', receiver.url, ['OrderConfirmed']);
  // Control characters (an escape sequence, a NUL) are made safe; Latin-1 letters stay; the rest is never read.
  const big = `oops \u001b[31mred\u001b[0m\u0000 é ${'x'.repeat(5000)}`;
  receiver.answers.push({ status: 500, body: big, delayMs: 60 }, { status: 200, body: '{"ok":true}' });
  await order(h, 'acme-shop');

  const base = `/v1/webhook-subscriptions/${sub.subscriptionId}/deliveries`;
  let deliveryId = '';
  await until('delivered on the second attempt', async () => {
    const [d] = (await get(h, 'acme-shop', base)).json().items;
    deliveryId = d?.deliveryId ?? '';
    return d?.state === 'succeeded';
  });
  assert.equal(receiver.received.length, 2);
  const event = new Webhook(sub.secret).verify(
    receiver.received[1]!.body,
    receiver.received[1]!.headers as Record<string, string>,
  ) as { id: string };
  assert.equal(receiver.received[0]!.headers['webhook-id'], event.id, 'the same webhook-id on both');

  const one = await get(h, 'acme-shop', `${base}/${deliveryId}`);
  assert.equal(one.statusCode, 200, one.body);
  assert.deepEqual(
    { ...(one.json() as object), createdAt: undefined, updatedAt: undefined },
    {
      deliveryId,
      eventId: event.id,
      eventType: 'OrderConfirmed',
      state: 'succeeded',
      attempts: 2,
      lastStatusCode: 200,
      lastError: null,
      nextAttemptAt: null,
      createdAt: undefined,
      updatedAt: undefined,
    },
  );

  const listed = await get(h, 'acme-shop', `${base}/${deliveryId}/attempts`);
  assert.equal(listed.statusCode, 200, listed.body);
  const { items, nextCursor } = listed.json();
  assert.equal(nextCursor, null);
  assert.equal(items.length, 2);
  const [second, first] = items;
  const expectedPrefix = `oops ?[31mred?[0m? é ${'x'.repeat(1024 - 'oops ?[31mred?[0m? é '.length - 1)}`;
  assert.deepEqual(
    { ...first, attemptedAt: undefined, durationMs: undefined, nextAttemptAt: undefined },
    {
      attemptNumber: 1,
      attemptedAt: undefined,
      durationMs: undefined,
      statusCode: 500,
      error: 'the endpoint answered 500',
      responseBody: expectedPrefix,
      nextAttemptAt: undefined,
    },
  );
  // é is two bytes in UTF-8: 1024 bytes read are 1023 characters.
  assert.equal(Buffer.byteLength(first.responseBody), 1024);
  assert.ok(first.durationMs >= 60 && first.durationMs < 5000, `duration ${first.durationMs} ms`);
  assert.ok(Date.parse(first.nextAttemptAt) > Date.parse(first.attemptedAt), 'a next attempt was scheduled');
  assert.ok(Date.parse(second.attemptedAt) >= Date.parse(first.nextAttemptAt), 'tried again when it was due');
  assert.deepEqual(
    { ...second, attemptedAt: undefined, durationMs: undefined },
    {
      attemptNumber: 2,
      attemptedAt: undefined,
      durationMs: undefined,
      statusCode: 200,
      error: null,
      responseBody: '{"ok":true}',
      nextAttemptAt: null,
    },
  );
  assert.ok(Number.isInteger(second.durationMs) && second.durationMs >= 0);

  // Newest first, one per page.
  const page1 = (await get(h, 'acme-shop', `${base}/${deliveryId}/attempts?limit=1`)).json();
  assert.deepEqual(
    page1.items.map((a: { attemptNumber: number }) => a.attemptNumber),
    [2],
  );
  const page2 = (await get(h, 'acme-shop', `${base}/${deliveryId}/attempts?limit=1&cursor=${page1.nextCursor}`)).json();
  assert.deepEqual(
    page2.items.map((a: { attemptNumber: number }) => a.attemptNumber),
    [1],
  );
  assert.equal(page2.nextCursor, null);

  // Another partner reaches neither through acme's subscription nor through its own.
  const globex = await partner(h, 'globex');
  const globexSub = await subscribe(h, globex, receiver.url, ['OrderConfirmed']);
  for (const url of [
    `${base}/${deliveryId}`,
    `${base}/${deliveryId}/attempts`,
    `/v1/webhook-subscriptions/${globexSub.subscriptionId}/deliveries/${deliveryId}`,
    `/v1/webhook-subscriptions/${globexSub.subscriptionId}/deliveries/${deliveryId}/attempts`,
  ]) {
    const res = await get(h, globex, url);
    assert.equal(res.statusCode, 404, `${url}: ${res.body}`);
    assert.ok(!res.body.includes('oops'), 'nothing of the delivery shown');
  }
  const unknown = await get(h, 'acme-shop', `${base}/WHD-0000000000000000/attempts`);
  assert.equal(unknown.statusCode, 404);

  // Deleting the subscription takes its deliveries' attempts along.
  const stored = async () =>
    Number(
      (
        await queryStore(h, 'SELECT COUNT(*) AS n FROM webhook_delivery_attempts WHERE delivery_id = ?', deliveryId)
      )[0]!['n'],
    );
  assert.equal(await stored(), 2);
  const del = await h.request({
    method: 'DELETE',
    url: `/v1/webhook-subscriptions/${sub.subscriptionId}`,
    as: 'acme-shop',
  });
  assert.equal(del.statusCode, 204);
  assert.equal(await stored(), 0);
});

test('an answer whose body never ends is read for 1 KB and the attempt recorded at once', async (t) => {
  const receiver = await startBodyReceiver(t);
  const h = await startApp(t, { ...receiver.env, WEBHOOK_RETRY_SCHEDULE: '1h' });
  const sub = await subscribe(h, 'clerk', receiver.url, ['OrderConfirmed']);
  receiver.answers.push({ status: 503, body: 'y'.repeat(4096), endless: true });
  const started = Date.now();
  await order(h, 'ada');
  const base = `/v1/webhook-subscriptions/${sub.subscriptionId}/deliveries`;
  let d: { deliveryId: string; attempts: number } | undefined;
  await until('the attempt recorded', async () => {
    d = (await get(h, 'clerk', base)).json().items[0];
    return d?.attempts === 1;
  });
  assert.ok(Date.now() - started < 5000, 'well before the 10 s time-out');
  const [a] = (await get(h, 'clerk', `${base}/${d!.deliveryId}/attempts`)).json().items;
  assert.equal(a.statusCode, 503);
  assert.equal(a.responseBody, 'y'.repeat(1024));
  assert.ok(a.nextAttemptAt, 'tried again in an hour');
});

test('deliveries filter by state and event type; the cursor goes on under the filters', async (t) => {
  const receiver = await startBodyReceiver(t);
  const h = await startApp(t, { ...receiver.env, WEBHOOK_RETRY_SCHEDULE: '1h' });
  const sub = await subscribe(h, 'clerk', receiver.url, ['OrderConfirmed', 'OrderCancelled']);
  const base = `/v1/webhook-subscriptions/${sub.subscriptionId}/deliveries`;
  const list = async (query: string) => {
    const res = await get(h, 'clerk', `${base}?${query}`);
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as { items: Array<{ deliveryId: string; eventType: string; state: string }>; nextCursor: string };
  };
  // The first answer is a 500: that delivery stays pending (its next attempt in an hour).
  receiver.answers.push({ status: 500, body: 'down' });
  await order(h, 'ada');
  await until('the 500 recorded', () => receiver.received.length === 1);
  await until('pending after its first attempt', async () => (await list('')).items[0]?.state === 'pending');
  await new Promise((r) => setTimeout(r, 200));
  const { items: firstOnly } = await list('');
  assert.equal(firstOnly.length, 1);
  const pending = firstOnly[0]!.deliveryId;

  const second = await order(h, 'ada');
  await until('the second delivered', async () => (await list('state=succeeded')).items.length === 1);
  const cancel = await h.request({ method: 'DELETE', url: `/v1/orders/${second.orderId}`, as: 'ada' });
  assert.equal(cancel.statusCode, 200, cancel.body);
  await until('the cancellation delivered', async () => (await list('state=succeeded')).items.length === 2);

  const all = (await list('')).items;
  assert.deepEqual(
    all.map((d) => [d.eventType, d.state]),
    [
      ['OrderCancelled', 'succeeded'],
      ['OrderConfirmed', 'succeeded'],
      ['OrderConfirmed', 'pending'],
    ],
  );
  const ids = (items: Array<{ deliveryId: string }>) => items.map((d) => d.deliveryId);
  assert.deepEqual(ids((await list('state=pending')).items), [pending]);
  assert.deepEqual(ids((await list('state=succeeded')).items), [all[0]!.deliveryId, all[1]!.deliveryId]);
  assert.deepEqual(ids((await list('state=failed')).items), []);
  assert.deepEqual(ids((await list('eventType=OrderCancelled')).items), [all[0]!.deliveryId]);
  assert.deepEqual(ids((await list('eventType=OrderConfirmed')).items), [all[1]!.deliveryId, pending]);
  assert.deepEqual(ids((await list('eventType=OrderConfirmed&state=succeeded')).items), [all[1]!.deliveryId]);
  assert.deepEqual(ids((await list('eventType=PaymentCompleted')).items), []);

  // Paging within a filter, and a cursor carried over to other filters goes on from its position.
  const page1 = await list('state=succeeded&limit=1');
  assert.deepEqual(ids(page1.items), [all[0]!.deliveryId]);
  const page2 = await list(`state=succeeded&limit=1&cursor=${page1.nextCursor}`);
  assert.deepEqual(ids(page2.items), [all[1]!.deliveryId]);
  assert.equal(page2.nextCursor, null);
  const onward = await list(`eventType=OrderConfirmed&cursor=${page1.nextCursor}`);
  assert.deepEqual(ids(onward.items), [all[1]!.deliveryId, pending]);

  for (const query of ['state=lost', 'eventType=NoSuchEvent', 'state=']) {
    const res = await get(h, 'clerk', `${base}?${query}`);
    assert.equal(res.statusCode, 400, `${query}: ${res.body}`);
  }
});
