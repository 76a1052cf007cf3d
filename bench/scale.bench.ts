/**
 * npm run bench:scale: payments/s and GET req/s through `npm run stack` with 1, 2 and 3 API instances on
 * the PostgreSQL back-end, and where it saturates.
 *
 * Each step starts a fresh stack (`npm run stack -- --api N --backend B`: mutual TLS, Redis, HAProxy in
 * front) on a new database of the local PostgreSQL server, then runs, after a warm-up each:
 *   - GET /v1/orders/{id} (one order created before);
 *   - POST /v1/payments between one pair of accounts (durable, a unique Idempotency-Key per request, 0.01 EUR
 *     1003-01 → 1001-01): every payment locks the same two rows, so they commit one after the other;
 *   - POST /v1/payments spread over BENCH_ACCOUNTS accounts (made in the bench's database before the run,
 *     1,000,000.00 EUR each, posted against the opening-balance account), two different ones at random;
 * through the front with the load generator (wrk, or autocannon). Nothing is pinned: the stack uses every
 * core, and so does the load generator, which competes with it; the CPU columns say who used what.
 *
 * CPU columns: the share of one core each part used during the payment run (utime + stime from /proc),
 * front (HAProxy's master and worker processes), the API instances, the back-end services, PostgreSQL (every
 * `postgres` process, and the backends that ended during the run), and the rest of the machine (the load
 * generator, mostly).
 * "machine" is all cores busy / all cores. A step saturates the machine when that nears 100 %: another API
 * instance then only shares the same cores.
 *
 * Environment: BENCH_SECONDS (10), BENCH_WARMUP_SECONDS (2), BENCH_CONNECTIONS (50), BENCH_BACKENDS (2),
 * BENCH_ACCOUNTS (100),
 * BENCH_API_COUNTS (1,2,3), LOG_LEVEL (info), REDIS_URL (redis://127.0.0.1:6379), TEST_POSTGRES_URL (the
 * server's postgres database, where databases are made).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { startStack } from '../scripts/stack/run.ts';
import { PAYMENT_BODY } from './harness.ts';
import { loadGeneratorDescription, runLoad, type LoadTarget, type Measurement } from './load.ts';

const SECONDS = Number(process.env['BENCH_SECONDS'] || 10);
const WARMUP_SECONDS = Number(process.env['BENCH_WARMUP_SECONDS'] || 2);
const CONNECTIONS = Number(process.env['BENCH_CONNECTIONS'] || 50);
const BACKENDS = Number(process.env['BENCH_BACKENDS'] || 2);
const ACCOUNTS = Number(process.env['BENCH_ACCOUNTS'] || 100);
const API_COUNTS = (process.env['BENCH_API_COUNTS'] || '1,2,3').split(',').map(Number);
const LOG_LEVEL = process.env['LOG_LEVEL'] || 'info';
const CORES = availableParallelism();
const TICKS_PER_SECOND = 100;

// ---------------------------------------------------------------- CPU accounting from /proc

/** A process's children (HAProxy's worker under its master). */
function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/**
 * utime + stime of a process (all its threads), in clock ticks; 0 once it is gone. With `reaped`, also its
 * children's that ended and were waited for: the postmaster's, for backends that exit before the last sample.
 */
function processTicks(pid: number, reaped = false): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]) + (reaped ? Number(fields[13]) + Number(fields[14]) : 0);
  } catch {
    return 0;
  }
}

function postgresPids(): number[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map(Number)
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'postgres';
      } catch {
        return false;
      }
    });
}

/** Busy and total ticks of the whole machine (/proc/stat). */
function machineTicks(): { busy: number; total: number } {
  const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const idle = cpu[3]! + cpu[4]!;
  const total = cpu.reduce((a, b) => a + b, 0);
  return { busy: total - idle, total };
}

interface Parts {
  front: number[];
  apis: number[];
  backends: number[];
}
type Sample = Record<'front' | 'apis' | 'backends' | 'postgres', number> & { machine: { busy: number; total: number } };

function sample(parts: Parts): Sample {
  const sum = (pids: number[], reaped = false) => pids.reduce((a, pid) => a + processTicks(pid, reaped), 0);
  return {
    front: sum(parts.front),
    apis: sum(parts.apis),
    backends: sum(parts.backends),
    postgres: sum(postgresPids(), true),
    machine: machineTicks(),
  };
}

/**
 * Per part, the cores it kept busy (1.0 = one core) between two samples over `seconds`; machine as a share of all
 * cores.
 */
function usage(before: Sample, after: Sample, seconds: number) {
  const cores = (k: 'front' | 'apis' | 'backends' | 'postgres') => (after[k] - before[k]) / TICKS_PER_SECOND / seconds;
  const busyCores = (after.machine.busy - before.machine.busy) / TICKS_PER_SECOND / seconds;
  const parts = {
    front: cores('front'),
    apis: cores('apis'),
    backends: cores('backends'),
    postgres: cores('postgres'),
  };
  const rest = Math.max(0, busyCores - Object.values(parts).reduce((a, b) => a + b, 0));
  const machine = (after.machine.busy - before.machine.busy) / Math.max(1, after.machine.total - before.machine.total);
  return { ...parts, rest, machine };
}

// ---------------------------------------------------------------- accounts for spread payments

/** Accounts 7000-01, 7001-01, … of customer 1003, 1,000,000.00 EUR each, opened by postings against SYS-OPENING-EUR. */
async function openBenchAccounts(databaseUrl: string, count: number): Promise<string[]> {
  const ids = Array.from({ length: count }, (_, i) => `${7000 + i}-01`);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const opening = 100_000_000;
    const now = new Date().toISOString();
    await client.query('BEGIN');
    for (const id of ids) {
      await client.query(
        "INSERT INTO accounts (account_id, customer_id, currency, balance, kind) VALUES ($1, '1003', 'EUR', $2, 'CUSTOMER')",
        [id, opening],
      );
      await client.query(
        `INSERT INTO ledger_postings (transfer_id, account_id, direction, amount, currency, correlation_id, posted_at)
         VALUES ($1, $2, 'CREDIT', $3, 'EUR', 'bench', $4), ($1, 'SYS-OPENING-EUR', 'DEBIT', $3, 'EUR', 'bench', $4)`,
        [`OPENING-${id}`, id, opening, now],
      );
    }
    await client.query("UPDATE accounts SET balance = balance - $1 WHERE account_id = 'SYS-OPENING-EUR'", [
      opening * ids.length,
    ]);
    await client.query('COMMIT');
  } finally {
    await client.end();
  }
  return ids;
}

const SPREAD_BODY = JSON.stringify({
  debtorAccount: '{debtor}',
  creditorAccount: '{creditor}',
  amount: 0.01,
  currency: 'EUR',
});

// ---------------------------------------------------------------- one stack

/** The error answers the API instances logged (status, code and message), counted: what a non-2xx count was. */
function errorAnswers(dataDir: string): string {
  const seen = new Map<string, number>();
  const dir = join(dataDir, 'stack');
  for (const file of readdirSync(dir).filter((f) => f.startsWith('api-') && f.endsWith('.log'))) {
    for (const line of readFileSync(join(dir, file), 'utf8').split('\n')) {
      if (!line.includes('"status":4') && !line.includes('"status":5')) continue;
      try {
        const entry = JSON.parse(line) as { status?: number; code?: string; msg?: string };
        if ((entry.status ?? 0) < 400) continue;
        const key = `${entry.status} ${entry.code ?? ''} ${entry.msg ?? ''}`.trim();
        seen.set(key, (seen.get(key) ?? 0) + 1);
      } catch {
        /* a partial line */
      }
    }
  }
  return seen.size === 0
    ? 'none logged by the API instances (so from the front)'
    : [...seen].map(([k, n]) => `${n}× ${k}`).join(', ');
}

interface Step {
  apis: number;
  get: Measurement;
  /** Payments between one pair of accounts. */
  pay: Measurement;
  /** Payments spread over many accounts, and the CPU during them. */
  spread: Measurement;
  cpu: ReturnType<typeof usage>;
  /** The CPU during the GET run. */
  getCpu: ReturnType<typeof usage>;
}

async function measureStack(apis: number): Promise<Step> {
  const stack = await startStack({
    apis,
    backends: BACKENDS,
    env: { LOG_LEVEL, OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0' },
  });
  try {
    const {
      base,
      auth: { authorization },
    } = stack;
    const state = stack.state();
    const parts: Parts = {
      front: [state.front.pid, ...childrenOf(state.front.pid)],
      apis: state.apis.map((a) => a.pid),
      backends: state.backends.map((b) => b.pid),
    };
    const order = await fetch(`${base}/v1/orders`, {
      method: 'POST',
      headers: { authorization, 'content-type': 'application/json' },
      body: JSON.stringify({ customerId: '1001', productId: 'P-100', quantity: 1 }),
    });
    if (order.status !== 201) throw new Error(`creating the order answered ${order.status}: ${await order.text()}`);
    const orderId = ((await order.json()) as { orderId: string }).orderId;

    const run = async (target: LoadTarget) => {
      if (WARMUP_SECONDS > 0) await runLoad(target, authorization, WARMUP_SECONDS, CONNECTIONS, null);
      // The warm-up's last requests are still running when its load generator exits: let them end, or the
      // measured run starts above BACKEND_MAX_CONCURRENT and sees 503 BACKEND_BUSY.
      await sleep(1000);
      const before = sample(parts);
      const started = performance.now();
      const measured = await runLoad(target, authorization, SECONDS, CONNECTIONS, null);
      const cpu = usage(before, sample(parts), (performance.now() - started) / 1000);
      if (measured.non2xx > 0 || measured.errors > 0) {
        console.error(
          `  ${target.method} ${target.url}: ${measured.non2xx} non-2xx, ${measured.errors} errors; error answers so far: ${errorAnswers(stack.dataDir)}`,
        );
      }
      return { measured, cpu };
    };
    const accounts = await openBenchAccounts(stack.databaseUrl, ACCOUNTS);
    const get = await run({ url: `${base}/v1/orders/${orderId}`, method: 'GET' });
    const pay = await run({ url: `${base}/v1/payments`, method: 'POST', body: PAYMENT_BODY });
    const spread = await run({ url: `${base}/v1/payments`, method: 'POST', body: SPREAD_BODY, accounts });
    return { apis, get: get.measured, pay: pay.measured, spread: spread.measured, cpu: spread.cpu, getCpu: get.cpu };
  } finally {
    await stack.cleanup();
  }
}

// ---------------------------------------------------------------- report

const num = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const cores = (n: number) => `${num(n * 100)} %`;

function saturation(steps: Step[]): string {
  const lines: string[] = [];
  const busiest = (c: Step['cpu']) =>
    (['front', 'apis', 'backends', 'postgres', 'rest'] as const).reduce((a, b) => (c[b] > c[a] ? b : a));
  for (const [i, s] of steps.entries()) {
    const gain =
      i === 0
        ? ''
        : `; of 1 instance: GET ×${num(s.get.rps / steps[0]!.get.rps, 2)}, spread payments ×${num(s.spread.rps / steps[0]!.spread.rps, 2)}`;
    const [g, p] = [busiest(s.getCpu), busiest(s.cpu)];
    lines.push(
      `  ${s.apis} API instance(s): GET: machine ${cores(s.getCpu.machine)} busy, busiest ${g} (${cores(s.getCpu[g])} of a core); ` +
        `payments: machine ${cores(s.cpu.machine)} busy, busiest ${p} (${cores(s.cpu[p])})${gain}`,
    );
  }
  const full = steps.find((s) => Math.min(s.cpu.machine, s.getCpu.machine) >= 0.9);
  lines.push(
    full
      ? `  saturates at ${full.apis} API instance(s): the machine's ${CORES} cores are ≥ 90 % busy, so more instances only share them`
      : `  the machine's ${CORES} cores were not saturated; more instances may still add throughput`,
  );
  return lines.join('\n');
}

async function main(): Promise<void> {
  console.log(
    `Scale-out on PostgreSQL: npm run stack with ${API_COUNTS.join(', ')} API instance(s) and ${BACKENDS} back-end service(s), ${CORES} cores, not pinned`,
  );
  console.log(
    `${SECONDS} s per run (+${WARMUP_SECONDS} s warm-up), ${CONNECTIONS} connections through the front; load generator: ${loadGeneratorDescription()}; LOG_LEVEL=${LOG_LEVEL}`,
  );
  const steps: Step[] = [];
  for (const apis of API_COUNTS) {
    const step = await measureStack(apis);
    console.error(
      `  ${apis} API: GET ${num(step.get.rps)} req/s, payments ${num(step.pay.rps)}/s (one pair), ${num(step.spread.rps)}/s (spread)`,
    );
    steps.push(step);
  }
  console.log('');
  console.log(
    `| API instances | GET /v1/orders/{id} req/s | p99 ms | payments/s, one pair of accounts | p99 ms | payments/s, ${ACCOUNTS} accounts | p99 ms |`,
  );
  console.log('|---|---|---|---|---|---|---|');
  for (const s of steps) {
    console.log(
      `| ${s.apis} | ${num(s.get.rps)} | ${num(s.get.p99Ms, 1)} | ${num(s.pay.rps)} | ${num(s.pay.p99Ms, 1)} | ${num(s.spread.rps)} | ${num(s.spread.p99Ms, 1)} |`,
    );
  }
  console.log(`\nCPU (100 % = one core busy for the whole run; machine: share of all ${CORES} cores):`);
  console.log(
    '| run | API instances | front | API instances | back-end services | PostgreSQL | rest (load generator) | machine |',
  );
  console.log('|---|---|---|---|---|---|---|---|');
  for (const [run, pick] of [
    ['GET', (s: Step) => s.getCpu],
    [`payments, ${ACCOUNTS} accounts`, (s: Step) => s.cpu],
  ] as const) {
    for (const s of steps) {
      const c = pick(s);
      console.log(
        `| ${run} | ${s.apis} | ${cores(c.front)} | ${cores(c.apis)} | ${cores(c.backends)} | ${cores(c.postgres)} | ${cores(c.rest)} | ${cores(c.machine)} |`,
      );
    }
  }
  console.log('\nWhere it saturates:');
  console.log(saturation(steps));
}

try {
  await main();
} catch (error) {
  console.error(`\nbench failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
}
