/**
 * The back-end's worker thread dies while payments are in flight: callers get 503 + Retry-After, the
 * transport comes back, retries under the same Idempotency-Key succeed, and the store holds every
 * payment exactly once with the money conserved.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { createLogger } from '../../src/logger.ts';
import { ROLE_SCOPES } from '../../src/auth/roles.ts';
import { Payment } from '../../src/resources/payment.ts';
import { backendFile } from '../../src/backend/index.ts';
import { loadConfig } from '../../src/config.ts';
import type { Transport } from '../../src/transport/transport.ts';
import { openWorkerTransport } from '../../src/transport/worker.ts';
import { assertProblem, assertShape } from '../helpers/assert-shape.ts';

const PAYMENTS = 60;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function readStore(file: string) {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    const total = db.prepare('SELECT SUM(balance) AS total FROM accounts').get() as { total: number };
    const payments = db
      .prepare('SELECT COUNT(*) AS rows, COUNT(DISTINCT idempotency_key) AS keys FROM payments')
      .get() as { rows: number; keys: number };
    const debtor = db.prepare("SELECT balance FROM accounts WHERE account_id = '1003-01'").get() as { balance: number };
    return {
      total: total.total,
      paymentRows: payments.rows,
      paymentKeys: payments.keys,
      debtorBalance: debtor.balance,
    };
  } finally {
    db.close();
  }
}

test('a worker that dies under load: 503 + Retry-After, recovery, retries under the same key pay exactly once', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'corebridge-crash-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  const config = loadConfig({
    DATA_DIR: dataDir,
    LOG_LEVEL: 'info',
    OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0',
    RATE_LIMIT_MAX: '100000',
  });
  const logs: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n'))
        if (line) logs.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const logger = createLogger(config, sink);
  const transport = await openWorkerTransport({ file: backendFile(config.dataDir), logLevel: config.logLevel, logger });
  // Stops the worker as the 30th back-end call goes out: that call and the ones before it still
  // unanswered are in flight, and the payments still arriving meet a worker that is restarting.
  let backendCalls = 0;
  const observed: Transport = {
    call(request, options) {
      const reply = transport.call(request, options);
      if (++backendCalls === 30) void transport.terminateWorker();
      return reply;
    },
    ready: () => transport.ready(),
    close: () => transport.close(),
  };
  const app = await buildApp(config, { logger, transport: observed });
  let closed = false;
  t.after(async () => {
    if (!closed) await app.close();
  });
  const before = readStore(backendFile(dataDir));

  const token = await app.devIssuer.sign({ subject: 'clerk', role: 'agent', scopes: ROLE_SCOPES.agent });
  const payments = Array.from({ length: PAYMENTS }, (_, i) => ({
    key: `crash-${i}`,
    minor: (i % 7) + 1,
    body: {
      debtorAccount: '1003-01',
      creditorAccount: '1001-01',
      amount: ((i % 7) + 1) / 100,
      currency: 'EUR',
      reference: `crash ${i}`,
    },
  }));
  const pay = (p: (typeof payments)[number]) =>
    app.inject({
      method: 'POST',
      url: '/v1/payments',
      payload: p.body,
      headers: { authorization: `Bearer ${token}`, 'idempotency-key': p.key },
    });

  // Three bursts of 20, 60 ms apart: the worker answers the first and stops in the middle of the second.
  const firstAnswers = await Promise.all(
    payments.map(async (p, i) => {
      await sleep(Math.floor(i / 20) * 60);
      return pay(p);
    }),
  );
  const unavailable = firstAnswers.filter((res) => res.statusCode === 503);
  assert.ok(
    unavailable.length > 0,
    `some payments meet the stopped worker: ${firstAnswers.map((r) => r.statusCode).join(' ')}`,
  );
  for (const res of unavailable) {
    assertProblem(res, 503, 'BACKEND_UNAVAILABLE');
    assert.match(String(res.headers['retry-after']), /^[0-9]+$/);
  }
  for (const res of firstAnswers)
    assert.ok([201, 503].includes(res.statusCode), `status ${res.statusCode}: ${res.body}`);
  const stopped = logs.find((line) => line['msg'] === 'back-end worker stopped; restarting it');
  assert.equal(stopped?.['level'], 50);
  assert.equal(typeof stopped?.['exitCode'], 'number');

  // The transport comes back by itself.
  const deadline = Date.now() + 15_000;
  while ((await app.inject({ method: 'GET', url: '/health/ready' })).statusCode !== 200) {
    assert.ok(Date.now() < deadline, 'ready again within 15 s');
    await sleep(25);
  }

  // Every payment not acknowledged is retried under its own key until it is.
  const answers: LightMyRequestResponse[] = [...firstAnswers];
  for (let round = 0; answers.some((res) => res.statusCode !== 201); round += 1) {
    assert.ok(round < 100, `still unacknowledged after 100 rounds: ${answers.map((r) => r.statusCode).join(' ')}`);
    await Promise.all(
      payments.map(async (p, i) => {
        if (answers[i]!.statusCode === 201) return;
        const res = await pay(p);
        assert.ok([201, 409, 503].includes(res.statusCode), `retry of ${p.key}: ${res.statusCode} ${res.body}`);
        answers[i] = res;
      }),
    );
    await sleep(20);
  }

  const ids = new Set<string>();
  for (const [i, res] of answers.entries()) {
    const payment = res.json() as Payment;
    assertShape(Payment, payment);
    assert.equal(payment.status, 'COMPLETED');
    assert.equal(payment.reference, `crash ${i}`);
    ids.add(payment.paymentId);
    const read = await app.inject({
      method: 'GET',
      url: `/v1/payments/${payment.paymentId}`,
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(read.statusCode, 200);
    assert.deepEqual(read.json(), payment);
  }
  assert.equal(ids.size, PAYMENTS, 'one payment per key');

  await app.close();
  closed = true;
  const after = readStore(backendFile(dataDir));
  assert.equal(after.paymentRows, PAYMENTS, 'no payment stored twice, none lost');
  assert.equal(after.paymentKeys, PAYMENTS);
  assert.equal(after.total, before.total, 'the sum of all balances is unchanged');
  assert.equal(after.debtorBalance, before.debtorBalance - payments.reduce((sum, p) => sum + p.minor, 0));
});

test('a start that fails after the back-end worker opened closes the worker (nothing keeps the process alive)', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'corebridge-failed-start-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  // The partner JWKS file is read after the worker has opened the store: a missing one stops the start there.
  const config = loadConfig({ DATA_DIR: dataDir, AUTH_PARTNER_JWKS_FILE: join(dataDir, 'missing-jwks.json') });
  const ports = () => process.getActiveResourcesInfo().filter((kind) => kind === 'MessagePort').length;
  const before = ports();
  await assert.rejects(
    buildApp(config, { logger: createLogger(config, new Writable({ write: (_c, _e, done) => done() })) }),
  );
  assert.equal(ports(), before, "the worker's message port is closed");
});
