/**
 * Crash test (npm run test:crash): SIGKILLs the server again and again while clients send internal
 * payments, retrying each under its own Idempotency-Key until they get an answer. After the last
 * restart: every acknowledged payment exists exactly once, no payment exists twice, every intended
 * payment was acknowledged, the ledger matches the balances, and the sum of all balances is unchanged.
 * Talks only to 127.0.0.1; bounded in rounds and time.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { parseArgs } from 'node:util';
import { openDevIssuer } from '../src/api/auth/dev-issuer.ts';
import { ROLE_SCOPES } from '../src/api/auth/roles.ts';
import { loadConfig } from '../src/config.ts';

const { values: args } = parseArgs({
  options: {
    kills: { type: 'string', default: '8' },
    clients: { type: 'string', default: '6' },
    'max-seconds': { type: 'string', default: '120' },
    keep: { type: 'boolean', default: false },
  },
});
const KILLS = Number(args.kills);
const CLIENTS = Number(args.clients);
const DEADLINE = Date.now() + Number(args['max-seconds']) * 1000;
const ACCOUNTS = ['1001-01', '1002-01', '1003-01'];

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const address = s.address();
      s.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const dataDir = mkdtempSync(join(tmpdir(), 'corebridge-crash-'));
const port = await freePort();
const env = { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'warn', IDEMPOTENCY_LEASE_MS: '400', RATE_LIMIT_MAX: '1000000', RATE_LIMIT_ADDRESS_MAX: '10000000' };
const config = loadConfig(env);
const base = `http://127.0.0.1:${port}`;
const issuer = await openDevIssuer({ dataDir, issuer: config.auth.issuer, audience: config.auth.audience });
const token = await issuer.sign({ subject: 'clerk', role: 'agent', scopes: ROLE_SCOPES.agent }, { ttlSeconds: 3600 });
const auth = { authorization: `Bearer ${token}` };

let server: ChildProcess | undefined;
function startServer(): ChildProcess {
  const child = spawn(process.execPath, ['src/server.ts'], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  server = child;
  return child;
}

async function waitReady(): Promise<void> {
  for (;;) {
    if (Date.now() > DEADLINE) throw new Error('server did not become ready in time');
    try {
      const res = await fetch(`${base}/health/ready`, { signal: AbortSignal.timeout(1000) });
      if (res.ok) return;
    } catch { /* not up yet */ }
    await sleep(50);
  }
}

async function balances(): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const a of ['1001-01', '1001-02', '1002-01', '1003-01']) {
    const res = await fetch(`${base}/v1/accounts/${a}/balance`, { headers: auth });
    out[a] = Math.round(((await res.json()) as { balance: number }).balance * 100);
  }
  return out;
}

interface Ack { key: string; paymentId: string; status: string; amountMinor: number; attempts: number }
const acks: Ack[] = [];
let intents = 0;
let transportErrors = 0;
let inFlight409 = 0;
let stopClients = false;

/** One intended payment: retried under the same key (5 s timeout per call) until the service answers. */
async function payOnce(client: number, n: number): Promise<void> {
  const key = `crash-${client}-${n}`;
  const from = ACCOUNTS[(client + n) % ACCOUNTS.length]!;
  const to = ACCOUNTS[(client + n + 1) % ACCOUNTS.length]!;
  const amountMinor = 1 + ((client * 7919 + n * 104729) % 500);
  const body = JSON.stringify({ debtorAccount: from, creditorAccount: to, amount: amountMinor / 100, currency: 'EUR', reference: key });
  intents++;
  for (let attempt = 1; ; attempt++) {
    if (Date.now() > DEADLINE) throw new Error(`payment ${key} unanswered at the deadline`);
    try {
      const res = await fetch(`${base}/v1/payments`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json', 'idempotency-key': key },
        body,
        signal: AbortSignal.timeout(5000),
      });
      if (res.status === 201 || res.status === 200) {
        const p = (await res.json()) as { paymentId: string; status: string; amount: number };
        acks.push({ key, paymentId: p.paymentId, status: p.status, amountMinor, attempts: attempt });
        return;
      }
      if (res.status === 409 || res.status === 503) {
        if (res.status === 409) inFlight409++;
        await res.arrayBuffer();
      } else {
        throw new Error(`payment ${key}: unexpected ${res.status} ${await res.text()}`);
      }
    } catch (error) {
      if (error instanceof Error && error.message.startsWith('payment ')) throw error;
      transportErrors++;
    }
    await sleep(25 + Math.random() * 75);
  }
}

async function client(id: number): Promise<void> {
  for (let n = 0; !stopClients; n++) await payOnce(id, n);
}

const failures: string[] = [];
try {
  startServer();
  await waitReady();
  const before = await balances();
  const totalBefore = Object.values(before).reduce((a, b) => a + b, 0);
  const clients = Array.from({ length: CLIENTS }, (_, i) => client(i));

  for (let k = 0; k < KILLS; k++) {
    await sleep(300 + Math.random() * 900);
    server!.kill('SIGKILL');
    await new Promise((r) => server!.once('exit', r));
    startServer();
    await waitReady();
  }
  await sleep(500);
  stopClients = true;
  await Promise.all(clients);

  // Verification against the last server, then against its files.
  for (const ack of acks) {
    const res = await fetch(`${base}/v1/payments/${ack.paymentId}`, { headers: auth });
    if (res.status !== 200) { failures.push(`acknowledged ${ack.paymentId} (${ack.key}) answers ${res.status}`); continue; }
    const p = (await res.json()) as { status: string; amount: number; reference: string };
    if (p.status !== ack.status || Math.round(p.amount * 100) !== ack.amountMinor || p.reference !== ack.key) {
      failures.push(`acknowledged ${ack.paymentId} differs: ${JSON.stringify(p)}`);
    }
  }
  const after = await balances();
  const totalAfter = Object.values(after).reduce((a, b) => a + b, 0);
  if (totalAfter !== totalBefore) failures.push(`sum of balances changed: ${totalBefore} → ${totalAfter}`);
  server!.kill('SIGTERM');
  await new Promise((r) => server!.once('exit', r));
  server = undefined;

  const db = new DatabaseSync(join(dataDir, 'backend.sqlite'), { readOnly: true });
  const rows = db.prepare("SELECT payment_id, idempotency_key, status, amount FROM payments WHERE created_by = 'clerk'").all();
  const byKey = new Map<string, number>();
  for (const r of rows) byKey.set(String(r['idempotency_key']), (byKey.get(String(r['idempotency_key'])) ?? 0) + 1);
  const duplicated = [...byKey].filter(([, count]) => count > 1);
  if (duplicated.length) failures.push(`duplicated payments: ${JSON.stringify(duplicated)}`);
  if (rows.length !== intents) failures.push(`${intents} payments intended, ${rows.length} stored`);
  if (acks.length !== intents) failures.push(`${intents} payments intended, ${acks.length} acknowledged`);
  const ackIds = new Set(acks.map((a) => a.paymentId));
  for (const r of rows) if (!ackIds.has(String(r['payment_id']))) failures.push(`stored payment ${String(r['payment_id'])} was never acknowledged`);
  const ledgerMismatch = db.prepare(`
    SELECT a.account_id, a.balance,
      COALESCE(SUM(CASE p.direction WHEN 'CREDIT' THEN p.amount ELSE -p.amount END), 0) AS ledger
    FROM accounts a LEFT JOIN ledger_postings p ON p.account_id = a.account_id
    GROUP BY a.account_id HAVING a.balance <> ledger`).all();
  if (ledgerMismatch.length) failures.push(`balances differ from the ledger: ${JSON.stringify(ledgerMismatch)}`);
  const completed = Number(db.prepare("SELECT COUNT(*) AS n FROM payments WHERE status = 'COMPLETED'").get()?.['n']);
  const transfers = Number(db.prepare("SELECT COUNT(DISTINCT transfer_id) AS n FROM ledger_postings WHERE transfer_id LIKE 'PAY-%'").get()?.['n']);
  if (completed !== transfers) failures.push(`${completed} completed payments but ${transfers} posted transfers`);
  db.close();

  const retried = acks.filter((a) => a.attempts > 1).length;
  console.log(`kills: ${KILLS}, clients: ${CLIENTS}`);
  console.log(`payments intended: ${intents}, acknowledged: ${acks.length} (${acks.filter((a) => a.status === 'COMPLETED').length} completed, ${acks.filter((a) => a.status === 'REJECTED').length} rejected), stored: ${rows.length}`);
  console.log(`answered only after retries: ${retried}; connection errors/timeouts: ${transportErrors}; 409 in flight: ${inFlight409}`);
  console.log(`sum of balances before ${totalBefore / 100}, after ${totalAfter / 100}`);
} catch (error) {
  failures.push(String(error instanceof Error ? error.stack : error));
} finally {
  if (server) server.kill('SIGKILL');
  if (!args.keep) rmSync(dataDir, { recursive: true, force: true });
}

if (failures.length) {
  console.error(`CRASH TEST FAILED\n${failures.slice(0, 20).join('\n')}`);
  process.exit(1);
}
console.log('crash test passed: every acknowledged payment exists exactly once, none duplicated, balances conserved');
