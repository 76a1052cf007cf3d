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
 * PostgreSQL's ceiling: before the stack steps, with nothing else of the bench running, pgbench runs its builtin
 * TPC-B-like transaction (update an account, select its balance, update a teller and a branch, insert a history
 * row) on a fresh database of the same server, with BENCH_CONNECTIONS clients, 2 threads, BENCH_SECONDS, prepared
 * statements. It is the ceiling for payments/s: the same database on the same machine running only its own
 * transaction of the same shape, with no HTTP, TLS or API in front. Twice: scale 1, whose one branch row every
 * transaction updates (as every payment of the one pair locks the same two rows), and scale BENCH_PGBENCH_SCALE,
 * whose branches spread the contention. pgbench's client runs on the same cores as PostgreSQL, as the load
 * generator does beside the stack. pgbench missing or failing fails the bench; BENCH_PGBENCH=0 skips it.
 *
 * Environment: BENCH_SECONDS (10), BENCH_WARMUP_SECONDS (2), BENCH_CONNECTIONS (50), BENCH_BACKENDS (2),
 * BENCH_ACCOUNTS (100),
 * BENCH_API_COUNTS (1,2,3), BENCH_PGBENCH (1; 0 skips pgbench), BENCH_PGBENCH_SCALE (10), LOG_LEVEL (info),
 * REDIS_URL (redis://127.0.0.1:6379), TEST_POSTGRES_URL (the server's postgres database, where databases are made).
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import pg from 'pg';
import { startStack } from '../scripts/stack/run.ts';
import { createTestDatabase, dropTestDatabases } from '../support/database.ts';
import { PAYMENT_BODY } from './harness.ts';
import { loadGeneratorDescription, runLoad, type LoadTarget, type Measurement } from './load.ts';

const SECONDS = Number(process.env['BENCH_SECONDS'] || 10);
const WARMUP_SECONDS = Number(process.env['BENCH_WARMUP_SECONDS'] || 2);
const CONNECTIONS = Number(process.env['BENCH_CONNECTIONS'] || 50);
const BACKENDS = Number(process.env['BENCH_BACKENDS'] || 2);
const ACCOUNTS = Number(process.env['BENCH_ACCOUNTS'] || 100);
const API_COUNTS = (process.env['BENCH_API_COUNTS'] || '1,2,3').split(',').map(Number);
const LOG_LEVEL = process.env['LOG_LEVEL'] || 'info';
const PGBENCH = process.env['BENCH_PGBENCH'] !== '0';
const PGBENCH_SCALE = Number(process.env['BENCH_PGBENCH_SCALE'] || 10);
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

// ---------------------------------------------------------------- PostgreSQL's ceiling (pgbench)

interface PgbenchRun {
  scale: number;
  tps: number;
  /** The CPU during the run: PostgreSQL, the rest (pgbench's client, mostly) and the machine. */
  cpu: ReturnType<typeof usage>;
}

const INSTALL_PGBENCH =
  "pgbench is in Debian's postgresql-client: apt-get install postgresql-client; BENCH_PGBENCH=0 skips PostgreSQL's ceiling";

/** Runs pgbench with `args`; its output. A missing or failing pgbench throws a one-line message. */
async function pgbench(args: string[], timeoutMs: number): Promise<string> {
  try {
    // LC_ALL=C: pgbench prints its figures in the locale's number format, and the TPS is parsed below.
    const { stdout, stderr } = await promisify(execFile)('pgbench', args, {
      env: { ...process.env, LC_ALL: 'C' },
      timeout: timeoutMs,
    });
    return `${stdout}\n${stderr}`;
  } catch (error) {
    const e = error as NodeJS.ErrnoException & { stderr?: string; killed?: boolean };
    if (e.code === 'ENOENT') {
      throw new Error(`pgbench is not installed (not on PATH); ${INSTALL_PGBENCH}`, { cause: error });
    }
    // Its first error says why; the last line may only say the run was aborted.
    const lines = (e.stderr ?? '').trim().split('\n');
    const first = lines.find((l) => /error|fatal/i.test(l)) ?? lines.at(-1) ?? e.message.split('\n')[0];
    const why = e.killed ? `did not end within ${timeoutMs / 1000} s` : `failed (exit ${String(e.code)}): ${first}`;
    throw new Error(`pgbench ${args.filter((a) => !a.includes('://')).join(' ')} ${why}; ${INSTALL_PGBENCH}`, {
      cause: error,
    });
  }
}

/** pgbench's builtin TPC-B-like script at `scale` on a fresh database, dropped again whatever happens. */
async function measurePgbench(scale: number): Promise<PgbenchRun> {
  const url = await createTestDatabase({ prefix: 'corebridge_pgbench' });
  try {
    await pgbench(['-i', '-q', '-s', String(scale), url], 600_000);
    // The load wrote the tables through shared buffers: flush them now, not in a checkpoint during the run.
    // A role without the right to checkpoint measures with them still dirty.
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client
      .query('CHECKPOINT')
      .catch(() => undefined)
      .finally(() => client.end());
    const before = sample({ front: [], apis: [], backends: [] });
    const started = performance.now();
    const out = await pgbench(
      ['-c', String(CONNECTIONS), '-j', '2', '-T', String(SECONDS), '-M', 'prepared', url],
      (SECONDS + 120) * 1000,
    );
    const cpu = usage(before, sample({ front: [], apis: [], backends: [] }), (performance.now() - started) / 1000);
    const tps = /^tps = ([\d.]+) \(without initial connection time\)/m.exec(out)?.[1];
    if (!tps) {
      const last = out.trim().split('\n').at(-1);
      throw new Error(`pgbench printed no "tps = N (without initial connection time)": ${last}`);
    }
    return { scale, tps: Number(tps), cpu };
  } finally {
    await dropTestDatabases().catch((error: unknown) =>
      console.error(`could not drop pgbench's database: ${String(error)}`),
    );
  }
}

const pgbenchLabel = (scale: number) =>
  scale === 1
    ? 'pgbench tpcb-like, scale 1 (every transaction updates the one branch row)'
    : `pgbench tpcb-like, scale ${scale} (${scale} branch rows, so transactions contend less)`;

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
  // Before the stack steps, when nothing else of the bench runs.
  const ceiling: PgbenchRun[] = [];
  if (PGBENCH) {
    for (const scale of [...new Set([1, PGBENCH_SCALE])]) {
      const run = await measurePgbench(scale);
      console.error(`  ${pgbenchLabel(scale)}: ${num(run.tps)} TPS`);
      ceiling.push(run);
    }
  }
  const scale1 = ceiling.find((r) => r.scale === 1);
  const steps: Step[] = [];
  for (const apis of API_COUNTS) {
    const step = await measureStack(apis);
    console.error(
      `  ${apis} API: GET ${num(step.get.rps)} req/s, payments ${num(step.pay.rps)}/s (one pair), ${num(step.spread.rps)}/s (spread)`,
    );
    steps.push(step);
  }
  console.log('');
  if (PGBENCH) {
    console.log(
      `PostgreSQL's ceiling on this machine: pgbench's builtin TPC-B-like transaction on the same server, ${CONNECTIONS} clients, 2 threads, ${SECONDS} s, prepared; no HTTP, TLS or API in front; pgbench's client on the same ${CORES} cores:`,
    );
    for (const r of ceiling) {
      console.log(
        `  ${pgbenchLabel(r.scale)}: ${num(r.tps)} TPS (PostgreSQL ${cores(r.cpu.postgres)} of a core, rest (pgbench's client, mostly) ${cores(r.cpu.rest)}, machine ${cores(r.cpu.machine)} busy)`,
      );
    }
  } else {
    console.log("PostgreSQL's ceiling on this machine: skipped (BENCH_PGBENCH=0)");
  }
  console.log('');
  // Payments ÷ pgbench's scale 1 run: the share of the database's own ceiling the stack reaches.
  const ratio = (rps: number) => (scale1 ? ` ${num(rps / scale1.tps, 2)} |` : '');
  const ratioHeader = scale1 ? ' payments ÷ pgbench scale 1 |' : '';
  console.log(
    `| API instances | GET /v1/orders/{id} req/s | p99 ms | payments/s, one pair of accounts | p99 ms |${ratioHeader} payments/s, ${ACCOUNTS} accounts | p99 ms |${ratioHeader}`,
  );
  console.log(`|---|---|---|---|---|${scale1 ? '---|' : ''}---|---|${scale1 ? '---|' : ''}`);
  for (const s of steps) {
    console.log(
      `| ${s.apis} | ${num(s.get.rps)} | ${num(s.get.p99Ms, 1)} | ${num(s.pay.rps)} | ${num(s.pay.p99Ms, 1)} |${ratio(s.pay.rps)} ${num(s.spread.rps)} | ${num(s.spread.p99Ms, 1)} |${ratio(s.spread.rps)}`,
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
