/**
 * POST /v1/webhook-subscriptions/{id}/test against a real receiver: a WebhookTest, signed (standardwebhooks
 * verifies it), whose data is the subscription as the API shows it, sent to that subscription only; the event is
 * its owner's alone in the feed and by id. WebhookSubscriptionDisabled may be subscribed to, WebhookTest not.
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { writeEvent } from '../../src/backend/store/journal.ts';
import { SQLITE_MIGRATIONS_DIR } from '../../src/backend/store/sqlite-store.ts';
import { SqliteDatabase } from '../../src/sqlite.ts';
import { until } from '../../src/until.ts';
import { openSqliteStoreFor, tempDir } from '../helpers/backend-store.ts';
import { startApp, type TestApp } from '../helpers/app.ts';
import { readFeed } from '../helpers/events.ts';
import { startReceiver } from '../helpers/webhook-receiver.ts';

/** A receiver that is not there (the discard port): deliveries fail and wait for their next attempt. */
const HOOK_URL = 'http://127.0.0.1:9/hooks';
const HOOK_ENV = { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOWED_CIDRS: '127.0.0.1/32', WEBHOOK_ALLOWED_PORTS: '9' };

async function subscribe(h: TestApp, as: string, url: string, eventTypes: string[]) {
  const res = await h.request({ method: 'POST', url: '/v1/webhook-subscriptions', as, body: { url, eventTypes } });
  assert.equal(res.statusCode, 201, res.body);
  return res.json() as { subscriptionId: string; secret: string };
}

test('a test event goes, signed, to the one subscription asked for; its data is the subscription; its owner alone reads it', async (t) => {
  const tested = await startReceiver(t, '/tested');
  const other = await startReceiver(t, '/other');
  const h = await startApp(t, {
    ...tested.env,
    WEBHOOK_ALLOWED_PORTS: `${tested.port},${other.port}`,
  });
  // The subscription tested names no WebhookTest; the owner's other one names every type it may.
  const sub = await subscribe(h, 'acme-shop', tested.url, ['OrderConfirmed']);
  await subscribe(h, 'acme-shop', other.url, ['OrderConfirmed', 'CustomerUpdated', 'WebhookSubscriptionDisabled']);

  const res = await h.request({
    method: 'POST',
    url: `/v1/webhook-subscriptions/${sub.subscriptionId}/test`,
    as: 'acme-shop',
  });
  assert.equal(res.statusCode, 202, res.body);
  const delivery = res.json();
  assert.match(delivery.deliveryId, /^WHD-[0-9A-F]{16}$/);
  assert.equal(delivery.eventType, 'WebhookTest');
  assert.equal(delivery.state, 'pending');

  await until('the test delivered', () => tested.received.length >= 1);
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(tested.received.length, 1);
  assert.equal(other.received.length, 0, "the owner's other subscription gets no WebhookTest");
  const hit = tested.received[0]!;
  const event = new Webhook(sub.secret).verify(hit.body, hit.headers as Record<string, string>) as {
    id: string;
    type: string;
    source: string;
    subject: string;
    data: Record<string, unknown>;
  };
  assert.equal(hit.headers['webhook-id'], delivery.eventId);
  assert.deepEqual(
    [event.type, event.source, event.subject],
    ['WebhookTest', '/v1/webhook-subscriptions', sub.subscriptionId],
  );
  const shown = (
    await h.request({ method: 'GET', url: `/v1/webhook-subscriptions/${sub.subscriptionId}`, as: 'acme-shop' })
  ).json();
  assert.deepEqual(event.data, shown, 'the subscription as the API shows it');
  assert.ok(!hit.body.includes(sub.secret) && !hit.body.includes('secret'), 'never its secret');

  await until('the delivery succeeded', async () => {
    const items = (
      await h.request({
        method: 'GET',
        url: `/v1/webhook-subscriptions/${sub.subscriptionId}/deliveries`,
        as: 'acme-shop',
      })
    ).json().items as Array<{ deliveryId: string; state: string }>;
    return items.some((d) => d.deliveryId === delivery.deliveryId && d.state === 'succeeded');
  });

  // The owner reads it in the feed and by id; staff, who read every resource event, do not read it.
  const feed = await readFeed(h, 'acme-shop', '&type=WebhookTest,WebhookSubscriptionDisabled');
  assert.deepEqual(
    feed.map((e) => [e.id, e.type, e.subject]),
    [[event.id, 'WebhookTest', sub.subscriptionId]],
  );
  assert.deepEqual(
    (await readFeed(h, 'clerk')).filter((e) => e.type === 'WebhookTest'),
    [],
  );
  const byId = (as: string) => h.request({ method: 'GET', url: `/v1/events/${event.id}`, as });
  assert.equal((await byId('acme-shop')).statusCode, 200);
  assert.deepEqual((await byId('acme-shop')).json().data, shown);
  assert.equal((await byId('clerk')).statusCode, 404);
  assert.equal((await byId('ada')).statusCode, 404);
});

test("the test route: another owner's subscription is not found, a customer may not, a disabled one is a conflict", async (t) => {
  const receiver = await startReceiver(t);
  const h = await startApp(t, receiver.env);
  const sub = await subscribe(h, 'acme-shop', receiver.url, ['OrderConfirmed']);
  const send = (as: string, id = sub.subscriptionId) =>
    h.request({ method: 'POST', url: `/v1/webhook-subscriptions/${id}/test`, as });
  const deliveries = async () =>
    (
      await h.request({
        method: 'GET',
        url: `/v1/webhook-subscriptions/${sub.subscriptionId}/deliveries`,
        as: 'acme-shop',
      })
    ).json().items as unknown[];
  assert.equal((await send('clerk')).statusCode, 404);
  assert.equal((await send('acme-shop', 'WHS-0000000000000000')).statusCode, 404);
  assert.equal((await send('ada')).statusCode, 403);
  assert.deepEqual(await deliveries(), [], 'a refused test leaves no delivery');

  // The receiver answers the test with 410: the subscription is disabled, and a test of it is refused.
  receiver.otherwise = { status: 410 };
  assert.equal((await send('acme-shop')).statusCode, 202);
  await until('the subscription disabled', async () => {
    const read = await h.request({
      method: 'GET',
      url: `/v1/webhook-subscriptions/${sub.subscriptionId}`,
      as: 'acme-shop',
    });
    return read.json().status === 'disabled';
  });
  const refused = await send('acme-shop');
  assert.equal(refused.statusCode, 409, refused.body);
  assert.equal((await deliveries()).length, 1, 'no delivery for the refused test');
});

test('WebhookSubscriptionDisabled may be subscribed to, by a partner too; WebhookTest may not (it goes to one subscription)', async (t) => {
  const h = await startApp(t, HOOK_ENV);
  for (const as of ['acme-shop', 'clerk']) await subscribe(h, as, HOOK_URL, ['WebhookSubscriptionDisabled']);
  const refused = await h.request({
    method: 'POST',
    url: '/v1/webhook-subscriptions',
    as: 'clerk',
    body: { url: HOOK_URL, eventTypes: ['WebhookTest'] },
  });
  assert.equal(refused.statusCode, 400, refused.body);
  assert.match(refused.body, /eventTypes/);
});

test('a store from before keeps its events, their seq and their deliveries, and takes subscription events', async (t) => {
  const dir = tempDir(t, 'subscription-events');
  const file = join(dir, 'backend.sqlite');
  const before = join(dir, 'migrations-before');
  mkdirSync(before);
  for (const name of readdirSync(SQLITE_MIGRATIONS_DIR).filter((f) => f.endsWith('.sql') && f < '014'))
    copyFileSync(join(SQLITE_MIGRATIONS_DIR, name), join(before, name));
  const old = new SqliteDatabase(file);
  old.migrate(before);
  old
    .statement(
      `INSERT INTO events (event_id, event_type, resource, subject, owner_customer_id, created_by, record_name, record_json, correlation_id, occurred_at, position)
       VALUES ('e-1', 'CustomerUpdated', 'customer', '1001', '1001', 'clerk', 'CUSREC', '{}', 'c', '2026-01-01T00:00:00.000Z', 1)`,
    )
    .run();
  old
    .statement(
      `INSERT INTO webhook_subscriptions (subscription_id, owner_principal, owner_role, url, event_types, secret, status, created_at)
       VALUES ('WHS-1', 'clerk', 'AGENT', 'https://x', 'CustomerUpdated', 's', 'active', '2026-01-01T00:00:00.000Z')`,
    )
    .run();
  old
    .statement(
      `INSERT INTO webhook_deliveries (delivery_id, subscription_id, event_id, event_type, state, attempts, created_at, updated_at)
       VALUES ('WHD-1', 'WHS-1', 'e-1', 'CustomerUpdated', 'succeeded', 1, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')`,
    )
    .run();
  old.close();

  const store = openSqliteStoreFor(t, file);
  const rows = await store.transaction(async (tx) => {
    await writeEvent(
      { tx, correlationId: 'c2', now: '2026-01-02T00:00:00.000Z' },
      {
        type: 'WebhookTest',
        resource: 'subscription',
        subject: 'WHS-1',
        ownerCustomerId: null,
        createdBy: 'clerk',
        recordName: 'WHKREC',
        record: { whkSubscriptionId: 'WHS-1' } as never,
      },
    );
    return {
      events: await tx.all('SELECT event_id, seq, position, resource FROM events ORDER BY seq'),
      deliveries: await tx.all('SELECT delivery_id, event_id FROM webhook_deliveries'),
    };
  });
  assert.deepEqual(
    rows.events.map((r) => [r['event_id'], Number(r['seq']), Number(r['position']), r['resource']]).slice(0, 1),
    [['e-1', 1, 1, 'customer']],
  );
  assert.equal(rows.events[1]!['resource'], 'subscription');
  assert.deepEqual([Number(rows.events[1]!['seq']), Number(rows.events[1]!['position'])], [2, 2]);
  assert.deepEqual(
    rows.deliveries.map((r) => [r['delivery_id'], r['event_id']]),
    [['WHD-1', 'e-1']],
  );
});
