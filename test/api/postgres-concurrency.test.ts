/**
 * Two back-end processes (`corebridge backend serve`) on one PostgreSQL database (the local server; without it this
 * fails), paying between the same accounts at once: no overdraft, no lost update, money conserved, and one payment
 * per idempotency key even when two API instances that share nothing send it at once.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import pg from 'pg';
import { assertProblem } from '../helpers/assert-shape.ts';
import { startApp, type TestApp } from '../helpers/app.ts';
import { queryStore } from '../helpers/backend-store.ts';
import { createTestDatabase } from '../../support/database.ts';
import { testPki, writeDevPki } from '../helpers/backend-service.ts';
import { freePort } from '../../support/free-port.ts';
import { startProcess } from '../helpers/processes.ts';
import { until } from '../../src/until.ts';

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

/**
 * Two back-end services started at the same moment on a database that does not exist yet: they create it,
 * migrate it and load the demo data once.
 */
async function twoBackends(t: TestContext): Promise<{ databaseUrl: string; backendUrls: string; dataDir: string }> {
  const databaseUrl = await createTestDatabase({ create: false });
  const dataDir = mkdtempSync(join(tmpdir(), 'corebridge-pg-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  writeDevPki(dataDir, await testPki());
  const ports = [await freePort(), await freePort()];
  const services = ports.map((port) =>
    startProcess(t, ['bin/corebridge.ts', 'backend', 'serve'], {
      DATA_DIR: dataDir,
      DATABASE_URL: databaseUrl,
      BACKEND_LISTEN: `127.0.0.1:${port}`,
      LOG_LEVEL: 'warn',
    }),
  );
  for (const [i, port] of ports.entries()) {
    await until(`back-end ${i + 1} listening (${services[i]!.stderr()})`, () => accepts(port));
  }
  return { databaseUrl, dataDir, backendUrls: ports.map((p) => `tls://127.0.0.1:${p}`).join(',') };
}

async function api(
  t: TestContext,
  backends: { databaseUrl: string; backendUrls: string; dataDir: string },
): Promise<TestApp> {
  return startApp(
    t,
    { BACKEND_URL: backends.backendUrls, DATABASE_URL: backends.databaseUrl, RATE_LIMIT_MAX: '100000' },
    {
      // The API's client certificate from the same CA as the back-ends'.
      beforeBuild: () => {
        return {
          BACKEND_TLS_CA: join(backends.dataDir, 'certs/ca.crt'),
          BACKEND_TLS_CERT: join(backends.dataDir, 'certs/api.crt'),
          BACKEND_TLS_KEY: join(backends.dataDir, 'certs/api.key'),
        };
      },
    },
  );
}

const OPENING: Record<string, number> = { '1001-01': 250_000, '1002-01': 120_000, '1003-01': 1_000_000 };

test('payments in parallel through two back-end processes on one PostgreSQL database: no overdraft, money conserved', async (t) => {
  const backends = await twoBackends(t);
  const h = await api(t, backends);
  const accounts = Object.keys(OPENING);
  // Many at once, in both directions between 1001-01 and 1003-01, and 80 from 1002-01 (1,200.00), which
  // nothing pays into: far more is asked of it than it holds, so some must be refused.
  const CREDITOR: Record<string, readonly string[]> = {
    '1001-01': ['1003-01'],
    '1003-01': ['1001-01'],
    '1002-01': ['1001-01', '1003-01'],
  };
  const intents = Array.from({ length: 240 }, (_, i) => {
    const debtor = accounts[i % 3]!;
    const creditors = CREDITOR[debtor]!;
    return {
      key: `race-${i}`,
      debtor,
      creditor: creditors[i % creditors.length]!,
      minor: 20_000 + ((i * 7919) % 50_000),
    };
  });
  const answers: Awaited<ReturnType<TestApp['request']>>[] = [];
  for (let i = 0; i < intents.length; i += 40) {
    answers.push(
      ...(await Promise.all(
        intents.slice(i, i + 40).map((p) =>
          h.request({
            method: 'POST',
            url: '/v1/payments',
            as: 'clerk',
            headers: { 'idempotency-key': p.key },
            body: { debtorAccount: p.debtor, creditorAccount: p.creditor, amount: p.minor / 100, currency: 'EUR' },
          }),
        ),
      )),
    );
  }
  // Every answer is a decision: a completed payment, or one rejected for want of funds. A lost race
  // would show as a 500 (the database's overdraft guard refusing the UPDATE) or as a 409.
  const statuses = answers.map((r) =>
    `${r.statusCode} ${r.json().status ?? r.json().code} ${r.json().reason ?? ''}`.trim(),
  );
  const unexpected = statuses.filter((s) => s !== '201 COMPLETED' && s !== '200 REJECTED INSUFFICIENT_FUNDS');
  assert.deepEqual(unexpected, []);
  const completed = intents.filter((_, i) => answers[i]!.statusCode === 201);
  const refusedFrom1002 = intents.filter((p, i) => p.debtor === '1002-01' && answers[i]!.statusCode === 200).length;
  assert.ok(completed.length > 20, `${completed.length} completed`);
  assert.ok(refusedFrom1002 >= 74, `1002-01 can pay at most six of its 80 (${refusedFrom1002} refused)`);

  // The balances are what the acknowledged answers say, on the API and in the store.
  const expected = { ...OPENING };
  for (const p of completed) {
    expected[p.debtor]! -= p.minor;
    expected[p.creditor]! += p.minor;
  }
  for (const account of accounts) {
    const balance = await h.request({ method: 'GET', url: `/v1/accounts/${account}/balance`, as: 'clerk' });
    assert.equal(Math.round(balance.json().balance * 100), expected[account], account);
    assert.ok(expected[account]! >= 0, `${account} overdrawn`);
  }
  // Double entry holds: every account's balance is its postings' sum, and all balances sum to zero.
  const books = await queryStore(
    h,
    `SELECT a.account_id, a.balance,
      COALESCE(SUM(CASE p.direction WHEN 'CREDIT' THEN p.amount ELSE -p.amount END), 0) AS posted
    FROM accounts a LEFT JOIN ledger_postings p ON p.account_id = a.account_id GROUP BY a.account_id, a.balance`,
  );
  for (const row of books) assert.equal(row['balance'], row['posted'], String(row['account_id']));
  assert.equal(
    books.reduce((sum, row) => sum + Number(row['balance']), 0),
    0,
  );
  const stored = await queryStore(h, "SELECT COUNT(*) AS n FROM payments WHERE status = 'COMPLETED'");
  assert.equal(stored[0]!['n'], completed.length);
});

test('the same idempotency key at two API instances that share nothing, at once: one payment, both told the same', async (t) => {
  const backends = await twoBackends(t);
  // Two API instances, each with its own idempotency records: only the database's unique key stands between them.
  const [first, second] = [await api(t, backends), await api(t, backends)];
  for (let round = 0; round < 10; round++) {
    const send = (h: TestApp) =>
      h.request({
        method: 'POST',
        url: '/v1/payments',
        as: 'clerk',
        headers: { 'idempotency-key': `twice-${round}` },
        body: { debtorAccount: '1003-01', creditorAccount: '1001-01', amount: 1, currency: 'EUR' },
      });
    const answers = await Promise.all([send(first), send(second)]);
    for (const answer of answers) assert.equal(answer.statusCode, 201, answer.body);
    assert.equal(new Set(answers.map((a) => a.json().paymentId)).size, 1);
  }
  const rows = await queryStore(first, "SELECT COUNT(*) AS n FROM payments WHERE idempotency_key LIKE 'twice-%'");
  assert.equal(rows[0]!['n'], 10);
  const balance = await first.request({ method: 'GET', url: '/v1/accounts/1003-01/balance', as: 'clerk' });
  assert.equal(balance.json().balance, 10_000 - 10);
});

test('a row lock held too long elsewhere: 503 with Retry-After, nothing kept; the retry under the same key pays once', async (t) => {
  const databaseUrl = await createTestDatabase();
  const h = await startApp(t, { DATABASE_URL: databaseUrl });
  const send = () =>
    h.request({
      method: 'POST',
      url: '/v1/payments',
      as: 'ada',
      headers: { 'idempotency-key': 'locked-out' },
      body: { debtorAccount: '1001-01', creditorAccount: '1002-01', amount: 7, currency: 'EUR' },
    });
  // Another client of the database (a batch job, an operator's session) holds the debtor's row.
  const other = new pg.Client({ connectionString: databaseUrl });
  await other.connect();
  t.after(() => other.end());
  await other.query('BEGIN');
  await other.query("SELECT * FROM accounts WHERE account_id = '1001-01' FOR UPDATE");
  const refused = await send();
  assertProblem(refused, 503, 'BACKEND_UNAVAILABLE');
  assert.equal(refused.headers['retry-after'], '1');
  await other.query('ROLLBACK');
  const paid = await send();
  assert.equal(paid.statusCode, 201, paid.body);
  const balance = await h.request({ method: 'GET', url: '/v1/accounts/1001-01/balance', as: 'ada' });
  assert.equal(balance.json().balance, 2500 - 7);
  assert.equal(
    (await queryStore(h, "SELECT COUNT(*) AS n FROM payments WHERE idempotency_key = 'locked-out'"))[0]!['n'],
    1,
  );
});
