/**
 * Loan decisions by the COBOL program LNDECIDE when things go wrong: a program that abends (502), one
 * that never answers (504), and host processes killed under load (503 with Retry-After, then recovery,
 * with no acknowledged decision lost or doubled).
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { assertProblem } from '../helpers/assert-shape.ts';
import { startApp, type TestApp } from '../helpers/app.ts';
import { queryStore } from '../helpers/backend-store.ts';
import { cobolSkip, hostProcesses } from '../helpers/cobol.ts';

const FIXTURES = fileURLToPath(new URL('../fixtures/cobol/', import.meta.url));

function apply(h: TestApp, key: string, amount = 10000) {
  return h.request({
    method: 'POST',
    url: '/v1/loan-applications',
    as: 'ada',
    body: { customerId: '1001', amount, installments: 24 },
    headers: { 'idempotency-key': key },
  });
}

async function loansStored(h: TestApp): Promise<Array<{ loan_id: string; idempotency_key: string; status: string }>> {
  return (await queryStore(
    h,
    'SELECT loan_id, idempotency_key, status FROM loan_applications ORDER BY idempotency_key',
  )) as Array<{ loan_id: string; idempotency_key: string; status: string }>;
}

test(
  "a COBOL program that abends: 502 BACKEND_PROGRAM_FAILED in the client's words, nothing stored",
  { skip: cobolSkip },
  async (t) => {
    const h = await startApp(t, { PROGRAMS_COBOL: 'LNDECIDE', COBOL_SOURCE_DIR: join(FIXTURES, 'abend') });
    const res = await apply(h, 'abend-1');
    assertProblem(res, 502, 'BACKEND_PROGRAM_FAILED');
    assert.doesNotMatch(res.body, /LNDECIDE|COBOL|STOP RUN|abend|return code|reason/i);
    assert.deepEqual(await loansStored(h), []);
    const line = h.logs.find((l) => l['requestId'] === res.headers['x-request-id'] && l['backend']);
    assert.deepEqual(line?.['backend'], {
      tran: 'LNAPPL',
      rc: 99,
      reason: 'PROGRAM_FAILED',
      ms: (line?.['backend'] as { ms: number }).ms,
    });
    // The host came back for the next call (which abends again, the same way).
    assertProblem(await apply(h, 'abend-2'), 502, 'BACKEND_PROGRAM_FAILED');
  },
);

test(
  'a COBOL program that does not answer in time: 504 BACKEND_TIMEOUT, nothing stored',
  { skip: cobolSkip },
  async (t) => {
    const h = await startApp(t, {
      PROGRAMS_COBOL: 'LNDECIDE',
      COBOL_SOURCE_DIR: join(FIXTURES, 'hang'),
      COBOL_CALL_TIMEOUT_MS: '300',
    });
    const res = await apply(h, 'hang-1');
    assertProblem(res, 504, 'BACKEND_TIMEOUT');
    assert.deepEqual(await loansStored(h), []);
  },
);

test(
  'COBOL hosts killed under load: 503 with Retry-After meanwhile, then recovery; no decision lost or doubled',
  { skip: cobolSkip, timeout: 120_000 },
  async (t) => {
    const h = await startApp(t, { PROGRAMS_COBOL: 'LNDECIDE', COBOL_HOSTS: '2', RATE_LIMIT_WRITE_MAX: '100000' });
    // Two per back-end: one embedded, or two back-end services under TEST_BACKEND=tls.
    assert.equal(
      hostProcesses().length,
      2 * Math.max(1, h.backendServices.length),
      'two host processes per back-end run',
    );
    const acknowledged = new Map<string, string>(); // key → loan id
    const unavailable = new Set<string>();
    const statuses = new Set<number>();
    const amountOf = (i: number) => 1000 + (i % 50) * 100;
    let killed = 0;
    let next = 0;
    let decidedAfterLastKill = 0;

    // 8 clients send applications until both kills are behind them, one met the outage, and 20 were decided since.
    async function client(): Promise<void> {
      while (next < 400 && !(killed === 2 && unavailable.size > 0 && decidedAfterLastKill >= 20)) {
        const i = next++;
        const res = await apply(h, `load-${i}`, amountOf(i));
        statuses.add(res.statusCode);
        if (res.statusCode === 201) {
          acknowledged.set(`load-${i}`, res.json().loanId);
          if (killed === 2) decidedAfterLastKill++;
        } else {
          assertProblem(res, 503, 'BACKEND_UNAVAILABLE');
          assert.ok(Number(res.headers['retry-after']) > 0);
          unavailable.add(`load-${i}`);
        }
        if (i === 40 || i === 120) {
          for (const pid of hostProcesses()) process.kill(pid, 'SIGKILL');
          killed++;
        }
      }
    }
    await Promise.all(Array.from({ length: 8 }, client));
    t.diagnostic(`${next} applications, ${unavailable.size} answered 503`);
    assert.equal(killed, 2);
    assert.ok(unavailable.size > 0, 'some applications met the outage');
    assert.ok(decidedAfterLastKill >= 20, 'decisions went on after the hosts came back');
    assert.deepEqual([...statuses].sort(), [201, 503], 'only decisions and 503s');

    // Their clients retry with the same key and body.
    for (const key of unavailable) {
      const i = Number(key.slice('load-'.length));
      let res = await apply(h, key, amountOf(i));
      for (let attempt = 0; attempt < 100 && res.statusCode === 503; attempt++) {
        await new Promise((r) => setTimeout(r, 50));
        res = await apply(h, key, amountOf(i));
      }
      assert.equal(res.statusCode, 201);
      acknowledged.set(key, res.json().loanId);
    }
    const stored = await loansStored(h);
    assert.equal(stored.length, next, 'one stored decision per application');
    assert.equal(new Set(stored.map((l) => l.idempotency_key)).size, next, 'none doubled');
    for (const [key, loanId] of acknowledged)
      assert.equal(stored.find((l) => l.idempotency_key === key)?.loan_id, loanId, `${key} kept as acknowledged`);
    assert.equal((await h.request({ method: 'GET', url: '/health/ready' })).statusCode, 200);
  },
);
