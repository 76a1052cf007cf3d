/**
 * LINK to a program in another process (src/backend/links.ts), with a stand-in host that answers as the
 * COBOL host does (runLocalProgram: the same bytes) and can change the store while it "runs": the
 * transaction runs again with the answer, asks again when what it read has changed, and gives up after
 * three rounds; a host that fails is told by reason code.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { test, type TestContext } from 'node:test';
import { pino } from 'pino';
import { loadLinkCatalog, loadMessageCatalog } from '../../src/backend/copybooks/index.ts';
import { createBackend, type Backend } from '../../src/backend/index.ts';
import { runLocalProgram, type LinkHost } from '../../src/backend/links.ts';
import { RC, readHeader, writeMessage } from '../../src/backend/message.ts';
import { TransportError, TransportTimeoutError } from '../../src/transport/transport.ts';

const catalog = loadMessageCatalog();
const linkCatalog = loadLinkCatalog();

async function start(
  t: TestContext,
  call: (message: Buffer, store: DatabaseSync) => Promise<Buffer>,
  available = () => true,
) {
  const dir = mkdtempSync(join(tmpdir(), 'corebridge-links-'));
  const file = join(dir, 'backend.sqlite');
  const calls: Buffer[] = [];
  let store: DatabaseSync | undefined;
  const host: LinkHost = {
    async call(message) {
      calls.push(message);
      store ??= new DatabaseSync(file);
      return call(message, store);
    },
    available,
    close: async () => {},
  };
  const backend = await createBackend({
    file,
    log: pino({ level: 'silent' }),
    catalog,
    linkHost: { programs: new Set(['LNDECIDE']), host },
  });
  t.after(async () => {
    store?.close();
    await backend.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const loansStored = () => {
    const db = new DatabaseSync(file, { readOnly: true });
    try {
      return db
        .prepare('SELECT status, approved_amount FROM loan_applications')
        .all()
        .map((r) => ({ ...r }));
    } finally {
      db.close();
    }
  };
  return { backend, calls, loansStored };
}

async function apply(backend: Backend, amount = 10000) {
  const message = writeMessage(
    catalog,
    {
      tranCode: 'LNAPPL',
      correlationId: 'link-1',
      principal: 'clerk',
      role: 'AGENT',
      customerId: '',
      idempotencyKey: 'k-1',
      returnCode: 0,
      reasonCode: '',
      reasonText: '',
      traceparent: '',
    },
    catalog.request('LNAPPL'),
    { lnrqCustomerId: 1001, lnrqAmount: amount, lnrqInstallments: 24 },
  );
  const { header, body } = readHeader(catalog, await backend.handle(message));
  return { header, body: body.length > 0 ? catalog.response('LNAPPL').decode(body) : undefined };
}

const setIncome = (store: DatabaseSync, minor: number) =>
  store.prepare("UPDATE customers SET monthly_income = ? WHERE customer_id = '1001'").run(minor);

test('the transaction runs again with the answer of the program elsewhere, and only then writes', async (t) => {
  const { backend, calls, loansStored } = await start(t, async (message) => runLocalProgram(linkCatalog, message));
  const { header, body } = await apply(backend);
  assert.equal(header.returnCode, RC.OK);
  assert.equal(body?.['lnStatus'], 'APPROVED');
  assert.equal(body?.['lnInstallmentValue'], 447.27);
  assert.equal(calls.length, 1);
  assert.equal(readHeader(linkCatalog, calls[0]!).header.tranCode, 'LNDECIDE');
  assert.deepEqual(loansStored(), [{ status: 'APPROVED', approved_amount: 1_000_000 }]);
});

test('what the program read changed during the call: it asks again with the new values', async (t) => {
  const { backend, calls, loansStored } = await start(t, async (message, store) => {
    // The customer's income drops to 1,000.00 while the first decision is being made.
    if (calls.length === 1) setIncome(store, 100_000);
    return runLocalProgram(linkCatalog, message);
  });
  const { header, body } = await apply(backend);
  assert.equal(header.returnCode, RC.OK);
  assert.equal(calls.length, 2);
  assert.notDeepEqual(calls[0], calls[1]);
  // 40 % of 1,000.00 affords 8,900.00 over 24 months at 6.90 %: a reduced approval, not the first answer.
  assert.equal(body?.['lnStatus'], 'APPROVED');
  assert.equal(body?.['lnApprovedAmount'], 8900);
  assert.deepEqual(loansStored(), [{ status: 'APPROVED', approved_amount: 890_000 }]);
});

test('data that keeps changing: after three rounds, CONFLICT and nothing stored', async (t) => {
  const { backend, calls, loansStored } = await start(t, async (message, store) => {
    setIncome(store, 500_000 + calls.length);
    return runLocalProgram(linkCatalog, message);
  });
  const { header } = await apply(backend);
  assert.equal(header.returnCode, RC.CONFLICT);
  assert.equal(header.reasonCode, 'CHANGED_DURING_DECISION');
  assert.equal(calls.length, 3);
  assert.deepEqual(loansStored(), []);
});

test('a host that cannot answer: the reason says how, nothing stored', async (t) => {
  const cases: Array<[string, (message: Buffer) => Promise<Buffer>, (() => boolean) | undefined]> = [
    [
      'PROGRAM_UNAVAILABLE',
      async () => {
        throw new TransportError('host ended during the call');
      },
      undefined,
    ],
    [
      'PROGRAM_UNAVAILABLE',
      async () => {
        throw new Error('not called');
      },
      () => false,
    ],
    [
      'PROGRAM_TIMEOUT',
      async () => {
        throw new TransportTimeoutError('too slow');
      },
      undefined,
    ],
    [
      'PROGRAM_FAILED',
      async (message) => {
        // What the COBOL host's exit handler sends when the program ends the run unit.
        const reply = Buffer.from(message);
        const { header } = readHeader(linkCatalog, reply);
        writeMessage(
          linkCatalog,
          {
            ...header,
            returnCode: RC.ABEND,
            reasonCode: 'PROGRAM_ABEND',
            reasonText: 'program LNDECIDE ended the run unit',
          },
          null,
          undefined,
        ).copy(reply);
        return reply;
      },
      undefined,
    ],
  ];
  for (const [reason, call, available] of cases) {
    const { backend, loansStored } = await start(t, call, available);
    const { header } = await apply(backend);
    assert.equal(header.returnCode, RC.ABEND, reason);
    assert.equal(header.reasonCode, reason);
    assert.deepEqual(loansStored(), []);
  }
});
