/** The back-end reached as a caller would: message bytes in, message bytes out. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { test, type TestContext } from 'node:test';
import { pino } from 'pino';
import { createBackend, type Backend } from '../../src/backend/index.ts';
import { loadMessageCatalog, type TranCode } from '../../src/backend/copybooks/index.ts';
import { RC, readHeader, writeMessage, type MessageHeader } from '../../src/backend/message.ts';

const catalog = loadMessageCatalog();

async function start(t: TestContext, level = 'debug') {
  const dir = mkdtempSync(join(tmpdir(), 'corebridge-backend-'));
  const logs: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _e, done) {
      for (const l of chunk.toString().split('\n')) if (l) logs.push(JSON.parse(l));
      done();
    },
  });
  const backend = await createBackend({ file: join(dir, 'backend.sqlite'), log: pino({ level }, sink), catalog });
  t.after(async () => {
    await backend.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { backend, logs };
}

function header(tran: string, extra: Partial<MessageHeader> = {}): MessageHeader {
  return {
    tranCode: tran,
    correlationId: 'corr-1',
    principal: 'ada',
    role: 'CUSTOMER',
    customerId: '1001',
    idempotencyKey: '',
    returnCode: 0,
    reasonCode: '',
    reasonText: '',
    traceparent: '',
    ...extra,
  };
}

async function call(
  backend: Backend,
  tran: TranCode,
  body: Record<string, unknown>,
  extra: Partial<MessageHeader> = {},
) {
  const reply = await backend.handle(writeMessage(catalog, header(tran, extra), catalog.request(tran), body));
  const { header: h, body: bytes } = readHeader(catalog, reply);
  return { header: h, body: bytes.length ? catalog.response(tran).decode(bytes) : undefined, bytes: reply };
}

test('the header comes back with the correlation id and the return code; EBCDIC on the wire', async (t) => {
  const { backend, logs } = await start(t);
  const out = await call(backend, 'ACCBAL', { acckAccountId: '1001-01' });
  assert.equal(out.header.returnCode, RC.OK);
  assert.equal(out.header.correlationId, 'corr-1');
  assert.equal(out.body?.['accbBalance'], 2500);
  // 'CBH1' in cp037.
  assert.deepEqual([...out.bytes.subarray(0, 4)], [0xc3, 0xc2, 0xc8, 0xf1]);
  // The back-end's own line is a debug line; at info the API's request line carries its facts.
  assert.ok(
    logs.some((l) => l['requestId'] === 'corr-1' && l['tran'] === 'ACCBAL' && l['rc'] === RC.OK && l['level'] === 20),
  );
});

test('at info the back-end writes no line for a transaction that ended normally', async (t) => {
  const { backend, logs } = await start(t, 'info');
  assert.equal((await call(backend, 'ACCBAL', { acckAccountId: '1001-01' })).header.returnCode, RC.OK);
  assert.deepEqual(logs, []);
});

test('a group commit keeps every transaction that succeeded and rolls back only the one that was refused', async (t) => {
  const { backend } = await start(t);
  const pay = (key: string, amount: number, debtor = '1003-01') =>
    writeMessage(
      catalog,
      header('PAYCRT', { idempotencyKey: key, correlationId: key, principal: 'clerk', role: 'AGENT', customerId: '' }),
      catalog.request('PAYCRT'),
      { paycDebtorAccount: debtor, paycCreditorAccount: '1001-01', paycAmount: amount, paycCurrencyCode: 'EUR' },
    );
  const replies = (
    await Promise.all(
      await backend.handleBatch([
        pay('g-1', 1),
        pay('g-2', 2, 'NO-SUCH'),
        pay('g-3', 3),
        writeMessage(
          catalog,
          header('ACCBAL', { principal: 'clerk', role: 'AGENT', customerId: '' }),
          catalog.request('ACCBAL'),
          { acckAccountId: '1001-01' },
        ),
      ]),
    )
  ).map((bytes) => readHeader(catalog, bytes));
  assert.deepEqual(
    replies.map((r) => r.header.correlationId),
    ['g-1', 'g-2', 'g-3', 'corr-1'],
  );
  assert.deepEqual(
    replies.map((r) => r.header.returnCode),
    [RC.OK, RC.NOT_FOUND, RC.OK, RC.OK],
  );
  // The inquiry in the same group sees the writes committed before it: 2,500.00 + 1.00 + 3.00.
  assert.equal(catalog.response('ACCBAL').decode(replies[3]!.body)['accbBalance'], 2504);
  assert.equal(
    (await call(backend, 'ACCBAL', { acckAccountId: '1003-01' }, { principal: 'clerk', role: 'AGENT', customerId: '' }))
      .body?.['accbBalance'],
    9996,
  );
  // The refused payment left nothing behind; its key is free for a correct request.
  const retried = readHeader(catalog, await backend.handle(pay('g-2', 2)));
  assert.equal(retried.header.returnCode, RC.OK);
});

test('payments are exactly-once per caller and key, even when the API layer forgot the first answer', async (t) => {
  const { backend } = await start(t);
  const body = {
    paycDebtorAccount: '1001-01',
    paycCreditorAccount: '1002-01',
    paycAmount: 10,
    paycCurrencyCode: 'EUR',
  };
  const first = await call(backend, 'PAYCRT', body, { idempotencyKey: 'once' });
  const retry = await call(backend, 'PAYCRT', body, { idempotencyKey: 'once', correlationId: 'corr-2' });
  assert.equal(first.header.returnCode, RC.OK);
  assert.equal(retry.body?.['payPaymentId'], first.body?.['payPaymentId']);
  assert.equal((await call(backend, 'ACCBAL', { acckAccountId: '1001-01' })).body?.['accbBalance'], 2490);
  const other = await call(backend, 'PAYCRT', { ...body, paycAmount: 11 }, { idempotencyKey: 'once' });
  assert.equal(other.header.returnCode, RC.CONFLICT);
  assert.equal(other.header.reasonCode, 'IDEMPOTENCY_KEY_REUSED');
  const noKey = await call(backend, 'PAYCRT', body);
  assert.equal(noKey.header.returnCode, RC.INVALID_INPUT);
});

test('refusals roll back; unknown transactions, bad callers and malformed records get return codes', async (t) => {
  const { backend } = await start(t);
  assert.equal((await call(backend, 'ORDINQ', { ordkOrderId: 'ORD-X' })).header.returnCode, RC.NOT_FOUND);
  const unknown = await backend.handle(writeMessage(catalog, header('NOSUCH'), null, undefined));
  assert.equal(readHeader(catalog, unknown).header.returnCode, RC.UNKNOWN_TRAN);
  const badRole = await call(backend, 'ACCBAL', { acckAccountId: '1001-01' }, { role: 'ROOT' });
  assert.equal(badRole.header.returnCode, RC.INVALID_INPUT);
  assert.equal(badRole.header.reasonCode, 'INVALID_CALLER');
  const truncated = await backend.handle(Buffer.alloc(10));
  assert.equal(readHeader(catalog, truncated).header.returnCode, RC.INVALID_INPUT);
  // A packed-decimal field with a bad nibble.
  const msg = writeMessage(catalog, header('PAYCRT', { idempotencyKey: 'k' }), catalog.request('PAYCRT'), {
    paycAmount: 1,
  });
  msg[catalog.header.maxLength + 32] = 0xff;
  const garbled = readHeader(catalog, await backend.handle(msg)).header;
  assert.equal(garbled.returnCode, RC.INVALID_INPUT);
  assert.equal(garbled.reasonCode, 'MALFORMED_RECORD');
});

test('a cancel releases stock; an update that fails leaves the order and stock unchanged', async (t) => {
  const { backend } = await start(t);
  const agent = { principal: 'clerk', role: 'AGENT', customerId: '' };
  const created = await call(
    backend,
    'ORDCRT',
    { ordcCustomerId: '1001', ordcProductId: 'P-200', ordcQuantity: 2 },
    agent,
  );
  assert.equal(created.body?.['ordStatus'], 'CONFIRMED');
  const id = String(created.body?.['ordOrderId']);
  const tooMany = await call(backend, 'ORDUPD', { orduOrderId: id, orduProductId: 'P-200', orduQuantity: 6 }, agent);
  assert.equal(tooMany.header.returnCode, RC.RULE_FAILED);
  // Stock is 3 left + 2 reserved: 5 laptops fit exactly, but not Ada's credit limit (9,495.00 > 5,000.00).
  const overLimit = await call(backend, 'ORDUPD', { orduOrderId: id, orduProductId: 'P-200', orduQuantity: 5 }, agent);
  assert.equal(overLimit.header.reasonCode, 'CREDIT_LIMIT_EXCEEDED');
  await call(backend, 'ORDCAN', { ordkOrderId: id }, agent);
  // All 5 back in stock: Grace... has a 2,000.00 limit; the clerk orders 1 laptop for her.
  const again = await call(
    backend,
    'ORDCRT',
    { ordcCustomerId: '1003', ordcProductId: 'P-200', ordcQuantity: 1 },
    agent,
  );
  assert.equal(again.body?.['ordStatus'], 'CONFIRMED');
  const rest = await call(
    backend,
    'ORDCRT',
    { ordcCustomerId: '1001', ordcProductId: 'P-200', ordcQuantity: 2 },
    agent,
  );
  assert.equal(rest.body?.['ordStatus'], 'CONFIRMED');
  const none = await call(
    backend,
    'ORDCRT',
    { ordcCustomerId: '1001', ordcProductId: 'P-200', ordcQuantity: 3 },
    agent,
  );
  assert.equal(none.body?.['ordRejectReason'], 'OUT_OF_STOCK');
});
