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
 * How to read it: per side, the median over rounds of req/s, p50 and p99. Each round pairs a Corebridge run
 * with a bare run made a few seconds apart; per scenario the bench prints the min / median / max over rounds
 * of the per-round ratio "CB/bare" (Corebridge req/s ÷ bare req/s) and of "+p99" (Corebridge p99 − bare
 * p99, ms), the same columns in the summary table. Absolute figures move with whatever else the machine
 * does; on a small shared machine only the ratios within one run mean anything, and their spread says how
 * far one round can stray. "log lines/req" is the lines Corebridge wrote to its log during its measured
 * runs of a scenario divided by the requests it served.
 *
 * "GC ms/s" is the time Corebridge's API thread spent in V8 garbage collection per second of a measured
 * run, from the server's own Prometheus metrics: each Corebridge server listens with METRICS_PORT on a free
 * loopback port, and the bench reads nodejs_gc_duration_seconds_sum (every collection of the API thread,
 * src/observability/metrics.ts) right before and right after each measured run (not the warm-up), dividing
 * the growth by the time between the two reads. "young" is the minor GCs (scavenges of the young generation),
 * "all" every kind (minor, major, incremental marking, weak callbacks); min / median / max over rounds. The
 * back-end's own thread or process has its own heap and is not counted.
 *
 * "p99 in server" and "back-end call p99" come from Corebridge's request lines of each measured run: the p99 of
 * their `ms` (the server's time for a request, first hook to response written) and of `backend.ms` (its back-end
 * call, group commit included). The load generator's p99 beyond them is time before the server took a request up.
 *
 * The two loan scenarios run side by side, their Corebridge runs back to back (roundPlan); at the end the bench
 * prints the COBOL loans' req/s ÷ the TypeScript loans' per round, with min / median / max.
 *
 * Environment: BENCH_ROUNDS (5), BENCH_SECONDS (10), BENCH_WARMUP_SECONDS (2, before every run),
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
const ROUNDS = setting('BENCH_ROUNDS', 5);
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
  /** Its Prometheus /metrics URL (Corebridge), for the GC time of its API thread. */
  metricsUrl: string | null;
}

interface Scenario {
  name: string;
  bare: Target;
  corebridge: Target;
}

interface Run extends Measurement {
  /** Lines the server logged during the run (Corebridge only). */
  logLines: number;
  /** GC ms per second of the run on the server's API thread (Corebridge only). */
  gc: { youngMsPerSecond: number; allMsPerSecond: number } | null;
  /** From the request lines of the run (Corebridge only): where a request's time went, ms. */
  inServer: ServerTimes | null;
}

/**
 * Percentiles of the request lines' `ms` (the server's time for the request, from its first hook to the response
 * written) and `backend.ms` (the back-end call within it, group commit included). What the load generator sees
 * beyond `ms` is time before the server took the request up (its socket waiting for the event loop).
 */
interface ServerTimes {
  p50: number;
  p99: number;
  backendP50: number;
  backendP99: number;
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
  const metricsPort = await freePort();
  const dataDir = join(dir, 'data');
  mkdirSync(dataDir, { recursive: true });
  const env = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    // A port of its own per server: the default one would be shared by the two servers of the COBOL row.
    METRICS_PORT: String(metricsPort),
    METRICS_HOST: '127.0.0.1',
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
  const server = {
    process: child,
    authorization: `Bearer ${token}`,
    logFile,
    metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`,
    base: `http://127.0.0.1:${port}`,
  };
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
    metricsUrl: null,
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

function percentile(sorted: number[], p: number): number {
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!;
}

/** The request lines a server wrote between two offsets of its log file, as ServerTimes. */
function serverTimes(file: string, from: number, to: number): ServerTimes | null {
  const fd = openSync(file, 'r');
  let text: string;
  try {
    const buffer = Buffer.alloc(to - from);
    const read = readSync(fd, buffer, 0, buffer.length, from);
    text = buffer.toString('utf8', 0, read);
  } finally {
    closeSync(fd);
  }
  const total: number[] = [];
  const backend: number[] = [];
  for (const line of text.split('\n')) {
    if (!line.includes('"request completed"')) continue;
    const entry = JSON.parse(line) as { ms?: number; backend?: { ms?: number } };
    if (typeof entry.ms === 'number') total.push(entry.ms);
    if (typeof entry.backend?.ms === 'number') backend.push(entry.backend.ms);
  }
  if (total.length === 0) return null;
  total.sort((a, b) => a - b);
  backend.sort((a, b) => a - b);
  return {
    p50: percentile(total, 50),
    p99: percentile(total, 99),
    backendP50: percentile(backend, 50),
    backendP99: percentile(backend, 99),
  };
}

/** Seconds the server's API thread has spent in GC since it started: young generation (minor) and all kinds. */
interface GcTotals {
  young: number;
  all: number;
}

const GC_METRIC = 'nodejs_gc_duration_seconds';

/** Reads the GC totals from the server's Prometheus text. */
async function scrapeGc(metricsUrl: string): Promise<GcTotals> {
  const response = await fetch(metricsUrl, { signal: AbortSignal.timeout(5_000) });
  const text = await response.text();
  if (response.status !== 200)
    throw new Error(`GET ${metricsUrl}: expected 200, got ${response.status}: ${text.slice(0, 200)}`);
  const byKind = new Map<string, number>();
  let declared = false;
  for (const line of text.split('\n')) {
    if (line.startsWith(`# TYPE ${GC_METRIC} `)) declared = true;
    if (!line.startsWith(`${GC_METRIC}_sum{`)) continue;
    const match = /^\S+_sum\{([^}]*)\}\s+(\S+)/.exec(line);
    const kind = match ? /(?:^|,)kind="([^"]*)"/.exec(match[1]!)?.[1] : undefined;
    const value = match ? Number(match[2]) : NaN;
    if (kind === undefined || !Number.isFinite(value)) throw new Error(`${metricsUrl}: cannot read "${line}"`);
    byKind.set(kind, (byKind.get(kind) ?? 0) + value);
  }
  if (!declared) throw new Error(`${metricsUrl} has no ${GC_METRIC}: the GC figures need it`);
  const young = byKind.get('minor');
  if (young === undefined) throw new Error(`${metricsUrl} has no ${GC_METRIC}_sum{kind="minor"}`);
  // A kind without a series has had no collection.
  return { young, all: [...byKind.values()].reduce((a, b) => a + b, 0) };
}

/** Warm-up, then the measured run; for Corebridge also the log lines written and the GC time meanwhile. */
async function measure(side: Side, target: Target): Promise<Run> {
  const { process: server, authorization, logFile, metricsUrl } = target.server;
  if (WARMUP_SECONDS > 0) await runLoad(target, authorization, WARMUP_SECONDS, CONNECTIONS);
  await sleep(SETTLE_MS);
  const logFrom = logFile ? fileSize(logFile) : 0;
  const gcBefore = metricsUrl ? await scrapeGc(metricsUrl) : null;
  const startedAt = performance.now();
  const result = await runLoad(target, authorization, SECONDS, CONNECTIONS);
  const seconds = (performance.now() - startedAt) / 1000;
  const gcAfter = metricsUrl ? await scrapeGc(metricsUrl) : null;
  await sleep(SETTLE_MS);
  if (server.exitCode !== null)
    throw new Error(`the ${side} server exited with code ${server.exitCode} during the run`);
  const logTo = logFile ? fileSize(logFile) : 0;
  const logLines = logFile ? countNewlines(logFile, logFrom, logTo) : 0;
  const inServer = logFile ? serverTimes(logFile, logFrom, logTo) : null;
  const gc =
    gcBefore && gcAfter
      ? {
          youngMsPerSecond: ((gcAfter.young - gcBefore.young) * 1000) / seconds,
          allMsPerSecond: ((gcAfter.all - gcBefore.all) * 1000) / seconds,
        }
      : null;
  return { ...result, logLines, gc, inServer };
}

// ---------------------------------------------------------------- reporting

/** A figure's lowest, median and highest over the rounds. */
interface Spread {
  min: number;
  median: number;
  max: number;
}

interface Summary {
  name: string;
  bareTarget: string;
  bare: { rps: number; p50: number; p99: number; runs: Run[] };
  corebridge: { rps: number; p50: number; p99: number; runs: Run[] };
  /** Per round: Corebridge req/s ÷ bare req/s. */
  ratio: Spread;
  /** Per round: Corebridge p99 − bare p99, ms. */
  p99Added: Spread;
  /** Per round: GC ms per second of Corebridge's run on its API thread, young generation and all kinds. */
  gcYoung: Spread;
  gcAll: Spread;
  /** Per round, from Corebridge's request lines: its own p99 and its back-end calls' (NaN: no such lines). */
  serverP99: Spread;
  backendP99: Spread;
  logLinesPerRequest: number;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function spread(values: number[]): Spread {
  return { min: Math.min(...values), median: median(values), max: Math.max(...values) };
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
  const gc = corebridgeRuns.map((r) => r.gc!);
  return {
    name: scenario.name,
    bareTarget: `${scenario.bare.method} ${new URL(scenario.bare.url).pathname}`,
    bare: sideSummary(bareRuns),
    corebridge: sideSummary(corebridgeRuns),
    ratio: spread(pairs.map((p) => p.corebridge.rps / p.bare.rps)),
    p99Added: spread(pairs.map((p) => p.corebridge.p99Ms - p.bare.p99Ms)),
    gcYoung: spread(gc.map((g) => g.youngMsPerSecond)),
    gcAll: spread(gc.map((g) => g.allMsPerSecond)),
    serverP99: spread(corebridgeRuns.map((r) => r.inServer?.p99 ?? NaN)),
    backendP99: spread(corebridgeRuns.map((r) => r.inServer?.backendP99 ?? NaN)),
    logLinesPerRequest: served > 0 ? corebridgeRuns.reduce((n, r) => n + r.logLines, 0) / served : 0,
  };
}

const num = (value: number, digits = 0) =>
  value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const signed = (value: number, digits = 2) => (value >= 0 ? `+${num(value, digits)}` : num(value, digits));
const roundsLabel = `${ROUNDS} round${ROUNDS === 1 ? '' : 's'}`;

function failures(runs: Measurement[]): string {
  const non2xx = runs.reduce((n, r) => n + r.non2xx, 0);
  const errors = runs.reduce((n, r) => n + r.errors, 0);
  return non2xx + errors === 0 ? '' : `   ! ${num(non2xx)} non-2xx, ${num(errors)} socket errors/timeouts`;
}

function printScenario(s: Summary): void {
  const line = (label: string, side: Summary['bare']) =>
    `  ${label.padEnd(11)} ${num(side.rps).padStart(9)} req/s   p50 ${num(side.p50, 2).padStart(7)} ms   p99 ${num(side.p99, 2).padStart(7)} ms${failures(side.runs)}`;
  const row = (label: string, figures: Spread, format: (value: number) => string) =>
    `  ${label.padEnd(24)}${[figures.min, figures.median, figures.max].map((v) => format(v).padStart(9)).join('')}`;
  console.log(`\n${s.name}   (bare: ${s.bareTarget})`);
  console.log(line('bare', s.bare));
  console.log(line('corebridge', s.corebridge));
  console.log(`  log lines/request ${num(s.logLinesPerRequest, 2)}`);
  console.log(`  ${`over ${roundsLabel}`.padEnd(24)}${['min', 'median', 'max'].map((h) => h.padStart(9)).join('')}`);
  console.log(row('CB/bare req/s', s.ratio, (v) => num(v, 3)));
  console.log(row('+p99 ms (CB − bare)', s.p99Added, (v) => signed(v)));
  console.log(row('CB young GC ms/s', s.gcYoung, (v) => num(v, 1)));
  console.log(row('CB all GC ms/s', s.gcAll, (v) => num(v, 1)));
  const ms = (v: number) => (Number.isNaN(v) ? '—' : num(v, 2));
  console.log(row('CB p99 in server ms', s.serverP99, ms));
  console.log(row('  back-end call p99 ms', s.backendP99, ms));
  if (s.bare.runs.length > 1) {
    const rounds = (runs: Run[]) => runs.map((r) => num(r.rps)).join(' ');
    console.log(`  req/s per round: bare ${rounds(s.bare.runs)} | corebridge ${rounds(s.corebridge.runs)}`);
  }
}

const TS_LOAN = 'POST loan, LNDECIDE in TypeScript';
const COBOL_LOAN = 'POST loan, LNDECIDE in COBOL';

/**
 * The scenarios of a round and the order of their sides, which alternates from round to round. The COBOL
 * loan runs beside the TypeScript one, its sides in the opposite order and, in every other round, first:
 * their two Corebridge runs come back to back, so that their ratio compares runs made moments apart.
 */
function roundPlan(list: Scenario[], round: number): Array<[Scenario, Side[]]> {
  const order: Side[] = round % 2 === 0 ? ['bare', 'corebridge'] : ['corebridge', 'bare'];
  const plan = list.map((s): [Scenario, Side[]] => [s, s.name === COBOL_LOAN ? [...order].reverse() : order]);
  const ts = plan.findIndex(([s]) => s.name === TS_LOAN);
  const cobol = plan.findIndex(([s]) => s.name === COBOL_LOAN);
  if (round % 2 === 1 && ts >= 0 && cobol === ts + 1) [plan[ts], plan[cobol]] = [plan[cobol]!, plan[ts]!];
  return plan;
}

/** The COBOL loans' req/s ÷ the TypeScript loans' in each round (back-to-back runs, roundPlan). */
function printCobolRatio(list: Scenario[], runs: Map<Scenario, Record<Side, Run[]>>): void {
  const ts = list.find((s) => s.name === TS_LOAN);
  const cobol = list.find((s) => s.name === COBOL_LOAN);
  if (!ts || !cobol) return;
  const tsRuns = runs.get(ts)!.corebridge;
  const ratios = runs.get(cobol)!.corebridge.map((run, i) => run.rps / tsRuns[i]!.rps);
  const { min, median: mid, max } = spread(ratios);
  console.log(
    `\nLNDECIDE in COBOL ÷ in TypeScript, Corebridge req/s in the same round (back-to-back runs): ` +
      `min ${num(min, 3)} / median ${num(mid, 3)} / max ${num(max, 3)}; per round ${ratios.map((r) => num(r, 3)).join(' ')}`,
  );
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
  // Columns in groups, each group's title over its columns.
  const columns: Array<{ group: string; header: string; cell: (s: Summary) => string }> = [
    { group: '', header: 'scenario', cell: (s) => s.name },
    { group: 'req/s', header: 'bare', cell: (s) => num(s.bare.rps) },
    { group: 'req/s', header: 'CB', cell: (s) => num(s.corebridge.rps) },
    { group: 'CB/bare req/s', header: 'min', cell: (s) => num(s.ratio.min, 3) },
    { group: 'CB/bare req/s', header: 'median', cell: (s) => num(s.ratio.median, 3) },
    { group: 'CB/bare req/s', header: 'max', cell: (s) => num(s.ratio.max, 3) },
    { group: '+p99 ms', header: 'min', cell: (s) => signed(s.p99Added.min) },
    { group: '+p99 ms', header: 'median', cell: (s) => signed(s.p99Added.median) },
    { group: '+p99 ms', header: 'max', cell: (s) => signed(s.p99Added.max) },
    { group: 'CB GC ms/s', header: 'young', cell: (s) => num(s.gcYoung.median, 1) },
    { group: 'CB GC ms/s', header: 'all', cell: (s) => num(s.gcAll.median, 1) },
    { group: '', header: 'lines/req', cell: (s) => num(s.logLinesPerRequest, 2) },
  ];
  const rows = summaries.map((s) => columns.map((c) => c.cell(s)));
  const widths = columns.map((c, i) => Math.max(c.header.length, ...rows.map((r) => r[i]!.length)));
  const GAP = 2;
  const groups: Array<{ title: string; columns: number[] }> = [];
  columns.forEach((c, i) => {
    const last = groups.at(-1);
    if (last && c.group !== '' && last.title === c.group) last.columns.push(i);
    else groups.push({ title: c.group, columns: [i] });
  });
  const span = (g: (typeof groups)[number]) =>
    g.columns.reduce((n, i) => n + widths[i]!, 0) + GAP * (g.columns.length - 1);
  // A title wider than its columns widens the first of them.
  for (const g of groups) widths[g.columns[0]!]! += Math.max(0, g.title.length - span(g));
  const centred = (g: (typeof groups)[number]) => {
    const room = span(g) - g.title.length;
    return ' '.repeat(Math.ceil(room / 2)) + g.title + ' '.repeat(Math.floor(room / 2));
  };
  const format = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' '.repeat(GAP));
  console.log(
    `\nSummary over ${roundsLabel}: req/s are medians; CB/bare and +p99 (CB p99 − bare p99) the min / median / max of the`,
  );
  console.log(`per-round figures; CB GC ms/s the median time in GC per second on Corebridge's API thread`);
  console.log(groups.map(centred).join(' '.repeat(GAP)).trimEnd());
  console.log(format(columns.map((c) => c.header)));
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
    for (const [s, order] of roundPlan(list, round)) {
      for (const side of order) {
        const run = await measure(side, s[side]);
        runs.get(s)![side].push(run);
        console.error(
          `  round ${round + 1}/${ROUNDS}  ${s.name.padEnd(34)} ${side.padEnd(10)} ${num(run.rps).padStart(8)} req/s  p99 ${num(run.p99Ms, 2)} ms${run.gc ? `  GC ms/s young ${num(run.gc.youngMsPerSecond, 1)} all ${num(run.gc.allMsPerSecond, 1)}` : ''}${run.inServer ? `  in server p50/p99 ${num(run.inServer.p50, 1)}/${num(run.inServer.p99, 1)} ms, back-end call ${num(run.inServer.backendP50, 1)}/${num(run.inServer.backendP99, 1)}` : ''}`,
        );
      }
    }
  }

  const summaries = list.map((s) => summarize(s, runs.get(s)!.bare, runs.get(s)!.corebridge));
  printFirstLoads(list, first);
  summaries.forEach(printScenario);
  printTable(summaries);
  printCobolRatio(list, runs);
}

try {
  await main();
} catch (error) {
  if (!interrupted) console.error(`\nbench failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
} finally {
  await cleanup();
}
