/**
 * One measured scenario: a profiled server on CPU 0, wrk on CPU 1, the server's threads read from /proc around
 * the measured window; what it leaves is a kept run (run.ts) for the report.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDevIssuer } from '../../src/auth/dev-issuer.ts';
import { ROLE_SCOPES } from '../../src/auth/roles.ts';
import { loadConfig } from '../../src/config.ts';
import { freePort } from '../../support/free-port.ts';
import { LOAN_BODY, PAYMENT_BODY, waitFor } from '../harness.ts';
import type { OsThread } from './profile.ts';
import { CHECKOUT_ROOT, type RunMeta, type WrkSummary } from './run.ts';

const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 10);
const CONNECTIONS = Number(process.env['BENCH_CONNECTIONS'] ?? 50);
const WARMUP_SECONDS = Number(process.env['STAGES_WARMUP_SECONDS'] ?? 3);
const INTERVAL_US = Number(process.env['STAGES_INTERVAL_US'] ?? 500);
const WRK_THREADS = Number(process.env['WRK_THREADS'] ?? 1);
/** Keep each run's directory (DATA_DIR, log, profiles) for --analyze and --compare. */
export const KEEP = process.env['STAGES_KEEP'] === '1';
const WRK_LUA = fileURLToPath(new URL('./wrk.lua', import.meta.url));

/** Whether taskset can pin the server and wrk to CPUs of their own. */
export const pinned = spawnSync('taskset', ['-c', '0', 'true']).status === 0;
const pin = (cpu: number, argv: string[]) => (pinned ? ['taskset', '-c', String(cpu), ...argv] : argv);

function nowUs(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

/** The processes whose parent is `pid` (the COBOL program host's `cbhost`es), from /proc/<pid>/stat. */
function childPids(pid: number): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // pid (comm) state ppid …: comm may hold spaces and parentheses, so read after the last ')'.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) out.push(Number(entry));
    } catch {
      /* the process ended */
    }
  }
  return out;
}

/**
 * CPU time and run-queue wait of each thread of a process and of its children (/proc/<pid>/task/<tid>/schedstat,
 * ns): a child's threads carry its command name (`cbhost`).
 */
function osThreads(pid: number): Map<number, OsThread> {
  const out = new Map<number, OsThread>();
  for (const id of [pid, ...childPids(pid)]) threadsOf(id, out);
  return out;
}

function threadsOf(pid: number, out: Map<number, OsThread>): void {
  const dir = `/proc/${pid}/task`;
  if (!existsSync(dir)) return;
  for (const tid of readdirSync(dir)) {
    try {
      const [cpuNs, runDelayNs] = readFileSync(`${dir}/${tid}/schedstat`, 'utf8').trim().split(' ').map(Number);
      const name = readFileSync(`${dir}/${tid}/comm`, 'utf8').trim();
      const id = Number(tid);
      out.set(id, { tid: id, name, cpuUs: (cpuNs ?? 0) / 1000, runDelayUs: (runDelayNs ?? 0) / 1000 });
    } catch {
      /* the thread ended */
    }
  }
}

/** Per-CPU jiffies from /proc/stat: user, nice, system, idle, iowait, irq, softirq, steal. */
function cpuTimes(): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  if (!existsSync('/proc/stat')) return out;
  for (const line of readFileSync('/proc/stat', 'utf8').split('\n')) {
    const m = /^(cpu\d+) (.*)$/.exec(line);
    if (m) out[m[1]!] = m[2]!.trim().split(/\s+/).slice(0, 8).map(Number);
  }
  return out;
}

const CLK_TCK = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout?.trim() || 100);

function wrk(args: string[], env: Record<string, string>): Promise<WrkSummary> {
  return new Promise((resolve, reject) => {
    const child = spawn(pin(1, ['wrk'])[0]!, [...pin(1, ['wrk']).slice(1), ...args], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.on('error', reject);
    child.on('exit', (code) => {
      const line = /^STAGES_WRK (\{.*\})$/m.exec(stdout);
      if (code !== 0 || !line) reject(new Error(`wrk failed (${code}):\n${stdout}`));
      else resolve(JSON.parse(line[1]!) as WrkSummary);
    });
  });
}

function git(args: string[]): string {
  return spawnSync('git', args, { cwd: CHECKOUT_ROOT, encoding: 'utf8' }).stdout.trim();
}

export interface Scenario {
  name: 'get' | 'payment' | 'loan' | 'loan-cobol';
  title: string;
  /** Passed to the server. */
  env?: Record<string, string>;
}

export const SCENARIOS: Scenario[] = [
  { name: 'get', title: 'GET /v1/orders/{id}' },
  { name: 'payment', title: 'POST /v1/payments (unique Idempotency-Key per request)' },
  { name: 'loan', title: 'POST /v1/loan-applications, LNDECIDE in TypeScript (unique Idempotency-Key)' },
  {
    name: 'loan-cobol',
    title: 'POST /v1/loan-applications, LNDECIDE in COBOL (unique Idempotency-Key)',
    env: { PROGRAMS_COBOL: 'LNDECIDE' },
  },
];

/** Runs one scenario on a fresh server; the directory of the kept run (the caller removes it unless KEEP). */
export async function runScenario(scenario: Scenario): Promise<string> {
  const runDir = mkdtempSync(join(tmpdir(), `corebridge-stages-${scenario.name}-`));
  const dataDir = join(runDir, 'data');
  const profDir = join(runDir, 'prof');
  mkdirSync(profDir);
  let server: ChildProcess | undefined;
  try {
    const port = await freePort();
    const serverEnv: Record<string, string> = {
      HOST: '127.0.0.1',
      PORT: String(port),
      DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
      // The highest values src/api/protection/config.ts accepts (per 60 s window): no request is refused.
      RATE_LIMIT_MAX: process.env['RATE_LIMIT_MAX'] ?? '1000000',
      RATE_LIMIT_ADDRESS_MAX: process.env['RATE_LIMIT_ADDRESS_MAX'] ?? '10000000',
      ...scenario.env,
    };
    const env: NodeJS.ProcessEnv = { ...process.env, ...serverEnv };
    const config = loadConfig(env);
    const issuer = await openDevIssuer({ dataDir, issuer: config.auth.issuer, audience: config.auth.audience });
    const clerk = { subject: 'clerk', role: 'agent', scopes: ROLE_SCOPES.agent } as const;
    const token = await issuer.sign(clerk, { ttlSeconds: 3600 });

    const logFile = join(runDir, 'server.log');
    const logFd = openSync(logFile, 'w');
    const errFd = openSync(join(runDir, 'server.err'), 'w');
    const argv = pin(0, [
      process.execPath,
      '--cpu-prof',
      `--cpu-prof-dir=${profDir}`,
      `--cpu-prof-interval=${INTERVAL_US}`,
      'src/server.ts',
    ]);
    server = spawn(argv[0]!, argv.slice(1), { cwd: CHECKOUT_ROOT, env, stdio: ['ignore', logFd, errFd] });
    closeSync(logFd);
    closeSync(errFd);
    const base = `http://127.0.0.1:${port}`;
    await waitFor(`${base}/health/ready`, server);
    // V8's profiler thread (one per profiled thread) samples and symbolises: move it to wrk's CPU so that
    // only the server's own threads share CPU 0.
    if (pinned) {
      for (const t of osThreads(server.pid!).values()) {
        if (!t.name.startsWith('v8:ProfEvntProc')) continue;
        spawnSync('taskset', ['-p', '-c', '1', String(t.tid)], { stdio: 'ignore' });
      }
    }

    const auth = `Authorization: Bearer ${token}`;
    let url: string;
    let wrkEnv: Record<string, string> = {};
    const headers = ['-H', auth];
    if (scenario.name === 'get') {
      const created = await fetch(`${base}/v1/orders`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ customerId: '1001', productId: 'P-100', quantity: 1 }),
      });
      if (!created.ok) throw new Error(`creating the order failed: ${created.status} ${await created.text()}`);
      const orderId = ((await created.json()) as { orderId: string }).orderId;
      url = `${base}/v1/orders/${orderId}`;
    } else {
      const loan = scenario.name !== 'payment';
      url = `${base}/v1/${loan ? 'loan-applications' : 'payments'}`;
      headers.push('-H', 'Content-Type: application/json');
      wrkEnv = { STAGES_METHOD: 'POST', STAGES_BODY: loan ? LOAN_BODY : PAYMENT_BODY, STAGES_IDEMPOTENCY: '1' };
    }
    const wrkArgs = (seconds: number) => [
      '-t',
      String(WRK_THREADS),
      '-c',
      String(CONNECTIONS),
      '-d',
      `${seconds}s`,
      '-s',
      WRK_LUA,
      ...headers,
      url,
    ];

    if (WARMUP_SECONDS > 0) {
      await wrk(wrkArgs(WARMUP_SECONDS), { ...wrkEnv, STAGES_RUN: `w${randomUUID().slice(0, 8)}` });
    }
    const pid = server.pid!;
    const before = osThreads(pid);
    const cpusBefore = cpuTimes();
    const startUs = nowUs();
    const summary = await wrk(wrkArgs(SECONDS), { ...wrkEnv, STAGES_RUN: `m${randomUUID().slice(0, 8)}` });
    const endUs = nowUs();
    const cpusAfter = cpuTimes();
    const threads = [...osThreads(pid).values()].map((t) => ({
      ...t,
      cpuUs: t.cpuUs - (before.get(t.tid)?.cpuUs ?? 0),
      runDelayUs: t.runDelayUs - (before.get(t.tid)?.runDelayUs ?? 0),
    }));

    // SIGINT: server.ts closes the app, flushes the log and calls process.exit, which writes the profiles.
    const exited = new Promise<number | null>((resolve) => server!.once('exit', (code) => resolve(code)));
    server.kill('SIGINT');
    const code = await Promise.race([exited, new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 30_000))]);
    if (code === 'timeout') {
      server.kill('SIGKILL');
      throw new Error('the server did not exit within 30 s of SIGINT (no profile written)');
    }
    server = undefined;

    const dirty = git(['status', '--porcelain', '--untracked-files=no', '--', 'src']) !== '';
    const cpus = Object.fromEntries(
      Object.entries(cpusAfter).map(([cpu, after]) => [cpu, after.map((v, i) => v - (cpusBefore[cpu]?.[i] ?? 0))]),
    );
    const meta: RunMeta = {
      root: CHECKOUT_ROOT,
      scenario: scenario.name,
      title: scenario.title,
      commit: `${git(['rev-parse', '--short', 'HEAD'])}${dirty ? ' + uncommitted changes in src' : ''}`,
      date: new Date().toISOString().slice(0, 16).replace('T', ' ') + ' UTC',
      node: process.version,
      pinned,
      seconds: SECONDS,
      connections: CONNECTIONS,
      intervalUs: INTERVAL_US,
      window: { startUs, endUs },
      wrk: summary,
      pid,
      osThreads: threads,
      clkTck: CLK_TCK,
      cpus,
      logBytes: statSync(logFile).size,
      env: Object.fromEntries(
        ['BACKEND_TRANSPORT', 'BACKEND_READS', 'PROGRAMS_COBOL'].filter((k) => env[k]).map((k) => [k, env[k]!]),
      ),
    };
    writeFileSync(join(runDir, 'run.json'), JSON.stringify(meta, null, 2));
    return runDir;
  } catch (error) {
    server?.kill('SIGKILL');
    const err = join(runDir, 'server.err');
    if (existsSync(err)) process.stderr.write(readFileSync(err, 'utf8'));
    if (!KEEP) rmSync(runDir, { recursive: true, force: true });
    throw error;
  }
}
