/**
 * A subscription over its life, against a real receiver on this machine: changed and paused by its owner with a
 * merge patch, disabled by a 410 or by failing for WEBHOOK_DISABLE_AFTER, and in every case nothing of it left
 * pending; re-enabled, it receives again and its cancelled deliveries may be retried.
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { SQLITE_MIGRATIONS_DIR } from '../../src/backend/store/sqlite-store.ts';
import { loadWebhookSettings } from '../../src/events/settings.ts';
import { SqliteDatabase } from '../../src/sqlite.ts';
import { assertProblem } from '../helpers/assert-shape.ts';
import { startApp, type TestApp } from '../helpers/app.ts';
import { until } from '../../src/until.ts';
import { startReceiver } from '../helpers/webhook-receiver.ts';
import { feedWhen, readFeed } from '../helpers/events.ts';

async function subscribe(h: TestApp, as: string, url: string, eventTypes: string[]) {
  const res = await h.request({
    method: 'POST',
    url: '/v1/webhook-subscriptions',
    as,
    body: { url, eventTypes, description: 'lifecycle' },
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json();
}

function patch(h: TestApp, as: string, id: string, body: unknown, type = 'application/merge-patch+json') {
  return h.request({
    method: 'PATCH',
    url: `/v1/webhook-subscriptions/${id}`,
    as,
    body,
    headers: { 'content-type': type },
  });
}

/** The owner's feed tells of an automatic disabling, with the subscription as the API shows it (never its secret). */
async function disabledNotice(h: TestApp, as: string, id: string) {
  const isNotice = (e: { type: string; subject: string }) =>
    e.type === 'WebhookSubscriptionDisabled' && e.subject === id;
  const events = await feedWhen(h, as, (e) => e.some(isNotice));
  const notice = events.filter(isNotice);
  assert.equal(notice.length, 1, 'told once');
  assert.equal(notice[0]!.data['subscriptionId'], id);
  assert.equal(notice[0]!.data['status'], 'disabled');
  assert.equal('secret' in notice[0]!.data, false);
  const others = await readFeed(h, 'acme-shop');
  assert.equal(others.filter((e) => e.type === 'WebhookSubscriptionDisabled').length, 0, 'to its owner only');
  return notice[0]!;
}

async function read(h: TestApp, as: string, id: string) {
  return (await h.request({ method: 'GET', url: `/v1/webhook-subscriptions/${id}`, as })).json();
}

async function order(h: TestApp) {
  const res = await h.request({
    method: 'POST',
    url: '/v1/orders',
    as: 'ada',
    body: { customerId: '1001', productId: 'P-100', quantity: 1 },
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json();
}

interface DeliveryView {
  deliveryId: string;
  state: string;
  attempts: number;
  lastStatusCode: number | null;
  nextAttemptAt: string | null;
}

async function deliveries(h: TestApp, as: string, id: string): Promise<DeliveryView[]> {
  return (await h.request({ method: 'GET', url: `/v1/webhook-subscriptions/${id}/deliveries`, as })).json().items;
}

function retry(h: TestApp, as: string, id: string, deliveryId: string) {
  return h.request({ method: 'POST', url: `/v1/webhook-subscriptions/${id}/deliveries/${deliveryId}/retry`, as });
}

test('PATCH changes url, eventTypes and description by merge patch; the create checks hold; empty → 400', async (t) => {
  const receiver = await startReceiver(t);
  const h = await startApp(t, receiver.env);
  const sub = await subscribe(h, 'acme-shop', receiver.url, ['OrderConfirmed']);

  const changed = await patch(h, 'acme-shop', sub.subscriptionId, {
    url: `${receiver.url}/v2`,
    eventTypes: ['OrderConfirmed', 'CustomerCreated'],
    description: null,
  });
  assert.equal(changed.statusCode, 200, changed.body);
  assert.deepEqual(changed.json(), {
    subscriptionId: sub.subscriptionId,
    url: `${receiver.url}/v2`,
    eventTypes: ['OrderConfirmed', 'CustomerCreated'],
    status: 'active',
    createdAt: sub.createdAt,
  });
  assert.deepEqual(await read(h, 'acme-shop', sub.subscriptionId), changed.json(), 'stored as answered');
  // Plain JSON is taken too, with the same merge semantics: absent members stay.
  const described = await patch(h, 'acme-shop', sub.subscriptionId, { description: 'shop' }, 'application/json');
  assert.equal(described.statusCode, 200, described.body);
  assert.equal(described.json().description, 'shop');
  assert.equal(described.json().url, `${receiver.url}/v2`);

  const notReceived = assertProblem(
    await patch(h, 'acme-shop', sub.subscriptionId, { eventTypes: ['OrderConfirmed', 'PaymentCompleted'] }),
    400,
    'VALIDATION_FAILED',
  );
  assert.equal(notReceived['reason'], 'EVENT_TYPES_NOT_RECEIVED');
  assert.deepEqual(
    (notReceived['errors'] as Array<{ pointer: string }>).map((e) => e.pointer),
    ['/eventTypes/1'],
  );
  const guarded = assertProblem(
    await patch(h, 'acme-shop', sub.subscriptionId, { url: 'http://10.0.0.1:8080/hooks' }),
    400,
    'VALIDATION_FAILED',
  );
  assert.deepEqual(
    (guarded['errors'] as Array<{ pointer: string }>).map((e) => e.pointer),
    ['/url'],
  );
  assertProblem(await patch(h, 'acme-shop', sub.subscriptionId, {}), 400, 'VALIDATION_FAILED');
  assertProblem(await patch(h, 'acme-shop', sub.subscriptionId, { secret: 'x' }), 400, 'VALIDATION_FAILED');
  assertProblem(await patch(h, 'acme-shop', sub.subscriptionId, { status: 'paused' }), 400, 'VALIDATION_FAILED');
  // Made alike another of the owner's (in another order of types): every event would go twice, so it is refused.
  const other = await subscribe(h, 'acme-shop', `${receiver.url}/other`, ['CustomerCreated', 'OrderConfirmed']);
  const alike = assertProblem(
    await patch(h, 'acme-shop', sub.subscriptionId, { url: `${receiver.url}/other` }),
    409,
    'CONFLICT',
  );
  assert.equal(alike['reason'], 'SUBSCRIPTION_EXISTS');
  assert.equal(alike['subscriptionId'], other.subscriptionId);
  assert.deepEqual(await read(h, 'acme-shop', sub.subscriptionId), described.json(), 'nothing refused was kept');
  // Naming its own URL and types again changes nothing and is no conflict.
  const same = await patch(h, 'acme-shop', sub.subscriptionId, { url: `${receiver.url}/v2` });
  assert.equal(same.statusCode, 200, same.body);

  // Another owner's subscription is not found, and stays as it was.
  assertProblem(await patch(h, 'clerk', sub.subscriptionId, { status: 'disabled' }), 404, 'NOT_FOUND');
  assert.equal((await read(h, 'acme-shop', sub.subscriptionId)).status, 'active');
});

test('disabled by its owner: pending deliveries are cancelled, retry is 409; enabled again: new events are delivered and a cancelled one may be retried', async (t) => {
  const receiver = await startReceiver(t);
  const h = await startApp(t, { ...receiver.env, WEBHOOK_RETRY_SCHEDULE: '1h' });
  const sub = await subscribe(h, 'clerk', receiver.url, ['OrderConfirmed']);
  receiver.otherwise = { status: 500 };
  await order(h);
  await until(
    'the first attempt failed',
    async () => (await deliveries(h, 'clerk', sub.subscriptionId))[0]?.attempts === 1,
  );
  assert.equal((await deliveries(h, 'clerk', sub.subscriptionId))[0]!.state, 'pending', 'due again in an hour');

  const paused = await patch(h, 'clerk', sub.subscriptionId, { status: 'disabled' });
  assert.equal(paused.statusCode, 200, paused.body);
  assert.equal(paused.json().status, 'disabled');
  assert.equal(paused.json().disabledReason, 'DISABLED_BY_OWNER');
  const [cancelled] = await deliveries(h, 'clerk', sub.subscriptionId);
  assert.equal(cancelled!.state, 'cancelled');
  assert.equal(cancelled!.nextAttemptAt, null);
  assert.equal(cancelled!.attempts, 1);
  assertProblem(await retry(h, 'clerk', sub.subscriptionId, cancelled!.deliveryId), 409, 'CONFLICT');
  const told = (await readFeed(h, 'clerk')).filter((e) => e.type === 'WebhookSubscriptionDisabled');
  assert.deepEqual(told, [], 'an owner who paused it is not told so');

  await order(h);
  await new Promise((r) => setTimeout(r, 500));
  assert.equal((await deliveries(h, 'clerk', sub.subscriptionId)).length, 1, 'nothing made while disabled');

  receiver.otherwise = { status: 204 };
  const before = receiver.received.length;
  const resumed = await patch(h, 'clerk', sub.subscriptionId, { status: 'active' });
  assert.equal(resumed.statusCode, 200, resumed.body);
  assert.equal(resumed.json().status, 'active');
  assert.equal(resumed.json().disabledReason, undefined, 'the reason is cleared');
  const placed = await order(h);
  await until('the new event delivered', () => receiver.received.length > before);
  assert.equal(JSON.parse(receiver.received.at(-1)!.body).subject, placed.orderId);

  const again = await retry(h, 'clerk', sub.subscriptionId, cancelled!.deliveryId);
  assert.equal(again.statusCode, 202, again.body);
  await until(
    'the cancelled delivery retried',
    async () =>
      (await deliveries(h, 'clerk', sub.subscriptionId)).find((d) => d.deliveryId === cancelled!.deliveryId)?.state ===
      'succeeded',
  );
});

test('after a 410 nothing is left pending: that delivery failed, the others of the subscription are cancelled', async (t) => {
  const receiver = await startReceiver(t);
  // One attempt in flight per subscription: the second delivery waits (pending, no attempt) behind the 410.
  const h = await startApp(t, { ...receiver.env, WEBHOOK_CONCURRENCY_PER_ENDPOINT: '1' });
  const sub = await subscribe(h, 'clerk', receiver.url, ['OrderConfirmed']);
  receiver.answers.push({ status: 410, delayMs: 800 });
  await order(h);
  await order(h);
  await until('two deliveries made', async () => (await deliveries(h, 'clerk', sub.subscriptionId)).length === 2);
  await until('disabled', async () => (await read(h, 'clerk', sub.subscriptionId)).status === 'disabled');
  assert.equal((await read(h, 'clerk', sub.subscriptionId)).disabledReason, 'ENDPOINT_GONE');
  assert.equal((await disabledNotice(h, 'clerk', sub.subscriptionId)).data['disabledReason'], 'ENDPOINT_GONE');
  await new Promise((r) => setTimeout(r, 300));
  const [second, first] = await deliveries(h, 'clerk', sub.subscriptionId);
  assert.deepEqual(
    [first!.state, first!.attempts, first!.lastStatusCode],
    ['failed', 1, 410],
    'the 410 delivery failed',
  );
  assert.deepEqual([second!.state, second!.attempts, second!.nextAttemptAt], ['cancelled', 0, null]);
  assert.equal(receiver.received.length, 1, 'the second was never sent');
});

test('a subscription failing for WEBHOOK_DISABLE_AFTER is disabled (ENDPOINT_FAILING) and nothing of it stays pending', async (t) => {
  const receiver = await startReceiver(t);
  const h = await startApp(t, {
    ...receiver.env,
    WEBHOOK_DISABLE_AFTER: '2s',
    WEBHOOK_RETRY_SCHEDULE: Array(20).fill('300ms').join(','),
  });
  const failing = await subscribe(h, 'clerk', receiver.url, ['OrderConfirmed']);
  receiver.otherwise = { status: 500 };
  const started = Date.now();
  await order(h);
  await order(h);
  await until('disabled', async () => (await read(h, 'clerk', failing.subscriptionId)).status === 'disabled', 15_000);
  const elapsed = Date.now() - started;
  assert.ok(elapsed >= 2000, `not before it failed for 2 s (${elapsed} ms)`);
  assert.equal((await read(h, 'clerk', failing.subscriptionId)).disabledReason, 'ENDPOINT_FAILING');
  assert.equal((await disabledNotice(h, 'clerk', failing.subscriptionId)).data['disabledReason'], 'ENDPOINT_FAILING');
  // An attempt that was in flight is recorded after the disabling: it is cancelled then, not left pending.
  await until('nothing pending', async () =>
    (await deliveries(h, 'clerk', failing.subscriptionId)).every((d) => d.state === 'cancelled'),
  );
  const sent = receiver.received.length;
  await new Promise((r) => setTimeout(r, 800));
  assert.equal(receiver.received.length, sent, 'no attempt after disabling');
});

test('a success ends the failing streak: a subscription failing on and off is not disabled', async (t) => {
  const receiver = await startReceiver(t);
  const h = await startApp(t, {
    ...receiver.env,
    WEBHOOK_DISABLE_AFTER: '1500ms',
    WEBHOOK_RETRY_SCHEDULE: Array(20).fill('400ms').join(','),
  });
  const sub = await subscribe(h, 'clerk', receiver.url, ['OrderConfirmed']);
  // Each delivery fails twice, then is taken: never 1.5 s of failures without a success between.
  for (let i = 0; i < 4; i++) {
    receiver.answers.push({ status: 500 }, { status: 500 }, { status: 204 });
    const before = receiver.received.length;
    await order(h);
    await until('taken on the third attempt', () => receiver.received.length === before + 3, 10_000);
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.equal((await read(h, 'clerk', sub.subscriptionId)).status, 'active');
  const states = (await deliveries(h, 'clerk', sub.subscriptionId)).map((d) => d.state);
  assert.deepEqual(states, ['succeeded', 'succeeded', 'succeeded', 'succeeded']);
});

test('the SQLite migration widens the delivery states and keeps the rows, their sequence, indexes and keys', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'corebridge-lifecycle-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const before = join(dir, 'before');
  mkdirSync(before);
  for (const f of readdirSync(SQLITE_MIGRATIONS_DIR).filter((f) => f < '011_')) {
    copyFileSync(join(SQLITE_MIGRATIONS_DIR, f), join(before, f));
  }
  const db = new SqliteDatabase(join(dir, 'store.sqlite'));
  t.after(() => db.close());
  db.migrate(before);
  const run = (sql: string, ...params: Array<string | number>) => db.statement(sql).run(...params);
  const at = '2026-01-01T00:00:00.000Z';
  for (const e of ['e1', 'e2']) {
    run(
      `INSERT INTO events (event_id, event_type, resource, subject, record_name, record_json, correlation_id, occurred_at)
       VALUES (?, 'OrderConfirmed', 'order', 'ORD-1', 'ORDREC', '{}', 'c', ?)`,
      e,
      at,
    );
  }
  run(
    `INSERT INTO webhook_subscriptions (subscription_id, owner_principal, owner_role, url, event_types, secret, status, created_at)
     VALUES ('WHS-1', 'clerk', 'AGENT', 'https://x.example', 'OrderConfirmed', 's', 'active', ?)`,
    at,
  );
  for (const [seq, id, event] of [
    [1, 'WHD-1', 'e1'],
    [7, 'WHD-7', 'e2'],
  ] as const) {
    run(
      `INSERT INTO webhook_deliveries (seq, delivery_id, subscription_id, event_id, event_type, state, attempts, next_attempt_at, created_at, updated_at)
       VALUES (?, ?, 'WHS-1', ?, 'OrderConfirmed', 'pending', 2, ?, ?, ?)`,
      seq,
      id,
      event,
      at,
      at,
      at,
    );
  }
  run("DELETE FROM webhook_deliveries WHERE delivery_id = 'WHD-7'");
  db.migrate(SQLITE_MIGRATIONS_DIR);

  const rows = db.query('SELECT seq, delivery_id, state, attempts, next_attempt_at FROM webhook_deliveries').all();
  assert.deepEqual(
    rows.map((r) => ({ ...r })),
    [{ seq: 1, delivery_id: 'WHD-1', state: 'pending', attempts: 2, next_attempt_at: at }],
  );
  const indexes = db
    .query(
      "SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'webhook_deliveries' AND sql IS NOT NULL",
    )
    .all()
    .map((r) => r['name']);
  assert.ok(indexes.includes('webhook_deliveries_due') && indexes.includes('webhook_deliveries_by_subscription'));
  run("UPDATE webhook_deliveries SET state = 'cancelled' WHERE delivery_id = 'WHD-1'");
  assert.throws(() => run("UPDATE webhook_deliveries SET state = 'lost'"), /CHECK constraint/);
  run(
    `INSERT INTO webhook_deliveries (delivery_id, subscription_id, event_id, event_type, state, attempts, created_at, updated_at)
     VALUES ('WHD-8', 'WHS-1', 'e2', 'OrderConfirmed', 'pending', 0, ?, ?)`,
    at,
    at,
  );
  assert.equal(
    db.query("SELECT seq FROM webhook_deliveries WHERE delivery_id = 'WHD-8'").get()?.['seq'],
    8,
    'numbers go on past a deleted delivery',
  );
  assert.throws(
    () =>
      run(
        `INSERT INTO webhook_deliveries (delivery_id, subscription_id, event_id, event_type, state, attempts, created_at, updated_at)
         VALUES ('WHD-9', 'WHS-404', 'e2', 'OrderConfirmed', 'pending', 0, ?, ?)`,
        at,
        at,
      ),
    /FOREIGN KEY/,
  );
  run("DELETE FROM webhook_subscriptions WHERE subscription_id = 'WHS-1'");
  assert.equal(db.query('SELECT COUNT(*) AS n FROM webhook_deliveries').get()?.['n'], 0, 'gone with its subscription');
});

test('WEBHOOK_DISABLE_AFTER: 5 days unless set, any duration, 0s for never; anything else is refused by name', () => {
  assert.equal(loadWebhookSettings({}).disableAfterMs, 5 * 86_400_000);
  assert.equal(loadWebhookSettings({ WEBHOOK_DISABLE_AFTER: '12h' }).disableAfterMs, 12 * 3_600_000);
  assert.equal(loadWebhookSettings({ WEBHOOK_DISABLE_AFTER: '0s' }).disableAfterMs, 0);
  assert.throws(() => loadWebhookSettings({ WEBHOOK_DISABLE_AFTER: 'soon' }), /WEBHOOK_DISABLE_AFTER/);
  assert.throws(() => loadWebhookSettings({ WEBHOOK_DISABLE_AFTER: '4000d' }), /at most 3650d/);
});
