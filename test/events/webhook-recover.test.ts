/**
 * Recover (POST /v1/webhook-subscriptions/{id}/recover) against a real receiver: the events of a time window
 * delivered again, in the order they were raised, with their own webhook-ids, to whom the fan-out would have
 * sent them; a delivery that had failed keeps its attempts; refusals; and where a window is cut.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { cutWindow } from '../../src/backend/programs/webhook-recover.ts';
import type { WindowEvent } from '../../src/backend/store/events.ts';
import { until } from '../../src/until.ts';
import { startApp, type TestApp } from '../helpers/app.ts';
import { assertProblem } from '../helpers/assert-shape.ts';
import { queryStore } from '../helpers/backend-store.ts';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.ts';

async function subscribe(h: TestApp, as: string, url: string, eventTypes: string[]) {
  const res = await h.request({ method: 'POST', url: '/v1/webhook-subscriptions', as, body: { url, eventTypes } });
  assert.equal(res.statusCode, 201, res.body);
  return res.json() as { subscriptionId: string; secret: string };
}

async function order(h: TestApp, as: string, productId = 'P-100') {
  const res = await h.request({
    method: 'POST',
    url: '/v1/orders',
    as,
    body: { customerId: '1001', productId, quantity: 1 },
  });
  // A rejected order (P-300 is out of stock) is answered 200.
  assert.equal(res.statusCode, productId === 'P-300' ? 200 : 201, res.body);
  return res.json() as { orderId: string; status: string };
}

function recover(h: TestApp, as: string, subscriptionId: string, body: unknown) {
  return h.request({ method: 'POST', url: `/v1/webhook-subscriptions/${subscriptionId}/recover`, as, body });
}

async function deliveries(h: TestApp, as: string, subscriptionId: string) {
  const res = await h.request({ method: 'GET', url: `/v1/webhook-subscriptions/${subscriptionId}/deliveries`, as });
  return res.json().items as Array<{ eventId: string; state: string; attempts: number }>;
}

/** What the receiver verified, in arrival order: the event's subject and its webhook-id. */
function seen(receiver: Receiver, secret: string): Array<{ id: string; subject: string; type: string }> {
  return receiver.received.map((hit) => {
    const event = new Webhook(secret).verify(hit.body, hit.headers as Record<string, string>) as Record<string, string>;
    assert.equal(hit.headers['webhook-id'], event['id']);
    return { id: event['id']!, subject: event['subject']!, type: event['type']! };
  });
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('recover delivers the window again in the order raised: events from before the subscription, and a failed one with its attempts kept', async (t) => {
  const receiver = await startReceiver(t);
  // One attempt in flight at a time: the receiver sees them in the order they are sent.
  const h = await startApp(t, {
    ...receiver.env,
    WEBHOOK_RETRY_SCHEDULE: '100ms,100ms',
    WEBHOOK_CONCURRENCY_PER_ENDPOINT: '1',
  });
  const since = new Date().toISOString();
  await pause(5);
  const before = await order(h, 'ada'); // raised before the subscription exists: never delivered
  // Handed on before the subscription is made (on PostgreSQL the relay positions events a moment after commit).
  await until('the first order in the feed', async () => (await feedTime(h, before.orderId)) !== undefined);
  const sub = await subscribe(h, 'clerk', receiver.url, ['OrderConfirmed']);
  receiver.otherwise = { status: 500 };
  const during = await order(h, 'ada');
  await order(h, 'ada', 'P-300'); // OrderRejected: not one of the subscription's types
  await until(
    'the delivery failed for good',
    async () => (await deliveries(h, 'clerk', sub.subscriptionId))[0]?.state === 'failed',
  );
  const attempts = (await deliveries(h, 'clerk', sub.subscriptionId))[0]!.attempts;
  receiver.otherwise = { status: 204 };
  receiver.received.length = 0;

  const res = await recover(h, 'clerk', sub.subscriptionId, { since });
  assert.equal(res.statusCode, 202, res.body);
  const answer = res.json();
  assert.equal(Date.parse(answer.until) >= Date.parse(answer.since), true);
  assert.deepEqual(
    { ...answer, until: undefined },
    {
      subscriptionId: sub.subscriptionId,
      since,
      until: undefined,
      queued: 2,
      requeued: 1,
      cut: false,
      continueFrom: null,
    },
  );
  await until('both delivered', () => receiver.received.length >= 2);
  await pause(300);
  const got = seen(receiver, sub.secret);
  assert.deepEqual(
    got.map((e) => e.subject),
    [before.orderId, during.orderId],
    'once each, the older first',
  );
  const list = await deliveries(h, 'clerk', sub.subscriptionId);
  const again = list.find((d) => d.eventId === got[1]!.id);
  assert.deepEqual(
    { state: again?.state, attempts: again?.attempts },
    { state: 'succeeded', attempts: attempts + 1 },
    'the failed delivery again, its attempts kept',
  );
  assert.equal(list.find((d) => d.eventId === got[0]!.id)?.attempts, 1, 'a new delivery for the older event');

  // A window that ends before the second order: only the first again, and the same webhook-id as just now.
  const firstOnly = await recover(h, 'clerk', sub.subscriptionId, {
    since,
    until: await occurredAt(h, during.orderId),
  });
  assert.equal(firstOnly.statusCode, 202, firstOnly.body);
  assert.equal(firstOnly.json().queued, 1);
  await until('delivered again', () => receiver.received.length >= 3);
  assert.deepEqual(seen(receiver, sub.secret)[2], got[0]);
});

/** When the event about `subject` was raised, as the feed tells it (undefined: not in the feed yet). */
async function feedTime(h: TestApp, subject: string): Promise<string | undefined> {
  const feed = await h.request({ method: 'GET', url: '/v1/events?limit=100', as: 'clerk' });
  return feed.json().items.find((e: { subject: string }) => e.subject === subject)?.time;
}

async function occurredAt(h: TestApp, subject: string): Promise<string> {
  const time = await feedTime(h, subject);
  assert.ok(time, `no event about ${subject}`);
  return time;
}

test("a partner's recover sends only what the fan-out would: the orders it placed, not a customer's own", async (t) => {
  const receiver = await startReceiver(t);
  const h = await startApp(t, receiver.env);
  const since = new Date().toISOString();
  await pause(5);
  const own = await order(h, 'ada'); // ada's own order: acme-shop may not read it
  const placed = await order(h, 'acme-shop'); // 1001 is acme-shop's customer in the demo data
  await until('both in the feed', async () => (await feedTime(h, placed.orderId)) !== undefined);
  const sub = await subscribe(h, 'acme-shop', receiver.url, ['OrderConfirmed']);
  const res = await recover(h, 'acme-shop', sub.subscriptionId, { since });
  assert.equal(res.statusCode, 202, res.body);
  assert.equal(res.json().queued, 1);
  await until('delivered', () => receiver.received.length >= 1);
  await pause(300);
  assert.deepEqual(
    seen(receiver, sub.secret).map((e) => e.subject),
    [placed.orderId],
  );
  assert.notEqual(own.orderId, placed.orderId);
});

test('recover refuses: another owner’s subscription (404), a disabled one (409 until enabled), a bad window (400)', async (t) => {
  const receiver = await startReceiver(t);
  const h = await startApp(t, { ...receiver.env, WEBHOOK_CONCURRENCY_PER_ENDPOINT: '1' });
  const since = new Date().toISOString();
  await pause(5);
  const sub = await subscribe(h, 'acme-shop', receiver.url, ['OrderConfirmed']);

  const other = assertProblem(await recover(h, 'clerk', sub.subscriptionId, { since }), 404, 'NOT_FOUND');
  assert.equal(other['reason'], 'SUBSCRIPTION_NOT_FOUND');

  for (const body of [
    {},
    { since: 'yesterday' },
    { since, until: since },
    { since, until: '2000-01-01T00:00:00Z' },
    { since, extra: 1 },
  ]) {
    assertProblem(await recover(h, 'acme-shop', sub.subscriptionId, body), 400, 'VALIDATION_FAILED');
  }
  const future = new Date(Date.now() + 3_600_000).toISOString();
  const ahead = assertProblem(
    await recover(h, 'acme-shop', sub.subscriptionId, { since: future }),
    400,
    'VALIDATION_FAILED',
  );
  assert.equal(ahead['reason'], 'INVALID_WINDOW');

  // The endpoint answers 410: the subscription is disabled, and a recover waits until it is enabled again.
  receiver.answers.push({ status: 410 });
  const gone = await order(h, 'acme-shop');
  await until(
    'disabled',
    async () =>
      (
        await h.request({ method: 'GET', url: `/v1/webhook-subscriptions/${sub.subscriptionId}`, as: 'acme-shop' })
      ).json().status === 'disabled',
  );
  const whileDown = await order(h, 'acme-shop'); // raised while disabled: the fan-out passes it by
  await until('handed on while disabled', async () => (await feedTime(h, whileDown.orderId)) !== undefined);
  const refused = assertProblem(await recover(h, 'acme-shop', sub.subscriptionId, { since }), 409, 'CONFLICT');
  assert.equal(refused['reason'], 'SUBSCRIPTION_DISABLED');
  assert.match(String(refused['detail']), /ENDPOINT_GONE/);

  // Enabled again (as PATCH {"status":"active"} does): both orders come, the one raised while disabled too.
  await queryStore(
    h,
    "UPDATE webhook_subscriptions SET status = 'active', disabled_reason = NULL WHERE subscription_id = ?",
    sub.subscriptionId,
  );
  receiver.received.length = 0;
  const res = await recover(h, 'acme-shop', sub.subscriptionId, { since });
  assert.equal(res.statusCode, 202, res.body);
  assert.deepEqual({ queued: res.json().queued, requeued: res.json().requeued }, { queued: 2, requeued: 1 });
  await until('delivered', () => receiver.received.length >= 2);
  assert.deepEqual(
    seen(receiver, sub.secret).map((e) => e.subject),
    [gone.orderId, whileDown.orderId],
  );
});

const at = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms).toISOString();
const event = (position: number, ms: number): WindowEvent => ({
  position,
  eventId: `e${position}`,
  type: 'OrderConfirmed',
  occurredAt: at(ms),
});

test('a window is cut between two instants, never inside one: going on from continueFrom queues nothing twice', () => {
  // 5 events at 4 instants (two share the third), 2 a call.
  const rows = [event(1, 0), event(2, 1), event(3, 2), event(4, 2), event(5, 3)];
  const first = cutWindow(rows, 2);
  assert.deepEqual(
    first.taken.map((e) => e.position),
    [1, 2],
  );
  assert.equal(first.continueFrom, at(2));
  // The third would split the instant at 2 ms: that instant is left whole for the next call.
  const second = cutWindow(
    rows.filter((e) => e.occurredAt >= first.continueFrom!),
    2,
  );
  assert.deepEqual(
    second.taken.map((e) => e.position),
    [3, 4],
  );
  assert.equal(second.continueFrom, at(3));
  const third = cutWindow(
    rows.filter((e) => e.occurredAt >= second.continueFrom!),
    2,
  );
  assert.deepEqual(third, { taken: [rows[4]], continueFrom: null });

  // Cut inside an instant only when it alone holds more than a call takes.
  const crowded = cutWindow([event(1, 0), event(2, 0), event(3, 0)], 2);
  assert.deepEqual(
    crowded.taken.map((e) => e.position),
    [1, 2],
  );
  assert.equal(crowded.continueFrom, at(0));
});
