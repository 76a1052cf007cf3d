/**
 * Events to the machine's RabbitMQ (BROKER_URL): each published once, in commit order, as a persistent CloudEvent
 * marked published after the confirm; none lost while the broker is down; the example consumers process a repeated
 * delivery once. One file, so its tests run one after another: the outage test stops the broker.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.ts';
import { queryStore } from '../helpers/backend-store.ts';
import { feedWhen, readFeed } from '../helpers/events.ts';
import { startProcess } from '../helpers/processes.ts';
import { until } from '../../src/until.ts';
import {
  connectBroker,
  deleteAfterTest,
  drain,
  eventQueue,
  startBroker,
  stopBroker,
  TEST_BROKER_URL,
} from '../helpers/rabbitmq.ts';
import { parseEventMessage } from '../../src/events/rabbitmq.ts';

const pay = (h: TestApp, key: string) =>
  h.request({
    method: 'POST',
    url: '/v1/payments',
    as: 'ada',
    headers: { 'idempotency-key': key },
    body: { debtorAccount: '1001-01', creditorAccount: '1002-01', amount: 1, currency: 'EUR' },
  });

async function unpublished(h: TestApp): Promise<number> {
  return Number(
    (
      await queryStore(
        h,
        'SELECT COUNT(*) AS n FROM events WHERE position IS NULL OR position > (SELECT published_through FROM event_relay WHERE id = 1)',
      )
    )[0]?.['n'],
  );
}

test('each event reaches every consumer queue once, in commit order, persistent, and is marked published', async (t) => {
  const rabbit = await connectBroker(t);
  const notifier = await eventQueue(rabbit, 'notifier');
  const accounting = await eventQueue(rabbit, 'accounting');
  const h = await startApp(t, { BROKER_URL: TEST_BROKER_URL });

  const made = await Promise.all([
    ...Array.from({ length: 30 }, (_, i) => pay(h, `mq-${i}`)),
    ...Array.from({ length: 10 }, () =>
      h.request({
        method: 'POST',
        url: '/v1/orders',
        as: 'ada',
        body: { customerId: '1001', productId: 'P-100', quantity: 1 },
      }),
    ),
    h.request({
      method: 'POST',
      url: '/v1/customers',
      as: 'clerk',
      body: { name: 'Mary Jackson', email: 'mary@example.com' },
    }),
  ]);
  assert.ok(
    made.every((r) => r.statusCode === 201),
    made.map((r) => r.statusCode).join(),
  );
  await until(
    'every event published',
    async () => (await unpublished(h)) === 0 && (await readFeed(h, 'clerk')).length === 41,
  );
  const feed = await readFeed(h, 'clerk');

  for (const queue of [notifier, accounting]) {
    const messages = await drain(rabbit, queue);
    const events = messages.map((m) => parseEventMessage(m.body));
    assert.deepEqual(
      events.map((e) => e.id),
      feed.map((e) => e.id),
      `${queue}: every event once, in the feed's (commit) order`,
    );
    assert.deepEqual(
      events.map((e) => e.sequence),
      [...events.map((e) => e.sequence)].sort(),
    );
    for (const [i, m] of messages.entries()) {
      const event = events[i]!;
      assert.equal(m.routingKey, event.type, 'routing key = event type');
      assert.equal(m.exchange, 'corebridge.events');
      assert.equal(m.messageId, event.id);
      assert.equal(m.durable, true, 'persistent');
      assert.match(String(m.contentType), /^application\/cloudevents\+json/);
      assert.equal(event.correlationid, feed[i]!.correlationid);
    }
    // The owner's view: a customer record without the agents-only fields.
    const customer = events.find((e) => e.type === 'CustomerCreated')!;
    assert.equal((customer.data as Record<string, unknown>)['name'], 'Mary Jackson');
    assert.equal((customer.data as Record<string, unknown>)['riskRating'], undefined);
  }
});

test('broker stopped and started again: the API keeps working, events wait in the outbox, and none is lost', async (t) => {
  const rabbit = await connectBroker(t);
  const queue = await eventQueue(rabbit, 'outage');
  const h = await startApp(t, { BROKER_URL: TEST_BROKER_URL });
  t.after(startBroker); // whatever happens, the machine's broker runs again

  for (let i = 0; i < 10; i++) assert.equal((await pay(h, `before-${i}`)).statusCode, 201);
  await until(
    'the first ten published',
    async () => (await unpublished(h)) === 0 && (await readFeed(h, 'clerk')).length === 10,
  );

  await stopBroker();
  for (let i = 0; i < 15; i++)
    assert.equal((await pay(h, `during-${i}`)).statusCode, 201, 'payments do not wait for the broker');
  await new Promise((r) => setTimeout(r, 1000));
  assert.equal(await unpublished(h), 15, 'what was made while the broker was down waits in the outbox');
  assert.equal((await readFeed(h, 'clerk')).length, 25, 'the feed goes on without the broker');

  await startBroker();
  await until('the outbox drained after the broker came back', async () => (await unpublished(h)) === 0, 60_000);
  const feed = await readFeed(h, 'clerk');
  const received: ReturnType<typeof parseEventMessage>[] = [];
  await until('every event in the queue', async () => {
    received.push(...(await drain(rabbit, queue)).map((m) => parseEventMessage(m.body)));
    return feed.every((e) => received.some((r) => r.id === e.id));
  });
  // At least once: a publish whose confirm was lost in the outage may arrive twice; consumers dedup by id.
  const firstSeen = received.filter((e, i) => received.findIndex((x) => x.id === e.id) === i);
  assert.deepEqual(
    firstSeen.map((e) => e.id),
    feed.map((e) => e.id),
    'every event arrived, in commit order',
  );
  t.diagnostic(`${received.length - firstSeen.length} duplicate deliveries after the outage`);
});

test('the notifier and the accounting example each process every event they bind once, a repeated delivery included', async (t) => {
  const rabbit = await connectBroker(t);
  const dir = mkdtempSync(join(tmpdir(), 'corebridge-consumers-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const h = await startApp(t, { BROKER_URL: TEST_BROKER_URL });

  const consumers = Object.fromEntries(
    ['notifier', 'accounting'].map((name) => {
      const queue = `corebridge-test-example-${name}-${randomUUID().slice(0, 8)}`;
      deleteAfterTest(rabbit, queue);
      const store = join(dir, `${name}.sqlite`);
      return [
        name,
        {
          store,
          process: startProcess(t, [`examples/consumers/${name}.ts`], {
            BROKER_URL: TEST_BROKER_URL,
            QUEUE: queue,
            STORE: store,
          }),
        },
      ];
    }),
  );
  for (const [name, c] of Object.entries(consumers))
    await until(`${name} consuming`, () => c.process.stderr().includes('consuming'));

  const pay = (key: string, amount: number) =>
    h.request({
      method: 'POST',
      url: '/v1/payments',
      as: 'ada',
      headers: { 'idempotency-key': key },
      body: { debtorAccount: '1001-01', creditorAccount: '1002-01', amount, currency: 'EUR' },
    });
  assert.equal((await pay('c-1', 12.5)).statusCode, 201);
  assert.equal((await pay('c-2', 7.25)).statusCode, 201);
  assert.equal(
    (
      await h.request({
        method: 'POST',
        url: '/v1/loan-applications',
        as: 'ada',
        body: { customerId: '1001', amount: 1000, installments: 12 },
      })
    ).statusCode,
    201,
  );
  assert.equal(
    (
      await h.request({
        method: 'POST',
        url: '/v1/loan-applications',
        as: 'grace',
        body: { customerId: '1003', amount: 1000, installments: 12 },
      })
    ).statusCode,
    200,
  );

  const notifier = consumers['notifier']!.process;
  const accounting = consumers['accounting']!.process;
  await until('the notifier told of four events', () => notifier.lines.length === 4);
  await until('accounting counted three events', () => accounting.lines.length === 3);

  // The same event again, as a broker may deliver it after a lost acknowledgement.
  const [payment] = await feedWhen(h, 'clerk', (e) => e.length === 4);
  const publisher = rabbit.createPublisher({ confirm: true });
  await publisher.send(
    { exchange: 'corebridge.events', routingKey: payment!.type, durable: true, messageId: payment!.id },
    Buffer.from(JSON.stringify(payment)),
  );
  await publisher.close();
  await until('both saw the repeated delivery', () =>
    [notifier, accounting].every((p) => p.lines.some((l) => l['duplicate'] === true)),
  );

  const totals = new DatabaseSync(consumers['accounting']!.store, { readOnly: true });
  t.after(() => totals.close());
  assert.deepEqual(
    totals
      .prepare('SELECT account, currency, minor_units, events FROM totals ORDER BY account')
      .all()
      .map((r) => ({ ...r })),
    [
      { account: 'loans-granted', currency: 'EUR', minor_units: 100_000, events: 1 },
      { account: 'payments', currency: 'EUR', minor_units: 1975, events: 2 },
    ],
    'counted once each: 12.50 + 7.25 paid, 1,000.00 granted',
  );
  const notifications = new DatabaseSync(consumers['notifier']!.store, { readOnly: true });
  t.after(() => notifications.close());
  const texts = notifications
    .prepare('SELECT text FROM notifications')
    .all()
    .map((r) => String(r['text']));
  assert.equal(texts.length, 4);
  assert.ok(texts.includes('You paid 12.5 EUR to 1002-01.'), texts.join(' | '));
  assert.ok(
    texts.some((text) => text.startsWith('We cannot offer you this loan (RISK_RATING)')),
    texts.join(' | '),
  );
});

test('with a broker, operations run later go through its durable queue per transaction, and complete once across a restart', async (t) => {
  const rabbit = await connectBroker(t);
  const h = await startApp(t, { BROKER_URL: TEST_BROKER_URL });
  const before = (await h.request({ method: 'GET', url: '/v1/accounts/1001-01/balance', as: 'clerk' })).json().balance;
  const submitted = await Promise.all(
    Array.from({ length: 10 }, (_, i) =>
      h.request({
        method: 'POST',
        url: '/v1/payments',
        as: 'ada',
        headers: { prefer: 'respond-async', 'idempotency-key': `mq-op-${i}` },
        body: { debtorAccount: '1001-01', creditorAccount: '1002-01', amount: 1, currency: 'EUR' },
      }),
    ),
  );
  assert.ok(submitted.every((r) => r.statusCode === 202));
  await h.restart();
  for (const r of submitted) {
    await until(
      'the operation ran',
      async () =>
        (await h.request({ method: 'GET', url: r.headers['location'] as string, as: 'ada' })).json().status ===
        'succeeded',
    );
  }
  assert.equal(
    (await h.request({ method: 'GET', url: '/v1/accounts/1001-01/balance', as: 'clerk' })).json().balance,
    before - 10,
    'ten payments, once each',
  );
  // The restarted API's consumer registers after it is ready, so it may not be counted yet.
  const paycrt = () => rabbit.queueDeclare({ queue: 'corebridge.operations.PAYCRT', durable: true, passive: true });
  await until('the API consumes the queue', async () => (await paycrt()).consumerCount >= 1);
  assert.equal((await paycrt()).messageCount, 0, 'nothing left in it');
  assert.deepEqual(
    h.logs.filter((l) => l['component'] === 'operations' && (l['level'] as number) >= 40),
    [],
    'every one went through the queue, none ran beside it',
  );
});
