/**
 * The same cases over every transport (in-process, worker thread, TLS to a back-end service), then what only
 * the worker transport does (the TLS transport's own cases: tcp.test.ts).
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { test, type TestContext } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import { createBackend, type Backend } from '../../src/backend/index.ts';
import { loadMessageCatalog, type TranCode } from '../../src/backend/copybooks/index.ts';
import { RC, readHeader, writeMessage } from '../../src/backend/message.ts';
import { createLogger } from '../../src/logger.ts';
import { inProcessTransport } from '../../src/transport/in-process.ts';
import { TransportError, type Transport } from '../../src/transport/transport.ts';
import { JOIN_NEXT_BATCH_MS, openWorkerTransport, packMessages, unpackMessages } from '../../src/transport/worker.ts';
import { connectTls, startBackendService } from '../helpers/backend-service.ts';
import { tempDir } from '../helpers/backend-store.ts';

const catalog = loadMessageCatalog();
const silent = pino({ level: 'silent' });

function tempFile(t: TestContext): string {
  return join(tempDir(t, 'transport'), 'backend.sqlite');
}

const TRANSPORTS: Array<{ name: string; open(file: string, t: TestContext): Promise<Transport> }> = [
  { name: 'in-process', open: async (file) => inProcessTransport(await createBackend({ file, log: silent, catalog })) },
  { name: 'worker', open: (file) => openWorkerTransport({ file, logLevel: 'silent', logger: silent }) },
  {
    // The API's TLS transport to a back-end service (a worker behind the mutual-TLS listener): closing it
    // closes the whole chain, as stopping an API and then its back-end would.
    name: 'tls',
    open: async (file, t) => {
      const running = await startBackendService(t, { file });
      const client = await connectTls(t, [running.url], { connectionsPerBackend: 1 });
      assert.equal(await client.connected(5000), true);
      return { call: client.call, ready: client.ready, close: () => client.close().then(running.stop) };
    },
  },
];

async function open(t: TestContext, kind: (typeof TRANSPORTS)[number]): Promise<Transport> {
  const transport = await kind.open(tempFile(t), t);
  t.after(() => transport.close());
  return transport;
}

function message(tran: TranCode, correlationId: string, record: Record<string, unknown>, idempotencyKey = ''): Buffer {
  return writeMessage(
    catalog,
    {
      tranCode: tran,
      correlationId,
      principal: 'clerk',
      role: 'AGENT',
      customerId: '',
      idempotencyKey,
      returnCode: 0,
      reasonCode: '',
      reasonText: '',
      traceparent: '',
    },
    catalog.request(tran),
    record,
  );
}

function decode(tran: TranCode, response: Buffer) {
  const { header, body } = readHeader(catalog, response);
  return { header, record: header.returnCode === RC.OK ? catalog.response(tran).decode(body) : {} };
}

/** The balance in minor units. */
async function balance(transport: Transport, account: string): Promise<number> {
  const { header, record } = decode(
    'ACCBAL',
    await transport.call(message('ACCBAL', `balance-${account}`, { acckAccountId: account })),
  );
  assert.equal(header.returnCode, RC.OK);
  return Math.round(Number(record['accbBalance']) * 100);
}

function payment(i: number) {
  const minor = (i % 7) + 1;
  return {
    minor,
    request: message(
      'PAYCRT',
      `pay-${i}`,
      {
        paycDebtorAccount: '1003-01',
        paycCreditorAccount: '1001-01',
        paycAmount: minor / 100,
        paycCurrencyCode: 'EUR',
        paycRemittance: `test ${i}`,
      },
      `key-${i}`,
    ),
  };
}

for (const kind of TRANSPORTS) {
  test(`${kind.name}: an ACCBAL call goes there and back as encoded bytes`, async (t) => {
    const transport = await open(t, kind);
    const { header, record } = decode(
      'ACCBAL',
      await transport.call(message('ACCBAL', 'transport-1', { acckAccountId: '1002-01' })),
    );
    assert.equal(header.returnCode, RC.OK);
    assert.equal(header.correlationId, 'transport-1');
    assert.equal(record['accbAccountId'], '1002-01');
    assert.equal(record['accbBalance'], 1200);
  });

  test(`${kind.name}: 200 concurrent payments each get their own answer and move the balances by exactly their sum`, async (t) => {
    const transport = await open(t, kind);
    const debtorBefore = await balance(transport, '1003-01');
    const creditorBefore = await balance(transport, '1001-01');
    const payments = Array.from({ length: 200 }, (_, i) => payment(i));
    const responses = await Promise.all(payments.map((p) => transport.call(p.request)));
    const ids = new Set<string>();
    responses.forEach((response, i) => {
      const { header, record } = decode('PAYCRT', response);
      assert.equal(header.correlationId, `pay-${i}`);
      assert.equal(header.returnCode, RC.OK, `payment ${i}: ${header.reasonCode}`);
      assert.equal(record['payStatus'], 'COMPLETED');
      assert.equal(record['payRemittance'], `test ${i}`);
      ids.add(String(record['payPaymentId']));
    });
    assert.equal(ids.size, 200);
    const sum = payments.reduce((total, p) => total + p.minor, 0);
    assert.equal(await balance(transport, '1003-01'), debtorBefore - sum);
    assert.equal(await balance(transport, '1001-01'), creditorBefore + sum);
  });

  test(`${kind.name}: close() still answers the calls already sent, then ready() is false and calls are refused`, async (t) => {
    const transport = await open(t, kind);
    assert.equal(await transport.ready(), true);
    const inFlight = Array.from({ length: 20 }, (_, i) => transport.call(payment(i).request));
    await transport.close();
    for (const response of await Promise.all(inFlight))
      assert.equal(decode('PAYCRT', response).header.returnCode, RC.OK);
    assert.equal(await transport.ready(), false);
    await assert.rejects(transport.call(message('ACCBAL', 'late', { acckAccountId: '1002-01' })), TransportError);
    await transport.close();
  });
}

test('in-process: each side gets its own copy of the bytes', async (t) => {
  const real = await createBackend({ file: tempFile(t), log: silent, catalog });
  let seen: Buffer | undefined;
  let answer: Buffer | undefined;
  const observed: Backend = {
    handle: (message) => real.handle(message),
    async handleBatch(messages) {
      seen = messages[0];
      const replies = await real.handleBatch(messages);
      answer = replies[0] as Buffer;
      return replies;
    },
    idle: () => real.idle(),
    refresh: () => real.refresh(),
    ready: () => real.ready(),
    close: () => real.close(),
  };
  const transport = inProcessTransport(observed);
  t.after(() => transport.close());
  const request = message('ACCBAL', 'transport-1', { acckAccountId: '1002-01' });
  const response = await transport.call(request);
  assert.notEqual(seen, request, 'the back-end gets its own copy');
  assert.ok(seen?.equals(request));
  assert.notEqual(response, answer, 'the caller gets its own copy');
  assert.ok(response.equals(answer!));
});

test('worker: a batch of messages crosses in one buffer and comes apart into the same messages', () => {
  // Small Buffers are slices of Node's shared pool: packing copies them into a buffer of their own.
  const pooled = Buffer.from('CBH1 pooled');
  const messages = [
    pooled,
    Buffer.alloc(0),
    message('ACCBAL', 'pack-1', { acckAccountId: '1002-01' }),
    Buffer.from([0, 255, 64]),
  ];
  const { ends, bytes } = packMessages(messages);
  assert.equal(
    bytes.byteLength,
    messages.reduce((n, m) => n + m.length, 0),
    'exactly the messages, not the pool around them',
  );
  const back = unpackMessages(ends, structuredClone(bytes, { transfer: [bytes] }));
  assert.deepEqual(
    back.map((m) => m.toString('hex')),
    messages.map((m) => m.toString('hex')),
  );
  assert.equal(bytes.byteLength, 0, 'the buffer was handed over, not copied');
  assert.equal(readHeader(catalog, back[2]!).header.correlationId, 'pack-1');
});

test("worker: the back-end's log lines reach the main logger's destination", async (t) => {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n'))
        if (line) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const transport = await openWorkerTransport({
    file: tempFile(t),
    logLevel: 'debug',
    logger: createLogger({ logLevel: 'debug' }, sink),
  });
  t.after(() => transport.close());
  await transport.call(message('ACCBAL', 'logged-1', { acckAccountId: '1002-01' }));
  const ended = lines.find((line) => line['requestId'] === 'logged-1');
  assert.equal(ended?.['msg'], 'transaction ended');
  assert.equal(ended?.['component'], 'backend');
  assert.equal(ended?.['tran'], 'ACCBAL');
  assert.equal(ended?.['level'], 20);
  assert.equal(ended?.['service'], 'corebridge');
});

test('worker: an aborted call is refused with TransportError', async (t) => {
  const transport = await openWorkerTransport({ file: tempFile(t), logLevel: 'silent', logger: silent });
  t.after(() => transport.close());
  const request = message('ACCBAL', 'aborted', { acckAccountId: '1002-01' });
  await assert.rejects(transport.call(request, { signal: AbortSignal.abort() }), TransportError);
  const controller = new AbortController();
  const pending = transport.call(request, { signal: controller.signal });
  controller.abort();
  await assert.rejects(pending, TransportError);
  assert.equal(decode('ACCBAL', await transport.call(request)).header.returnCode, RC.OK, 'the transport still serves');
});

test('worker: a call that joins the next batch crosses with the next call; alone, or at close(), it still goes', async (t) => {
  const transport = await openWorkerTransport({ file: tempFile(t), logLevel: 'silent', logger: silent });
  t.after(() => transport.close());
  const inquiry = (id: string) => message('ACCBAL', id, { acckAccountId: '1002-01' });
  const alone = decode('ACCBAL', await transport.call(inquiry('alone'), { joinNextBatch: true }));
  assert.equal(alone.header.returnCode, RC.OK);
  assert.equal(alone.record['accbBalance'], 1200);

  // A call made within the wait takes the held one along: the held one is not answered before it was made.
  let nextMade = false;
  const held = transport.call(inquiry('held'), { joinNextBatch: true }).then((reply) => ({ reply, nextMade }));
  await sleep(JOIN_NEXT_BATCH_MS / 2);
  nextMade = true;
  const next = transport.call(payment(1).request);
  const [first, second] = await Promise.all([held, next]);
  assert.equal(first.nextMade, true, 'the held call crossed with the next one');
  assert.equal(decode('ACCBAL', first.reply).header.correlationId, 'held');
  assert.equal(decode('PAYCRT', second).header.returnCode, RC.OK);

  const atClose = transport.call(inquiry('at-close'), { joinNextBatch: true });
  await transport.close();
  assert.equal(decode('ACCBAL', await atClose).header.correlationId, 'at-close');
});

test('worker: a stopped worker fails its calls in flight and the ones during the restart, logs the exit, and comes back', async (t) => {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  const transport = await openWorkerTransport({
    file: tempFile(t),
    logLevel: 'warn',
    logger: createLogger({ logLevel: 'warn' }, sink),
  });
  t.after(() => transport.close());
  const inFlight = Array.from({ length: 50 }, (_, i) =>
    transport.call(payment(i).request).then(
      (response) => decode('PAYCRT', response).header.returnCode,
      (error: unknown) => error,
    ),
  );
  await transport.terminateWorker();
  const outcomes = await Promise.all(inFlight);
  for (const outcome of outcomes) {
    if (typeof outcome === 'number') assert.equal(outcome, RC.OK);
    else assert.ok(outcome instanceof TransportError && outcome.message === 'back-end worker stopped', String(outcome));
  }
  assert.ok(outcomes.some((outcome) => outcome instanceof TransportError));
  // Refused at once while the new worker starts, never held.
  assert.equal(await transport.ready(), false);
  await assert.rejects(transport.call(payment(0).request), TransportError);
  const stopped = lines
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .find((line) => line['msg'] === 'back-end worker stopped; restarting it');
  assert.equal(stopped?.['level'], 50);
  assert.equal(stopped?.['exitCode'], 1);

  while (!(await transport.ready())) await new Promise((resolve) => setTimeout(resolve, 20));
  // Retrying every payment with its key: each exists once, and the balances moved by exactly their sum.
  const retried = await Promise.all(Array.from({ length: 50 }, (_, i) => transport.call(payment(i).request)));
  const ids = new Set(retried.map((response) => String(decode('PAYCRT', response).record['payPaymentId'])));
  assert.equal(ids.size, 50);
  const sum = Array.from({ length: 50 }, (_, i) => payment(i).minor).reduce((a, b) => a + b, 0);
  assert.equal(await balance(transport, '1003-01'), 1_000_000 - sum);
});

test("worker: a store that cannot be opened rejects openWorkerTransport with the worker's error", async (t) => {
  const file = tempFile(t);
  mkdirSync(file); // a directory where the SQLite file should be
  await assert.rejects(openWorkerTransport({ file, logLevel: 'silent', logger: silent }), (error: Error) => {
    assert.match(error.message, /database|open/i);
    return true;
  });
});
