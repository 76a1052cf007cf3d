/**
 * npm run bench: what Corebridge costs per request compared with a bare Fastify 5 route on the same
 * machine, in the same run.
 *
 * Scenarios (Corebridge vs bare, bare bodies have the same size and shape):
 *   1. GET /v1/orders/{id}              vs GET /bare/order  (an order-sized JSON)
 *   2. GET /v1/accounts/1001-01/balance vs GET /bare/order
 *   3. POST /v1/payments (durable, a unique Idempotency-Key per request, 0.01 EUR 1003-01 → 1001-01)
 *                                       vs POST /bare/payments (body validated by a route schema, 201)
 *   4. POST /v1/loan-applications, the decision by LNDECIDE in TypeScript (10,000.00 over 24 months for
 *      customer 1001, approved, 201; a unique Idempotency-Key per request) vs POST /bare/payments
 *   5. the same with LNDECIDE in COBOL (a second Corebridge server with PROGRAMS_COBOL=LNDECIDE; only
 *      where cobc is installed) vs POST /bare/payments
 *
 * Corebridge runs as `node src/server.ts` (JWT auth, its log written straight to a file, the back-end over
 * encoded records, SQLite in a fresh DATA_DIR); the bare routes run in bench/bare-server.ts. Each round
 * measures every scenario on both sides, alternating which side goes first from round to round, each
 * run after a short warm-up. The servers are pinned to CPU 0 and the load generator (wrk, or autocannon
 * in a child process when wrk is missing) to CPU 1 when taskset exists and there are two cores.
 *
 * Before round 1, each side gets a first load of each scenario on its fresh server (BENCH_FIRST_LOAD_SECONDS):
 * a new process runs its code unoptimised while V8 compiles it on the same core, so its first seconds under
 * load are slower and their tail far longer than later. That first load is printed on its own ("first
 * load on a fresh server") and not counted in the rounds, which measure the servers in service.
 *
 * How to read it: per side, the median over rounds of req/s, p50 and p99. "CB/bare" is the median of
 * the per-round ratios of req/s and "+p99" the median of the per-round differences in p99 (each round
 * pairs runs made a few seconds apart). Absolute figures move with whatever else the machine does; on
 * a small shared machine only the ratios within one run mean anything. "log lines/req" is the lines
 * Corebridge wrote to its log during its measured runs of a scenario divided by the requests it served.
 *
 * Environment: BENCH_ROUNDS (3), BENCH_SECONDS (10), BENCH_WARMUP_SECONDS (2, before every run),
 * BENCH_FIRST_LOAD_SECONDS (5, once per side and scenario before round 1; 0: none), BENCH_CONNECTIONS (50),
 * BENCH_ONLY (scenarios whose name contains one of these comma-separated words, e.g. "loan");
 * BENCH_BACKEND=service (the back-end as its own process, `corebridge backend serve`, also on CPU 0,
 * reached over mutual TLS with BACKEND_URL; default: embedded);
 * LOG_LEVEL (info) and everything else (e.g. BACKEND_TRANSPORT=in-process) is passed to the server.
 */
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { closeSync, mkdirSync, mkdtempSync, openSync, readSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { openDevIssuer } from '../src/auth/dev-issuer.ts';
import { ROLE_SCOPES } from '../src/auth/roles.ts';
import { loadConfig } from '../src/config.ts';
import { writeDevelopmentPki } from '../src/cli/certs.ts';
import { devPkiFiles } from '../src/tls/dev-files.ts';
import { cobcVersion } from '../src/transport/cobol-host/build.ts';
import { accepts, freePort } from '../support/free-port.ts';
import { until } from '../src/until.ts';
import { LOAN_BODY, PAYMENT_BODY, waitFor } from './harness.ts';
import {
  children,
  loadGeneratorDescription,
  pinningDescription,
  runLoad,
  start,
  stop,
  type LoadTarget,
  type Measurement,
} from './load.ts';

const ROOT = join(import.meta.dirname, '..');
const ROUNDS = setting('BENCH_ROUNDS', 3);
const SECONDS = setting('BENCH_SECONDS', 10);
const WARMUP_SECONDS = setting('BENCH_WARMUP_SECONDS', 2, 0);
const FIRST_LOAD_SECONDS = setting('BENCH_FIRST_LOAD_SECONDS', 5, 0);
const CONNECTIONS = setting('BENCH_CONNECTIONS', 50);
const ONLY = (process.env['BENCH_ONLY'] ?? '')
  .split(',')
  .map((w) => w.trim().toLowerCase())
  .filter(Boolean);
const LOG_LEVEL = process.env['LOG_LEVEL'] || 'info';
const TRANSPORT = process.env['BACKEND_TRANSPORT'] || 'worker (default)';
const READS = process.env['BACKEND_READS'] || 'api-thread (default)';
const BACKEND_SERVICE = process.env['BENCH_BACKEND'] === 'service';
/** Time for the server to finish in-flight requests and write their log lines after a run. */
const SETTLE_MS = 300;

type Side = 'bare' | 'corebridge';

interface Target extends LoadTarget {
  expectStatus: number;
  server: ServerProcess;
}

interface ServerProcess {
  process: ChildProcess;
  authorization: string;
  /** Where it logs (Corebridge), for the log lines per request. */
  logFile: string | null;
}

interface Scenario {
  name: string;
  bare: Target;
  corebridge: Target;
}

interface Run extends Measurement {
  /** Lines the server logged during the run (Corebridge only). */
  logLines: number;
}

function setting(name: string, fallback: number, min = 1): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) throw new Error(`${name} must be a whole number ≥ ${min}, got "${raw}"`);
  return value;
}

// ---------------------------------------------------------------- the servers

interface CorebridgeServer extends ServerProcess {
  base: string;
}

interface Servers {
  corebridge: CorebridgeServer;
  /** The same with PROGRAMS_COBOL=LNDECIDE; null without cobc. */
  cobol: CorebridgeServer | null;
  bare: ServerProcess & { base: string };
}

/** A Corebridge server on a fresh DATA_DIR under `dir`, its log in a file, and a token it accepts. */
async function startCorebridge(dir: string, extraEnv: Record<string, string> = {}): Promise<CorebridgeServer> {
  const port = await freePort();
  const dataDir = join(dir, 'data');
  mkdirSync(dataDir, { recursive: true });
  const env = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    LOG_LEVEL,
    // The highest limits the server accepts, per 1 s window: the bench never meets a 429.
    RATE_LIMIT_MAX: '1000000',
    RATE_LIMIT_ADDRESS_MAX: '10000000',
    RATE_LIMIT_WINDOW_SECONDS: '1',
    ...extraEnv,
  };
  if (BACKEND_SERVICE) Object.assign(env, await startBackendService(dir, env));
  // The token is signed with the key the server will find in DATA_DIR (created here, first).
  const config = loadConfig(env);
  const issuer = await openDevIssuer({ dataDir, issuer: config.auth.issuer, audience: config.auth.audience });
  const token = await issuer.sign({ subject: 'clerk', role: 'agent', scopes: ROLE_SCOPES.agent }, { ttlSeconds: 3600 });

  // The server writes its log lines straight into a file (no pipe through this process).
  const logFile = join(dir, 'server.log');
  const logFd = openSync(logFile, 'w');
  const child = start(0, process.execPath, ['src/server.ts'], { cwd: ROOT, env, stdio: ['ignore', logFd, 'inherit'] });
  closeSync(logFd);
  const server = { process: child, authorization: `Bearer ${token}`, logFile, base: `http://127.0.0.1:${port}` };
  await waitFor(`${server.base}/health/ready`, child);
  return server;
}

/** `corebridge backend serve` on the same DATA_DIR, with development certificates; the API's settings to reach it. */
async function startBackendService(
  dir: string,
  env: Record<string, string | undefined>,
): Promise<Record<string, string>> {
  await writeDevelopmentPki(devPkiFiles(env['DATA_DIR']!));
  const port = await freePort();
  const logFd = openSync(join(dir, 'backend.log'), 'w');
  const child = start(0, process.execPath, ['bin/corebridge.ts', 'backend', 'serve'], {
    cwd: ROOT,
    env: { ...env, BACKEND_LISTEN: `127.0.0.1:${port}` },
    stdio: ['ignore', logFd, 'inherit'],
  });
  closeSync(logFd);
  await until(
    'the back-end service listening',
    () => {
      if (child.exitCode !== null) throw new Error('the back-end service exited while starting');
      return accepts(port);
    },
    30_000,
    50,
  );
  return { BACKEND_URL: `tls://127.0.0.1:${port}` };
}

async function startServers(dir: string, withCobol: boolean): Promise<Servers> {
  const barePort = await freePort();
  const bareProcess = start(0, process.execPath, ['bench/bare-server.ts'], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(barePort) },
    stdio: 'inherit',
  });
  const bare = {
    process: bareProcess,
    authorization: 'Bearer none',
    logFile: null,
    base: `http://127.0.0.1:${barePort}`,
  };
  await waitFor(`${bare.base}/bare`, bareProcess);
  const corebridge = await startCorebridge(join(dir, 'corebridge'));
  const cobol = withCobol ? await startCorebridge(join(dir, 'corebridge-cobol'), { PROGRAMS_COBOL: 'LNDECIDE' }) : null;
  return { corebridge, cobol, bare };
}

async function createOrder(server: CorebridgeServer): Promise<string> {
  const response = await fetch(`${server.base}/v1/orders`, {
    method: 'POST',
    headers: { authorization: server.authorization, 'content-type': 'application/json' },
    body: JSON.stringify({ customerId: '1001', productId: 'P-100', quantity: 1 }),
  });
  const body = await response.text();
  if (response.status !== 201) throw new Error(`creating an order: expected 201, got ${response.status}: ${body}`);
  return (JSON.parse(body) as { orderId: string }).orderId;
}

function scenarios(servers: Servers, orderId: string): Scenario[] {
  const { corebridge, cobol, bare } = servers;
  const bareOrder: Target = { url: `${bare.base}/bare/order`, method: 'GET', expectStatus: 200, server: bare };
  const barePost: Target = { url: `${bare.base}/bare/payments`, method: 'POST', expectStatus: 201, server: bare };
  const loan = (server: CorebridgeServer): Target => ({
    url: `${server.base}/v1/loan-applications`,
    method: 'POST',
    body: LOAN_BODY,
    expectStatus: 201,
    server,
  });
  const list: Scenario[] = [
    {
      name: 'GET /v1/orders/{id}',
      bare: bareOrder,
      corebridge: {
        url: `${corebridge.base}/v1/orders/${orderId}`,
        method: 'GET',
        expectStatus: 200,
        server: corebridge,
      },
    },
    {
      name: 'GET /v1/accounts/{id}/balance',
      bare: bareOrder,
      corebridge: {
        url: `${corebridge.base}/v1/accounts/1001-01/balance`,
        method: 'GET',
        expectStatus: 200,
        server: corebridge,
      },
    },
    {
      name: 'POST /v1/payments',
      bare: barePost,
      corebridge: { url: `${corebridge.base}/v1/payments`, method: 'POST', expectStatus: 201, server: corebridge },
    },
    { name: 'POST loan, LNDECIDE in TypeScript', bare: barePost, corebridge: loan(corebridge) },
  ];
  if (cobol) list.push({ name: 'POST loan, LNDECIDE in COBOL', bare: barePost, corebridge: loan(cobol) });
  return list.filter((s) => ONLY.length === 0 || ONLY.some((word) => s.name.toLowerCase().includes(word)));
}

/** One request as the load generator will send it; anything but the expected status stops the bench. */
async function checkFirstResponse(target: Target): Promise<void> {
  const headers: Record<string, string> = { authorization: target.server.authorization };
  if (target.method === 'POST')
    Object.assign(headers, { 'content-type': 'application/json', 'idempotency-key': `check-${randomUUID()}` });
  const response = await fetch(target.url, {
    method: target.method,
    headers,
    ...(target.method === 'POST' ? { body: target.body ?? PAYMENT_BODY } : {}),
  });
  const body = await response.text();
  if (response.status !== target.expectStatus) {
    throw new Error(
      `${target.method} ${target.url}: expected ${target.expectStatus}, got ${response.status}: ${body.slice(0, 500)}`,
    );
  }
}

// ---------------------------------------------------------------- measuring

function fileSize(file: string): number {
  return statSync(file).size;
}

function countNewlines(file: string, from: number, to: number): number {
  const fd = openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(1 << 20);
    let count = 0;
    for (let position = from; position < to;) {
      const read = readSync(fd, buffer, 0, Math.min(buffer.length, to - position), position);
      if (read === 0) break;
      for (let i = 0; i < read; i++) if (buffer[i] === 0x0a) count++;
      position += read;
    }
    return count;
  } finally {
    closeSync(fd);
  }
}

/** Warm-up, then the measured run; for Corebridge also the log lines written meanwhile. */
async function measure(side: Side, target: Target): Promise<Run> {
  const { process: server, authorization, logFile } = target.server;
  if (WARMUP_SECONDS > 0) await runLoad(target, authorization, WARMUP_SECONDS, CONNECTIONS);
  await sleep(SETTLE_MS);
  const logFrom = logFile ? fileSize(logFile) : 0;
  const result = await runLoad(target, authorization, SECONDS, CONNECTIONS);
  await sleep(SETTLE_MS);
  if (server.exitCode !== null)
    throw new Error(`the ${side} server exited with code ${server.exitCode} during the run`);
  const logLines = logFile ? countNewlines(logFile, logFrom, fileSize(logFile)) : 0;
  return { ...result, logLines };
}

// ---------------------------------------------------------------- reporting

interface Summary {
  name: string;
  bareTarget: string;
  bare: { rps: number; p50: number; p99: number; runs: Run[] };
  corebridge: { rps: number; p50: number; p99: number; runs: Run[] };
  ratio: number;
  p99Added: number;
  logLinesPerRequest: number;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function sideSummary(runs: Run[]): Summary['bare'] {
  return {
    rps: median(runs.map((r) => r.rps)),
    p50: median(runs.map((r) => r.p50Ms)),
    p99: median(runs.map((r) => r.p99Ms)),
    runs,
  };
}

function summarize(scenario: Scenario, bareRuns: Run[], corebridgeRuns: Run[]): Summary {
  const pairs = bareRuns.map((bare, i) => ({ bare, corebridge: corebridgeRuns[i]! }));
  const served = corebridgeRuns.reduce((n, r) => n + r.requests, 0);
  return {
    name: scenario.name,
    bareTarget: `${scenario.bare.method} ${new URL(scenario.bare.url).pathname}`,
    bare: sideSummary(bareRuns),
    corebridge: sideSummary(corebridgeRuns),
    ratio: median(pairs.map((p) => p.corebridge.rps / p.bare.rps)),
    p99Added: median(pairs.map((p) => p.corebridge.p99Ms - p.bare.p99Ms)),
    logLinesPerRequest: served > 0 ? corebridgeRuns.reduce((n, r) => n + r.logLines, 0) / served : 0,
  };
}

const num = (value: number, digits = 0) =>
  value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const signed = (value: number, digits = 2) => (value >= 0 ? `+${num(value, digits)}` : num(value, digits));

function failures(runs: Measurement[]): string {
  const non2xx = runs.reduce((n, r) => n + r.non2xx, 0);
  const errors = runs.reduce((n, r) => n + r.errors, 0);
  return non2xx + errors === 0 ? '' : `   ! ${num(non2xx)} non-2xx, ${num(errors)} socket errors/timeouts`;
}

function printScenario(s: Summary): void {
  const line = (label: string, side: Summary['bare']) =>
    `  ${label.padEnd(11)} ${num(side.rps).padStart(9)} req/s   p50 ${num(side.p50, 2).padStart(7)} ms   p99 ${num(side.p99, 2).padStart(7)} ms${failures(side.runs)}`;
  console.log(`\n${s.name}   (bare: ${s.bareTarget})`);
  console.log(line('bare', s.bare));
  console.log(line('corebridge', s.corebridge));
  console.log(
    `  Corebridge/bare ${num(s.ratio, 3)} × req/s   p99 ${signed(s.p99Added)} ms   log lines/request ${num(s.logLinesPerRequest, 2)}`,
  );
  if (s.bare.runs.length > 1) {
    const rounds = (runs: Run[]) => runs.map((r) => num(r.rps)).join(' ');
    console.log(`  req/s per round: bare ${rounds(s.bare.runs)} | corebridge ${rounds(s.corebridge.runs)}`);
  }
}

/** The first load of each scenario on the fresh servers: what a client meets just after a start. */
function printFirstLoads(list: Scenario[], first: Map<Scenario, Record<Side, Measurement>>): void {
  if (first.size === 0) return;
  console.log(
    `\nFirst load on a fresh server (${FIRST_LOAD_SECONDS} s per side and scenario before round 1; not in the rounds)`,
  );
  for (const s of list) {
    const { bare, corebridge } = first.get(s)!;
    const side = (m: Measurement) => `${num(m.rps).padStart(7)} req/s  p99 ${num(m.p99Ms, 2).padStart(7)} ms`;
    console.log(
      `  ${s.name.padEnd(34)} bare ${side(bare)}   corebridge ${side(corebridge)}${failures([bare, corebridge])}`,
    );
  }
}

function printTable(summaries: Summary[]): void {
  const header = ['scenario', 'bare req/s', 'CB req/s', 'CB/bare', 'bare p99', 'CB p99', '+p99 ms', 'lines/req'];
  const rows = summaries.map((s) => [
    s.name,
    num(s.bare.rps),
    num(s.corebridge.rps),
    num(s.ratio, 3),
    num(s.bare.p99, 2),
    num(s.corebridge.p99, 2),
    signed(s.p99Added),
    num(s.logLinesPerRequest, 2),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const format = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  console.log(`\nSummary (medians over ${ROUNDS} round${ROUNDS === 1 ? '' : 's'}; p99 in ms)`);
  console.log(format(header));
  for (const row of rows) console.log(format(row));
}

// ---------------------------------------------------------------- main

const workDir = mkdtempSync(join(tmpdir(), 'corebridge-bench-'));
let cleaning: Promise<void> | undefined;
let interrupted = false;

function cleanup(): Promise<void> {
  cleaning ??= Promise.all([...children].map(stop)).then(() => rmSync(workDir, { recursive: true, force: true }));
  return cleaning;
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    interrupted = true;
    console.error(`\n${signal}: stopping the servers and removing ${workDir}`);
    void cleanup().finally(() => process.exit(130));
  });
}

async function main(): Promise<void> {
  console.log(
    `Corebridge vs bare Fastify: ${ROUNDS} round(s) × ${SECONDS} s per side and scenario (+${WARMUP_SECONDS} s warm-up), ${CONNECTIONS} connections, 127.0.0.1`,
  );
  console.log(
    `first load: ${FIRST_LOAD_SECONDS > 0 ? `${FIRST_LOAD_SECONDS} s per side and scenario on the fresh servers before round 1, reported apart` : 'none (BENCH_FIRST_LOAD_SECONDS=0): round 1 meets the fresh servers'}`,
  );
  console.log(`load generator: ${loadGeneratorDescription()}`);
  console.log(`pinning: ${pinningDescription()}`);
  console.log(
    BACKEND_SERVICE
      ? `Corebridge: the back-end as its own process (corebridge backend serve, on CPU 0 with the API), over mutual TLS; LOG_LEVEL=${LOG_LEVEL}, logs to files, fresh DATA_DIR`
      : `Corebridge: BACKEND_TRANSPORT=${TRANSPORT}, BACKEND_READS=${READS}, LOG_LEVEL=${LOG_LEVEL}, log to a file, fresh DATA_DIR`,
  );

  const cobc = await cobcVersion();
  const wantCobol = ONLY.length === 0 || ONLY.some((word) => 'post loan, lndecide in cobol'.includes(word));
  console.log(
    `COBOL: ${cobc === null ? 'cobc not installed, no COBOL row (apt-get install gnucobol3)' : `${cobc}, LNDECIDE in a second server with PROGRAMS_COBOL=LNDECIDE`}`,
  );

  const servers = await startServers(workDir, cobc !== null && wantCobol);
  const list = scenarios(servers, await createOrder(servers.corebridge));
  if (list.length === 0) throw new Error(`BENCH_ONLY=${process.env['BENCH_ONLY']} names no scenario`);
  for (const s of list) {
    await checkFirstResponse(s.bare);
    await checkFirstResponse(s.corebridge);
  }

  const first = new Map<Scenario, Record<Side, Measurement>>();
  if (FIRST_LOAD_SECONDS > 0) {
    for (const s of list) {
      const load = (side: Side) => runLoad(s[side], s[side].server.authorization, FIRST_LOAD_SECONDS, CONNECTIONS);
      first.set(s, { bare: await load('bare'), corebridge: await load('corebridge') });
      const { bare, corebridge } = first.get(s)!;
      console.error(
        `  first load  ${s.name.padEnd(34)} bare ${num(bare.rps).padStart(8)} req/s  p99 ${num(bare.p99Ms, 2)} ms | corebridge ${num(corebridge.rps).padStart(8)} req/s  p99 ${num(corebridge.p99Ms, 2)} ms`,
      );
    }
  }

  const runs = new Map(list.map((s) => [s, { bare: [] as Run[], corebridge: [] as Run[] }]));
  for (let round = 0; round < ROUNDS; round++) {
    const order: Side[] = round % 2 === 0 ? ['bare', 'corebridge'] : ['corebridge', 'bare'];
    for (const s of list) {
      for (const side of order) {
        const run = await measure(side, s[side]);
        runs.get(s)![side].push(run);
        console.error(
          `  round ${round + 1}/${ROUNDS}  ${s.name.padEnd(34)} ${side.padEnd(10)} ${num(run.rps).padStart(8)} req/s  p99 ${num(run.p99Ms, 2)} ms`,
        );
      }
    }
  }

  const summaries = list.map((s) => summarize(s, runs.get(s)!.bare, runs.get(s)!.corebridge));
  printFirstLoads(list, first);
  summaries.forEach(printScenario);
  printTable(summaries);
}

try {
  await main();
} catch (error) {
  if (!interrupted) console.error(`\nbench failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
} finally {
  await cleanup();
}
