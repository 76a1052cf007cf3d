/**
 * Caps on webhook work: subscriptions per owner (WEBHOOK_MAX_SUBSCRIPTIONS), enforced by the back-end in the
 * transaction that creates one, also under concurrent creates; and the relay's fan-out, which writes a bounded
 * number of deliveries per turn and still gives each subscription each event exactly once, in order.
 * On either engine (TEST_DATABASE=postgres).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { pino } from 'pino';
import { ROLE_SCOPES } from '../../src/auth/roles.ts';
import { createBackend } from '../../src/backend/index.ts';
import { loadMessageCatalog, type RequestRecord, type TranCode } from '../../src/backend/copybooks/index.ts';
import { BLANK_HEADER, RC, readHeader, writeMessage, type MessageHeader } from '../../src/backend/message.ts';
import { MAX_DELIVERIES_PER_TURN } from '../../src/backend/programs/webhooks.ts';
import { newWebhookSecret, parseKeyring } from '../../src/events/webhook-secrets.ts';
import { createTestDatabase, dropTestDatabases, queryStoreAt } from '../../support/database.ts';
import { startApp, type TestApp } from '../helpers/app.ts';
import { tempDir, testOnPostgres } from '../helpers/backend-store.ts';
import { startReceiver } from '../helpers/webhook-receiver.ts';

const catalog = loadMessageCatalog();
after(dropTestDatabases);

function create(h: TestApp, as: string | { token: string }, url: string) {
  return h.request({
    method: 'POST',
    url: '/v1/webhook-subscriptions',
    ...(typeof as === 'string' ? { as } : as),
    body: { url, eventTypes: ['OrderConfirmed'] },
  });
}

async function count(h: TestApp, as: string): Promise<number> {
  return (await h.request({ method: 'GET', url: '/v1/webhook-subscriptions?limit=100', as })).json().items.length;
}

test('an owner keeps at most WEBHOOK_MAX_SUBSCRIPTIONS (25 by default): the 26th is 422 naming the limit; a delete frees a place; another owner has its own', async (t) => {
  const receiver = await startReceiver(t);
  const h = await startApp(t, receiver.env);
  const ids: string[] = [];
  for (let i = 0; i < 25; i++) {
    const res = await create(h, 'clerk', `${receiver.url}/${i}`);
    assert.equal(res.statusCode, 201, `subscription ${i + 1}: ${res.body}`);
    ids.push(res.json().subscriptionId);
  }
  const refused = await create(h, 'clerk', `${receiver.url}/26`);
  assert.equal(refused.statusCode, 422, refused.body);
  assert.match(String(refused.headers['content-type']), /^application\/problem\+json/);
  const problem = refused.json();
  assert.equal(problem.code, 'BUSINESS_RULE_VIOLATION');
  assert.equal(problem.reason, 'SUBSCRIPTION_LIMIT_REACHED');
  assert.match(problem.detail, /at most 25 webhook subscriptions/);
  assert.equal(await count(h, 'clerk'), 25, 'nothing stored');

  // Per owner, not for everyone: a partner still subscribes.
  const partner = {
    token: await h.app.devIssuer.sign({
      subject: 'globex',
      role: 'partner',
      clientId: 'globex',
      scopes: ROLE_SCOPES.partner,
    }),
  };
  assert.equal((await create(h, partner, `${receiver.url}/globex`)).statusCode, 201);

  const deleted = await h.request({ method: 'DELETE', url: `/v1/webhook-subscriptions/${ids[0]}`, as: 'clerk' });
  assert.equal(deleted.statusCode, 204);
  assert.equal((await create(h, 'clerk', `${receiver.url}/again`)).statusCode, 201, 'the freed place is taken');
  assert.equal((await create(h, 'clerk', `${receiver.url}/more`)).statusCode, 422, 'and then full again');
  assert.equal(await count(h, 'clerk'), 25);
});

test('concurrent creates at the edge of the cap never pass it', async (t) => {
  const receiver = await startReceiver(t);
  const h = await startApp(t, { ...receiver.env, WEBHOOK_MAX_SUBSCRIPTIONS: '4' });
  for (let i = 0; i < 2; i++) assert.equal((await create(h, 'clerk', `${receiver.url}/${i}`)).statusCode, 201);
  for (let round = 0; round < 2; round++) {
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) => create(h, 'clerk', `${receiver.url}/r${round}-${i}`)),
    );
    const statuses = answers.map((a) => a.statusCode).sort();
    assert.deepEqual(
      statuses,
      round === 0 ? [201, 201, 422, 422, 422, 422, 422, 422] : Array(8).fill(422),
      `round ${round}: ${answers.map((a) => a.body).join('\n')}`,
    );
    assert.equal(await count(h, 'clerk'), 4);
  }
});

test(
  'on PostgreSQL, creates at once from two back-end instances sharing a database never pass the cap',
  {
    skip: !testOnPostgres && 'PostgreSQL only (TEST_DATABASE=postgres): SQLite has one writer',
  },
  async (t) => {
    const databaseUrl = await createTestDatabase();
    const instances = await Promise.all(
      [1, 2].map(() => createBackend({ file: '', databaseUrl, log: pino({ level: 'silent' }), catalog })),
    );
    t.after(() => Promise.all(instances.map((b) => b.close())));
    const keyring = parseKeyring(`t1:${randomBytes(32).toString('base64')}`, 'WEBHOOK_SECRET_KEY');
    const max = 5;
    const attempt = async (i: number) => {
      const reply = await instances[i % 2]!.handle(
        writeMessage(
          catalog,
          { ...BLANK_HEADER, correlationId: `c${i}`, principal: 'clerk', role: 'AGENT', tranCode: 'WHKCRT' },
          catalog.request('WHKCRT'),
          {
            whkcUrl: `https://hooks.example.com/${i}`,
            whkcDescription: '',
            whkcSecret: keyring.seal(newWebhookSecret()),
            whkcEventTypeCount: 1,
            whkcEventTypes: [{ whkcEventType: 'PaymentCompleted' }],
            whkcMaxSubscriptions: max,
          },
        ),
      );
      return readHeader(catalog, reply).header;
    };
    const headers = await Promise.all(Array.from({ length: 24 }, (_, i) => attempt(i)));
    const accepted = headers.filter((h) => h.returnCode === RC.OK).length;
    const refused = headers.filter((h) => h.reasonCode === 'SUBSCRIPTION_LIMIT_REACHED').length;
    assert.deepEqual({ accepted, refused }, { accepted: max, refused: 24 - max });
    const stored = await queryStoreAt({ databaseUrl, file: '' }, 'SELECT COUNT(*) AS n FROM webhook_subscriptions');
    assert.equal(Number(stored[0]!['n']), max);
  },
);

test('the fan-out writes at most MAX_DELIVERIES_PER_TURN rows a turn, whole events, and each subscription gets each event once, in order', async (t) => {
  const databaseUrl = testOnPostgres ? await createTestDatabase() : null;
  const file = databaseUrl ? '' : join(tempDir(t, 'fan-out'), 'backend.sqlite');
  const backend = await createBackend({ file, databaseUrl, log: pino({ level: 'silent' }), catalog });
  t.after(() => backend.close());
  const send = async <T extends TranCode>(caller: Partial<MessageHeader>, tran: T, record: RequestRecord<T>) => {
    const reply = await backend.handle(
      writeMessage(
        catalog,
        { ...BLANK_HEADER, correlationId: 'c', ...caller, tranCode: tran },
        catalog.request(tran),
        record,
      ),
    );
    const { header, body } = readHeader(catalog, reply);
    assert.equal(header.returnCode, RC.OK, `${tran}: ${header.reasonCode} ${header.reasonText}`);
    return catalog.response(tran).decode(body) as Record<string, unknown>;
  };
  const keyring = parseKeyring(`t1:${randomBytes(32).toString('base64')}`, 'WEBHOOK_SECRET_KEY');
  // More subscriptions × events than one turn writes: 70 × 20 = 1400 deliveries.
  const subscriptions = 70;
  const events = 20;
  assert.ok(subscriptions * events > MAX_DELIVERIES_PER_TURN && subscriptions <= MAX_DELIVERIES_PER_TURN);
  const agent = { principal: 'clerk', role: 'AGENT' };
  for (let i = 0; i < subscriptions; i++) {
    await send(agent, 'WHKCRT', {
      whkcUrl: `https://hooks.example.com/${i}`,
      whkcDescription: '',
      whkcSecret: keyring.seal(newWebhookSecret()),
      whkcEventTypeCount: 1,
      whkcEventTypes: [{ whkcEventType: 'PaymentCompleted' }],
      whkcMaxSubscriptions: subscriptions,
    });
  }
  for (let i = 0; i < events; i++) {
    await send({ principal: 'ada', role: 'CUSTOMER', customerId: '1001', idempotencyKey: `fan-${i}` }, 'PAYCRT', {
      paycDebtorAccount: '1001-01',
      paycCreditorAccount: '1002-01',
      paycAmount: 1,
      paycCurrencyCode: 'EUR',
      paycRemittance: '',
    });
  }
  const store = { databaseUrl, file };
  const deliveryCount = async () =>
    Number((await queryStoreAt(store, 'SELECT COUNT(*) AS n FROM webhook_deliveries'))[0]!['n']);
  const system = { principal: 'SYSTEM', role: 'SYSTEM' };
  const written: number[] = [];
  for (let turn = 0; turn < 10; turn++) {
    const before = await deliveryCount();
    const list = await send(system, 'EVTNXT', { evtnRelayId: 'relay-1', evtnLeaseSeconds: 10, evtnMaxItems: 0 });
    written.push((await deliveryCount()) - before);
    if (list['evtoMore'] !== 'Y') break;
  }
  assert.ok(written.length > 1, `more than one turn: ${written.join(', ')}`);
  for (const n of written) {
    assert.ok(n <= MAX_DELIVERIES_PER_TURN, `a turn wrote ${n}`);
    assert.equal(n % subscriptions, 0, `whole events only: ${n}`);
  }
  assert.equal(
    written.reduce((a, b) => a + b, 0),
    subscriptions * events,
  );

  const rows = await queryStoreAt(
    store,
    `SELECT d.subscription_id, d.event_id, e.position FROM webhook_deliveries d JOIN events e ON e.event_id = d.event_id
     ORDER BY d.seq`,
  );
  const perSubscription = new Map<string, number[]>();
  for (const row of rows) {
    const list = perSubscription.get(String(row['subscription_id'])) ?? [];
    list.push(Number(row['position']));
    perSubscription.set(String(row['subscription_id']), list);
  }
  assert.equal(perSubscription.size, subscriptions);
  const positions = (
    await queryStoreAt(store, "SELECT position FROM events WHERE event_type = 'PaymentCompleted' ORDER BY position")
  ).map((r) => Number(r['position']));
  assert.equal(positions.length, events);
  for (const [id, got] of perSubscription) assert.deepEqual(got, positions, `${id}: each event once, in order`);
});
