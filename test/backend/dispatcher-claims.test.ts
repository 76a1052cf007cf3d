/**
 * Webhook deliveries are claimed once, whoever asks: two dispatcher turns at the same moment (two API
 * instances on one PostgreSQL database, each transaction READ COMMITTED) never both get the same delivery.
 * Needs the local PostgreSQL server: without it, this fails.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, test } from 'node:test';
import { pino } from 'pino';
import { createBackendClient } from '../../src/client/backend-client.ts';
import { systemCaller } from '../../src/client/system-caller.ts';
import { createMetrics } from '../../src/observability/metrics.ts';
import { createBackend } from '../../src/backend/index.ts';
import { loadMessageCatalog, type RequestRecord, type TranCode } from '../../src/backend/copybooks/index.ts';
import { BLANK_HEADER, RC, readHeader, writeMessage, type MessageHeader } from '../../src/backend/message.ts';
import { inProcessTransport } from '../../src/transport/in-process.ts';
import { newWebhookSecret, parseKeyring } from '../../src/events/webhook-secrets.ts';
import { createTestDatabase, dropTestDatabases } from '../../support/database.ts';

const catalog = loadMessageCatalog();
after(dropTestDatabases);

test('two dispatcher turns at once on PostgreSQL, from two back-end instances, claim a due delivery once', async (t) => {
  const databaseUrl = await createTestDatabase();
  const backend = await createBackend({ file: '', databaseUrl, log: pino({ level: 'silent' }), catalog });
  t.after(() => backend.close());
  const other = await createBackend({ file: '', databaseUrl, log: pino({ level: 'silent' }), catalog });
  t.after(() => other.close());
  const send = async <T extends TranCode>(caller: Partial<MessageHeader>, tran: T, record: RequestRecord<T>) => {
    const { header } = readHeader(
      catalog,
      await backend.handle(
        writeMessage(
          catalog,
          { ...BLANK_HEADER, correlationId: 'c', ...caller, tranCode: tran },
          catalog.request(tran),
          record,
        ),
      ),
    );
    assert.equal(header.returnCode, RC.OK, `${tran}: ${header.reasonCode} ${header.reasonText}`);
  };
  await send({ principal: 'clerk', role: 'AGENT' }, 'WHKCRT', {
    whkcUrl: 'https://hooks.example.com/corebridge',
    whkcDescription: '',
    whkcSecret: parseKeyring(`t1:${randomBytes(32).toString('base64')}`, 'WEBHOOK_SECRET_KEY').seal(newWebhookSecret()),
    whkcEventTypeCount: 1,
    whkcEventTypes: [{ whkcEventType: 'PaymentCompleted' }],
    whkcMaxSubscriptions: 25,
  });
  await send({ principal: 'ada', role: 'CUSTOMER', customerId: '1001', idempotencyKey: 'claim-1' }, 'PAYCRT', {
    paycDebtorAccount: '1001-01',
    paycCreditorAccount: '1002-01',
    paycAmount: 1,
    paycCurrencyCode: 'EUR',
    paycRemittance: '',
  });
  const client = (of: typeof backend) =>
    createBackendClient({
      catalog,
      transport: inProcessTransport(of),
      observability: { metrics: createMetrics(), tracing: null },
    });
  const system = systemCaller(client(backend), 'test-dispatcher');
  // The relay's turn gives the event its position and makes the subscription's delivery.
  await system('EVTNXT', { evtnRelayId: 'relay-1', evtnLeaseSeconds: 10, evtnMaxItems: 0 });

  const elsewhere = systemCaller(client(other), 'test-dispatcher-2');
  const turn = (via: typeof system) =>
    via('WHDDUE', { whddMaxItems: 10, whddPerEndpoint: 16, whddLeaseSeconds: 30, whdrItemCount: 0, whdrItem: [] });
  for (let round = 0; round < 5; round++) {
    const [a, b] = await Promise.all([turn(system), turn(elsewhere)]);
    const claimed = a.body.seglItemCount + b.body.seglItemCount;
    // The first round claims it once; later rounds find it leased.
    assert.equal(claimed, round === 0 ? 1 : 0, `round ${round}: ${a.body.seglItemCount} + ${b.body.seglItemCount}`);
  }
});
