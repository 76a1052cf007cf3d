/**
 * The example consumers (examples/consumers) against the machine's RabbitMQ and the real app: each gets
 * the events it binds, from its own queue, and processes a repeated delivery only once.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import { startApp } from '../helpers/app.ts';
import { feedWhen } from '../helpers/events.ts';
import { startProcess, until } from '../helpers/processes.ts';
import { connectBroker, TEST_BROKER_URL } from '../helpers/rabbitmq.ts';

test('the notifier and the accounting example each process every event they bind once, a repeated delivery included', async (t) => {
  const rabbit = await connectBroker(t);
  const dir = mkdtempSync(join(tmpdir(), 'corebridge-consumers-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const h = await startApp(t, { BROKER_URL: TEST_BROKER_URL });

  const consumers = Object.fromEntries(['notifier', 'accounting'].map((name) => {
    const queue = `corebridge-test-example-${name}-${randomUUID().slice(0, 8)}`;
    t.after(async () => {
      await rabbit.queueDelete({ queue }).catch(() => undefined);
    });
    const store = join(dir, `${name}.sqlite`);
    return [name, { store, process: startProcess(t, [`examples/consumers/${name}.ts`], { BROKER_URL: TEST_BROKER_URL, QUEUE: queue, STORE: store }) }];
  }));
  for (const [name, c] of Object.entries(consumers)) await until(`${name} consuming`, () => c.process.stderr().includes('consuming'));

  const pay = (key: string, amount: number) => h.request({
    method: 'POST', url: '/v1/payments', as: 'ada', headers: { 'idempotency-key': key }, body: { debtorAccount: '1001-01', creditorAccount: '1002-01', amount, currency: 'EUR' },
  });
  assert.equal((await pay('c-1', 12.5)).statusCode, 201);
  assert.equal((await pay('c-2', 7.25)).statusCode, 201);
  assert.equal((await h.request({ method: 'POST', url: '/v1/loan-applications', as: 'ada', body: { customerId: 1001, amount: 1000, installments: 12 } })).statusCode, 201);
  assert.equal((await h.request({ method: 'POST', url: '/v1/loan-applications', as: 'grace', body: { customerId: 1003, amount: 1000, installments: 12 } })).statusCode, 200);

  const notifier = consumers['notifier']!.process;
  const accounting = consumers['accounting']!.process;
  await until('the notifier told of four events', () => notifier.lines.length === 4);
  await until('accounting counted three events', () => accounting.lines.length === 3);

  // The same event again, as a broker may deliver it after a lost acknowledgement.
  const [payment] = await feedWhen(h, 'clerk', (e) => e.length === 4);
  const publisher = rabbit.createPublisher({ confirm: true });
  await publisher.send({ exchange: 'corebridge.events', routingKey: payment!.type, durable: true, messageId: payment!.id }, Buffer.from(JSON.stringify(payment)));
  await publisher.close();
  await until('both saw the repeated delivery', () => [notifier, accounting].every((p) => p.lines.some((l) => l['duplicate'] === true)));

  const totals = new DatabaseSync(consumers['accounting']!.store, { readOnly: true });
  t.after(() => totals.close());
  assert.deepEqual(
    totals.prepare('SELECT account, currency, minor_units, events FROM totals ORDER BY account').all().map((r) => ({ ...r })),
    [
      { account: 'loans-granted', currency: 'EUR', minor_units: 100_000, events: 1 },
      { account: 'payments', currency: 'EUR', minor_units: 1975, events: 2 },
    ],
    'counted once each: 12.50 + 7.25 paid, 1,000.00 granted',
  );
  const notifications = new DatabaseSync(consumers['notifier']!.store, { readOnly: true });
  t.after(() => notifications.close());
  const texts = notifications.prepare('SELECT text FROM notifications').all().map((r) => String(r['text']));
  assert.equal(texts.length, 4);
  assert.ok(texts.includes('You paid 12.5 EUR to 1002-01.'), texts.join(' | '));
  assert.ok(texts.some((text) => text.startsWith('We cannot offer you this loan (RISK_RATING)')), texts.join(' | '));
});
