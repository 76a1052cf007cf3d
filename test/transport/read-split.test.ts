/** Inquiries read on the API's thread, changes in the worker: routing by transaction code, read-your-writes. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { pino } from 'pino';
import { createBackend } from '../../src/backend/index.ts';
import {
  loadMessageCatalog,
  TRANSACTIONS,
  READ_ONLY_TRANSACTIONS,
  type TranCode,
} from '../../src/backend/copybooks/index.ts';
import { inquiryMatcher, RC, readHeader, writeMessage, type MessageHeader } from '../../src/backend/message.ts';
import { inProcessTransport } from '../../src/transport/in-process.ts';
import { splitReads } from '../../src/transport/read-split.ts';
import { openWorkerTransport } from '../../src/transport/worker.ts';

const catalog = loadMessageCatalog();
const silent = pino({ level: 'silent' });

function message(tran: TranCode, body: Record<string, unknown>, extra: Partial<MessageHeader> = {}): Buffer {
  return writeMessage(
    catalog,
    {
      tranCode: tran,
      correlationId: `c-${tran}`,
      principal: 'clerk',
      role: 'AGENT',
      customerId: '',
      idempotencyKey: '',
      returnCode: 0,
      reasonCode: '',
      reasonText: '',
      traceparent: '',
      ...extra,
    },
    catalog.request(tran),
    body,
  );
}

test('the inquiry matcher recognises exactly the read-only transactions from the header bytes', () => {
  const isInquiry = inquiryMatcher(catalog);
  for (const tran of Object.keys(TRANSACTIONS) as TranCode[]) {
    const header = catalog.header.encode({ hdrTranCode: tran });
    assert.equal(isInquiry(header), READ_ONLY_TRANSACTIONS.has(tran), tran);
  }
  assert.equal(isInquiry(Buffer.alloc(3)), false, 'a message too short for a header is not an inquiry');
});

test('reads on a read-only connection see every write the worker has answered; a change sent to the reader is refused', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'corebridge-split-'));
  const file = join(dir, 'backend.sqlite');
  const worker = await openWorkerTransport({ file, logLevel: 'silent', logger: silent });
  const readOnlyBackend = await createBackend({ file, log: silent, catalog, readOnly: true });
  const reader = inProcessTransport(readOnlyBackend);
  const transport = splitReads(inquiryMatcher(catalog), reader, worker, () => readOnlyBackend.refresh());
  t.after(async () => {
    await transport.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const balance = async () => {
    const { header, body } = readHeader(catalog, await transport.call(message('ACCBAL', { acckAccountId: '1002-01' })));
    assert.equal(header.returnCode, RC.OK);
    return catalog.response('ACCBAL').decode(body)['accbBalance'];
  };
  assert.equal(await balance(), 1200);
  for (let i = 1; i <= 5; i++) {
    const paid = readHeader(
      catalog,
      await transport.call(
        message(
          'PAYCRT',
          {
            paycDebtorAccount: '1003-01',
            paycCreditorAccount: '1002-01',
            paycAmount: 10,
            paycCurrencyCode: 'EUR',
          },
          { idempotencyKey: `split-${i}` },
        ),
      ),
    );
    assert.equal(paid.header.returnCode, RC.OK);
    assert.equal(await balance(), 1200 + 10 * i, 'the answered payment is visible to the next read');
  }
  const refused = readHeader(
    catalog,
    await reader.call(
      message(
        'PAYCRT',
        {
          paycDebtorAccount: '1003-01',
          paycCreditorAccount: '1002-01',
          paycAmount: 10,
          paycCurrencyCode: 'EUR',
        },
        { idempotencyKey: 'split-x' },
      ),
    ),
  );
  assert.equal(refused.header.returnCode, RC.ABEND);
  assert.equal(refused.header.reasonCode, 'READ_ONLY_BACKEND');
  assert.equal(await balance(), 1250, 'the refused change moved nothing');
  assert.equal(await transport.ready(), true);
});

test('a read-only back-end reads one snapshot per event-loop turn, ended early by refresh()', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'corebridge-snapshot-'));
  const file = join(dir, 'backend.sqlite');
  const owner = await createBackend({ file, log: silent, catalog });
  const reader = await createBackend({ file, log: silent, catalog, readOnly: true });
  t.after(() => {
    reader.close();
    owner.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const balance = async () => {
    const { header, body } = readHeader(catalog, await reader.handle(message('ACCBAL', { acckAccountId: '1002-01' })));
    assert.equal(header.returnCode, RC.OK);
    return catalog.response('ACCBAL').decode(body)['accbBalance'];
  };
  const pay = async (key: string) =>
    readHeader(
      catalog,
      await owner.handle(
        message(
          'PAYCRT',
          {
            paycDebtorAccount: '1003-01',
            paycCreditorAccount: '1002-01',
            paycAmount: 10,
            paycCurrencyCode: 'EUR',
          },
          { idempotencyKey: key },
        ),
      ),
    ).header.returnCode;

  assert.equal(await balance(), 1200);
  assert.equal(await pay('snap-1'), RC.OK);
  assert.equal(await balance(), 1200, 'the same turn reads the same snapshot');
  reader.refresh();
  assert.equal(await balance(), 1210, 'after refresh() the committed payment is visible');
  assert.equal(await pay('snap-2'), RC.OK);
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(await balance(), 1220, 'the next turn reads a new snapshot');
});
