/**
 * Operations run later, at the back-end: a run repeated after a runner died between the payment's commit and
 * recording the outcome (OPDONE) has one effect, and an operation completes once.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { pino } from 'pino';
import { createBackend } from '../../src/backend/index.ts';
import { loadMessageCatalog, type RequestRecord, type TranCode } from '../../src/backend/copybooks/index.ts';
import {
  BLANK_HEADER,
  RC,
  readHeader,
  segmentReader,
  writeMessage,
  type MessageHeader,
} from '../../src/backend/message.ts';
import { decodeResponse } from '../../src/client/backend-client.ts';

const catalog = loadMessageCatalog();
const SYSTEM = { ...BLANK_HEADER, principal: 'corebridge-operations', role: 'SYSTEM', correlationId: 'runner' };
const PAYMENT = {
  paycDebtorAccount: '1001-01',
  paycCreditorAccount: '1002-01',
  paycAmount: 3,
  paycCurrencyCode: 'EUR',
  paycRemittance: '',
};

test('a run repeated after a crash before OPDONE pays once; the operation completes once', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'corebridge-ops-'));
  const backend = await createBackend({ file: join(dir, 'backend.sqlite'), log: pino({ level: 'silent' }), catalog });
  t.after(async () => {
    await backend.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const send = async <T extends TranCode>(
    header: MessageHeader,
    tran: T,
    record: RequestRecord<T>,
    segment?: Buffer,
  ) => {
    const head = writeMessage(catalog, { ...header, tranCode: tran }, catalog.request(tran), record);
    const { header: h, body: bytes } = readHeader(
      catalog,
      await backend.handle(segment ? Buffer.concat([head, segment]) : head),
    );
    return {
      header: h,
      ...(h.returnCode <= RC.REJECTED && bytes.length
        ? decodeResponse(catalog, tran, bytes)
        : { body: undefined, segments: Buffer.alloc(0) }),
    };
  };
  const ada: MessageHeader = {
    ...BLANK_HEADER,
    correlationId: 'req-1',
    principal: 'ada',
    role: 'CUSTOMER',
    customerId: '1001',
    idempotencyKey: 'k-1',
  };
  const balance = async () => (await send(ada, 'ACCBAL', { acckAccountId: '1001-01' })).body!.accbBalance;
  const before = await balance();

  const submitted = await send(ada, 'OPSUBM', { opsTranCode: 'PAYCRT' }, catalog.segment('PAYCRTI').encode(PAYMENT));
  assert.equal(submitted.header.returnCode, RC.OK);
  const operationId = submitted.body!.oprOperationId;

  const claim = async () => {
    const out = await send(SYSTEM, 'OPNXT', { opnMaxItems: 10, opnLeaseSeconds: 1 });
    const read = segmentReader(catalog, out.segments);
    return Array.from({ length: out.body!.seglItemCount }, () => ({ task: read('OPTASK'), record: read('PAYCRTI') }));
  };
  const run = async ({ task, record }: Awaited<ReturnType<typeof claim>>[number]) =>
    send(
      {
        ...BLANK_HEADER,
        correlationId: task.optCorrelationId,
        principal: task.optPrincipal,
        role: task.optRole,
        customerId: task.optCustomerId,
        idempotencyKey: task.optIdempotencyKey,
      },
      'PAYCRT',
      record,
    );

  const [first] = await claim();
  assert.equal(first?.task.optOperationId, operationId);
  const paid = await run(first!);
  assert.equal(paid.header.returnCode, RC.OK);
  // the runner dies here: no OPDONE. Its claim holds for the lease, then the operation is due again.
  assert.deepEqual(await claim(), []);
  await new Promise((r) => setTimeout(r, 1100));
  const [second] = await claim();
  assert.equal(second?.task.optOperationId, operationId);
  const again = await run(second!);
  assert.equal(again.body!.payPaymentId, paid.body!.payPaymentId, 'the same payment: the key found the first run');
  const response = catalog.response('PAYCRT').encode(again.body);
  const done = await send(
    SYSTEM,
    'OPDONE',
    {
      opdOperationId: operationId,
      opdReturnCode: RC.OK,
      opdReasonCode: '',
      opdReasonText: '',
      opdResultRecord: 'PAYREC',
    },
    response,
  );
  assert.equal(done.body!['oprStatus'], 'succeeded');
  const twice = await send(SYSTEM, 'OPDONE', {
    opdOperationId: operationId,
    opdReturnCode: RC.NOT_FOUND,
    opdReasonCode: 'X',
    opdReasonText: '',
    opdResultRecord: '',
  });
  assert.equal(twice.body!['oprStatus'], 'succeeded', 'completed once: a second outcome changes nothing');
  assert.equal(twice.body!['oprCompletedAt'], done.body!['oprCompletedAt']);
  assert.deepEqual(await claim(), []);
  assert.equal(await balance(), before - 3, 'paid once');

  // Only the SYSTEM caller claims; a customer cannot.
  assert.equal((await send(ada, 'OPNXT', { opnMaxItems: 10, opnLeaseSeconds: 1 })).header.reasonCode, 'INVALID_CALLER');
});
