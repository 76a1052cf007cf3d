/**
 * npm run bench:stages — the per-request time budget of the API, by stage, from V8 CPU profiles.
 *
 * For each scenario (GET /v1/orders/{id}, POST /v1/payments) a fresh server runs as
 * `taskset -c 0 node --cpu-prof src/server.ts` on a new DATA_DIR, wrk loads it from CPU 1 (warm-up, then the
 * measured run), and the server is stopped with SIGINT so that every thread writes its .cpuprofile. Each
 * sample inside the measured window is charged to the first stage whose rule (RULES below) matches a frame
 * of its stack, walking from the leaf outward; each stage's time divided by wrk's request count is its
 * µs per request.
 *
 * Usage:
 *   npm run bench:stages                          both scenarios, each on its own server
 *   npm run bench:stages -- get                   one scenario: get | payment
 *   npm run bench:stages -- --top 8               also the 8 costliest frames of each stage (leaf ← matched frame)
 *   npm run bench:stages -- --analyze DIR [--top N]   re-analyse a run kept with STAGES_KEEP=1 (no server, no load)
 *   npm run bench:stages -- --compare DIR...      kept runs side by side: CPU µs/request per stage and the totals
 * Environment: BENCH_SECONDS (10), BENCH_CONNECTIONS (50), STAGES_WARMUP_SECONDS (3), STAGES_INTERVAL_US
 * (sampling interval, 500), WRK_THREADS (1), STAGES_KEEP=1 (keep DATA_DIR, log and profiles; the path is printed).
 * Anything else in the environment reaches the server (e.g. BACKEND_TRANSPORT=worker).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDevIssuer } from '../src/api/auth/dev-issuer.ts';
import { ROLE_SCOPES } from '../src/api/auth/roles.ts';
import { loadConfig } from '../src/config.ts';
import { freePort } from '../support/free-port.ts';
import { PAYMENT_BODY, waitFor } from './harness.ts';

// ── stages and the rules that assign frames to them ─────────────────────────────────────────────────

/**
 * Table order. Rows beyond the brief's list: limits, body parse, handler, fastify core, async, event-loop I/O (native).
 * The last is not matched by a rule: it is the CPU inside V8's (idle) samples (see calibrate).
 */
const STAGES = [
  'routing', 'request id', 'CORS', 'security headers', 'rate limit', 'limits', 'auth', 'body parse', 'validation',
  'idempotency', 'handler', 'encode', 'transport', 'program', 'store', 'decode', 'field projection', 'serialization',
  'log line', 'fastify core', 'async', 'HTTP/socket', 'event-loop I/O (native)', 'GC', 'other', 'idle',
] as const;
type Stage = (typeof STAGES)[number];

interface Rule {
  stage: Stage;
  /** Tested on the frame's short url: `src/…`, `node_modules/<pkg>/…`, `node:…`, `(native)` or `(eval)`. */
  url?: RegExp;
  fn?: RegExp;
  /**
   * A weak rule names a layer that other stages run inside (HTTP, Fastify's hook runner, route handlers that
   * call reply.send): it applies only when no ordinary rule matches anywhere on the stack, and then the
   * weak match nearest the leaf wins.
   */
  weak?: true;
  /**
   * A boundary is a weak frame where Fastify dispatches to the next hook or handler (its hook runner, the
   * reply's send pipeline). Callback-style hooks (CORS, helmet, under-pressure) call next() synchronously,
   * so the rest of the request runs inside their frames: the walk stops at a boundary, and frames outside it
   * do not claim the sample.
   */
  boundary?: true;
  /** The stage depends on the caller: the first ancestor frame whose short url matches an entry decides, else `stage`. */
  within?: Array<{ url: RegExp; stage: Stage }>;
}

const EVAL = /^\(eval\)$/;
const PKG = (...names: string[]) => new RegExp(`^node_modules/(${names.map((n) => n.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('|')})/`);

/**
 * Ordered: a frame takes the first rule it matches. Frames no rule matches (node:buffer, node:crypto,
 * SQLite's native exec/run/get, the records runtime helpers, toad-cache…) are charged to the stage of their caller.
 */
const RULES: Rule[] = [
  // V8's pseudo-frames
  { stage: 'idle', fn: /^\(idle\)$/ },
  { stage: 'GC', fn: /^\(garbage collector\)$/ },
  { stage: 'other', fn: /^\(program\)$/ }, // native code V8 cannot attribute to a JS frame
  // code compiled at run time (new Function): url '' with a script id
  { stage: 'encode', url: EVAL, fn: /^encode/ }, // src/records codegen: encode, encodeElement…
  { stage: 'decode', url: EVAL, fn: /^decode/ }, // src/records codegen: decode, decodeElement…
  { stage: 'validation', url: EVAL, fn: /^validate\d*$/ }, // ajv
  { stage: 'serialization', url: EVAL, fn: /^(main|anonymous\d*|anonymous)$/ }, // fast-json-stringify
  // messages: header + record (src/backend/message.ts), both sides of the transport
  { stage: 'encode', url: /^src\/backend\/message\.ts$/, fn: /^(writeMessage|headerToRecord)$/ },
  { stage: 'decode', url: /^src\/backend\/message\.ts$/, fn: /^(readHeader|headerFromRecord|text)$/ },
  { stage: 'encode', url: /^src\/backend\/index\.ts$/, fn: /^answer$/ },
  // protection
  { stage: 'CORS', url: PKG('@fastify/cors') },
  { stage: 'CORS', url: /^src\/api\/protection\/cors\.ts$/ },
  { stage: 'security headers', url: PKG('@fastify/helmet', 'helmet') },
  { stage: 'security headers', url: /^src\/api\/protection\/security-headers\.ts$/ },
  { stage: 'rate limit', url: PKG('@fastify/rate-limit') },
  { stage: 'rate limit', url: /^src\/api\/protection\/rate-limit\.ts$/ },
  { stage: 'validation', url: /^src\/api\/protection\/limits\.ts$/, fn: /^jsonShapeViolation$/ },
  { stage: 'handler', url: /^src\/api\/protection\/limits\.ts$/, fn: /^call$/ }, // limitBackendCalls wrapper
  { stage: 'limits', url: /^src\/api\/protection\/limits\.ts$/ }, // request timer, preValidation hook
  { stage: 'limits', url: PKG('@fastify/under-pressure') },
  // identity and access
  { stage: 'request id', url: /^src\/api\/plugins\/request-id\.ts$/ },
  { stage: 'auth', url: PKG('jose') },
  { stage: 'auth', url: /^src\/api\/(auth\/|plugins\/auth\.ts$)/ },
  { stage: 'idempotency', url: /^src\/api\/(idempotency\/|plugins\/idempotency\.ts$)/ },
  { stage: 'field projection', url: /^src\/api\/authorization\/fields\.ts$/ },
  // request body and validation
  { stage: 'body parse', url: PKG('secure-json-parse') },
  { stage: 'body parse', url: /^node_modules\/fastify\/lib\/content-type-parser\.js$/, weak: true },
  { stage: 'validation', url: PKG('ajv', 'ajv-formats', '@fastify/ajv-compiler', 'fast-uri') },
  { stage: 'validation', url: /^node_modules\/fastify\/lib\/validation\.js$/ },
  // reply serialization
  { stage: 'serialization', url: PKG('fast-json-stringify', '@fastify/fast-json-stringify-compiler') },
  { stage: 'serialization', url: /^node_modules\/fastify\/lib\/reply\.js$/, fn: /^serialize$/ }, // not preSerializationHookEnd: onSend runs inside it

  // log line
  { stage: 'log line', url: PKG('pino', 'sonic-boom', 'pino-std-serializers', 'fast-redact', 'quick-format-unescaped', 'on-exit-leak-free', 'thread-stream', 'atomic-sleep', 'safe-stable-stringify', '@pinojs/redact') },
  { stage: 'log line', url: /^src\/(logger\.ts|api\/logging\/|api\/plugins\/request-log\.ts)/ },
  { stage: 'log line', url: /^node_modules\/fastify\/lib\/logger[\w-]*\.js$/ },
  // back-end
  { stage: 'log line', url: /^src\/transport\/backend-worker\.ts$/, fn: /^write$/ }, // the worker's log lines, posted to the main thread
  { stage: 'transport', url: /^src\/transport\/backend-worker\.ts$/, fn: /^(?!post$)/ }, // post: whoever calls it (drain or write)
  { stage: 'transport', url: /^src\/transport\/(?!backend-worker)/ },
  { stage: 'transport', url: /^node:internal\/(worker|per_context\/messageport)/, weak: true },
  { stage: 'store', url: /^src\/backend\/store\// },
  // the shared SQLite wrapper (BEGIN/COMMIT, savepoints, statement cache): the idempotency records' or the back-end's
  { stage: 'store', url: /^src\/sqlite\.ts$/, within: [{ url: /^src\/api\/idempotency\//, stage: 'idempotency' }] },
  { stage: 'program', url: /^src\/backend\/(programs\/|program\.ts|index\.ts|caller\.ts|money\.ts|loan-math\.ts|copybooks\/)/ },
  { stage: 'decode', url: /^src\/records\//, fn: /^decode/ },
  { stage: 'encode', url: /^src\/records\//, fn: /^encode/ },
  { stage: 'handler', url: /^src\/api\/backend-client\.ts$/ },
  // layers others run inside (weak)
  { stage: 'handler', url: /^src\/api\/(routes\/|plugins\/error-handler\.ts|errors\.ts)/, weak: true },
  { stage: 'routing', url: PKG('find-my-way'), weak: true }, // its callHandler runs the whole first synchronous part
  { stage: 'routing', url: /^node_modules\/fastify\/lib\/route\.js$/, weak: true },
  { stage: 'fastify core', url: /^node_modules\/fastify\/lib\/(hooks|handle-request|wrap-thenable|wrapThenable)\.js$/, weak: true, boundary: true },
  { stage: 'fastify core', url: /^node_modules\/fastify\/lib\/reply\.js$/, fn: /^(Reply\.send|Reply\.then|onSendHook|onSendEnd|preSerializationHook\w*|wrapOnSendEnd|safeWriteHead)$/, weak: true, boundary: true },
  { stage: 'fastify core', url: PKG('fastify', 'avvio', 'light-my-request', 'fastq', 'abstract-logging', 'toad-cache', 'process-warning', 'rfdc'), weak: true },
  { stage: 'HTTP/socket', url: /^node:(_http_\w+|http|net|internal\/(http|stream_base_commons|streams\/|js_stream_socket|net))/, weak: true },
  { stage: 'HTTP/socket', url: /^node:stream$/, weak: true },
  { stage: 'log line', url: /^node:fs$/, weak: true }, // fs.write callbacks of the log destination (sonic-boom)
  { stage: 'async', url: /^node:(timers$|internal\/(process\/task_queues|async_hooks|async_local_storage|async_context_frame|timers))/, weak: true },
];

interface CallFrame { functionName: string; scriptId: string; url: string; lineNumber: number; columnNumber: number }
interface ProfileNode { id: number; callFrame: CallFrame; children?: number[]; positionTicks?: Array<{ line: number; ticks: number }> }
interface CpuProfile { nodes: ProfileNode[]; startTime: number; endTime: number; samples: number[]; timeDeltas: number[] }

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** The checkout the profiled server ran from (a kept run may be analysed from another one). */
let profileRoot = ROOT;

function shortUrl(frame: CallFrame): string {
  const { url, scriptId } = frame;
  if (url === '') return scriptId === '0' ? '(native)' : '(eval)';
  if (url.startsWith('node:')) return url;
  const path = url.startsWith('file://') ? fileURLToPath(url) : url;
  const nm = path.lastIndexOf('/node_modules/');
  if (nm >= 0) return path.slice(nm + 1);
  return path.startsWith(profileRoot) ? path.slice(profileRoot.length) : path;
}

function matchRule(frame: CallFrame): Rule | undefined {
  const url = shortUrl(frame);
  return RULES.find((r) => (!r.url || r.url.test(url)) && (!r.fn || r.fn.test(frame.functionName)));
}

function label(frame: CallFrame): string {
  const url = shortUrl(frame);
  const where = url.startsWith('(') ? url : `${url}:${frame.lineNumber + 1}`;
  const name = frame.functionName || '(anonymous)';
  return `${name.length > 60 ? `${name.slice(0, 57)}...` : name} ${where}`;
}

// ── analysis ───────────────────────────────────────────────────────────────────────────────────────

interface ThreadResult {
  thread: string;
  /** Time per stage inside the window, as the samples carry it: on the CPU or not. */
  wall: Map<Stage, number>;
  /** Per stage, the part of long sample intervals beyond GAP × the sampling interval: where the thread went off the CPU. */
  gaps: Map<Stage, number>;
  /** Wall µs per "stage \t leaf \t matched frame". */
  frames: Map<string, number>;
  /** Per leaf label, the samples per source line (positionTicks: whole profile, not only the window). */
  lines: Map<string, Map<number, number>>;
  samples: number;
}

/**
 * Time accounting. A sample is charged the time since the previous one (its timeDelta). V8 samples a thread
 * by signalling it, so a thread that is off the CPU — preempted by another thread on the same CPU (V8's GC and
 * compiler helpers, the profiler's own thread, a back-end worker) or blocked in a system call such as the
 * fsync under COMMIT — is sampled only when it runs again, with the stack it stopped in, and that sample
 * carries a long interval. The profile alone therefore gives event-loop time, not CPU time. The thread's
 * real CPU time, run-queue wait and idle time are known (/proc schedstat, the (idle) samples), so the
 * off-CPU total is exact; it is spread over the stages in proportion to their long-interval excess
 * (beyond GAP × the sampling interval) and subtracted: each stage's CPU = its time − its off-CPU share.
 */
const GAP = 1.5;

function analyzeProfile(profile: CpuProfile, thread: string, window: { startUs: number; endUs: number }, intervalUs: number): ThreadResult {
  const byId = new Map<number, ProfileNode>();
  const parent = new Map<number, number>();
  for (const node of profile.nodes) {
    byId.set(node.id, node);
    for (const child of node.children ?? []) parent.set(child, node.id);
  }
  const memo = new Map<number, { stage: Stage; at: ProfileNode }>();
  const attribute = (leafId: number) => {
    const known = memo.get(leafId);
    if (known) return known;
    let weak: { stage: Stage; at: ProfileNode } | undefined;
    let found: { stage: Stage; at: ProfileNode } | undefined;
    for (let id: number | undefined = leafId; id !== undefined; id = parent.get(id)) {
      const node = byId.get(id)!;
      const rule = matchRule(node.callFrame);
      if (!rule) continue;
      let stage = rule.stage;
      if (rule.within) {
        for (let up = parent.get(id); up !== undefined; up = parent.get(up)) {
          const url = shortUrl(byId.get(up)!.callFrame);
          const hit = rule.within.find((w) => w.url.test(url));
          if (hit) {
            stage = hit.stage;
            break;
          }
        }
      }
      if (!rule.weak) {
        found = { stage, at: node };
        break;
      }
      weak ??= { stage, at: node };
      if (rule.boundary) break;
    }
    const result = found ?? weak ?? { stage: 'other' as Stage, at: byId.get(leafId)! };
    memo.set(leafId, result);
    return result;
  };

  const wall = new Map<Stage, number>();
  const gaps = new Map<Stage, number>();
  const frames = new Map<string, number>();
  const add = <K>(map: Map<K, number>, key: K, us: number) => map.set(key, (map.get(key) ?? 0) + us);
  let samples = 0;
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    const delta = profile.timeDeltas[i] ?? 0;
    const from = t;
    t += delta;
    const overlap = Math.min(t, window.endUs) - Math.max(from, window.startUs);
    if (overlap <= 0) continue;
    samples += 1;
    const leafId = profile.samples[i]!;
    const { stage, at } = attribute(leafId);
    add(wall, stage, overlap);
    if (delta > GAP * intervalUs) add(gaps, stage, (overlap * (delta - GAP * intervalUs)) / delta);
    add(frames, `${stage}\t${label(byId.get(leafId)!.callFrame)}\t${label(at.callFrame)}`, overlap);
  }
  const lines = new Map<string, Map<number, number>>();
  for (const node of profile.nodes) {
    if (!node.positionTicks?.length || shortUrl(node.callFrame).startsWith('(')) continue;
    const key = label(node.callFrame);
    const perLine = lines.get(key) ?? new Map<number, number>();
    for (const { line, ticks } of node.positionTicks) perLine.set(line, (perLine.get(line) ?? 0) + ticks);
    lines.set(key, perLine);
  }
  return { thread, wall, gaps, frames, lines, samples };
}

interface WrkSummary {
  requests: number; durationUs: number; bytes: number; connect: number; read: number; write: number; status: number; timeout: number;
  p50Us: number; p99Us: number;
}

/** One OS thread of the server during the window (/proc/<pid>/task/<tid>). */
interface OsThread { tid: number; name: string; cpuUs: number; runDelayUs: number }

interface RunMeta {
  /** The checkout the server ran from, with a trailing slash. */
  root?: string;
  scenario: string;
  title: string;
  commit: string;
  date: string;
  node: string;
  pinned: boolean;
  seconds: number;
  connections: number;
  intervalUs: number;
  window: { startUs: number; endUs: number };
  wrk: WrkSummary;
  pid: number;
  osThreads: OsThread[];
  /** Per-CPU jiffies during the window (/proc/stat): user, nice, system, idle, iowait, irq, softirq, steal. */
  cpus?: Record<string, number[]>;
  clkTck?: number;
  logBytes: number;
  env: Record<string, string>;
}

function fmt(n: number, digits = 1): string {
  return n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** A profiled thread with its stages split into CPU and off-CPU time. */
interface Calibrated {
  thread: string;
  cpu: Map<Stage, number>;
  off: Map<Stage, number>;
  /** Totals over the window, µs: CPU, run-queue wait (preempted), blocked in system calls, idle. */
  totals: { cpu: number; preempted: number; blocked: number; idle: number; idleCpu: number; profiled: number; idleWall: number } | null;
  frames: Map<string, number>;
  lines: Map<string, Map<number, number>>;
  os: OsThread | undefined;
}

function calibrate(result: ThreadResult, os: OsThread | undefined): Calibrated {
  const busyStages = STAGES.filter((s) => s !== 'idle');
  const wallBusy = busyStages.reduce((sum, s) => sum + (result.wall.get(s) ?? 0), 0);
  const idle = result.wall.get('idle') ?? 0;
  const cpu = new Map<Stage, number>();
  const off = new Map<Stage, number>();
  if (!os) {
    for (const s of busyStages) cpu.set(s, result.wall.get(s) ?? 0);
    return { thread: result.thread, cpu, off, totals: null, frames: result.frames, lines: result.lines, os };
  }
  // The thread's time in the window: running (C), runnable but preempted (R), sleeping (S). Sleeping is either
  // the event loop waiting in epoll (E, inside (idle) samples: an interruptible wait is sampled on time) or
  // blocked in a system call inside a stage (B, e.g. fsync). Taking E as large as the (idle) samples allow
  // gives the smallest B. The rest of the (idle) samples is the event loop's native work outside JavaScript
  // (libuv polling and socket I/O: V8 marks it idle), running or preempted in proportion to C and R.
  const C = os.cpuUs;
  const R = os.runDelayUs;
  const S = Math.max(0, wallBusy + idle - C - R);
  const E = Math.min(S, idle);
  const B = S - E;
  const idleActive = idle - E;
  const idleCpu = C + R > 0 ? (idleActive * C) / (C + R) : 0;
  const offTotal = Math.min(wallBusy, B + R - (idleActive - idleCpu));
  if (idleCpu > 0) cpu.set('event-loop I/O (native)', idleCpu);
  // Spread offTotal in proportion to the gaps; a stage cannot give more than its whole time, and what it
  // cannot take goes to the others (repeat until every stage's share fits).
  const capped = new Set<Stage>();
  for (;;) {
    let left = offTotal;
    for (const s of capped) left -= result.wall.get(s) ?? 0;
    const open = busyStages.filter((s) => !capped.has(s));
    const gapOpen = open.reduce((sum, s) => sum + (result.gaps.get(s) ?? 0), 0);
    const factor = gapOpen > 0 ? Math.max(0, left) / gapOpen : 0;
    const over = open.filter((s) => (result.gaps.get(s) ?? 0) * factor > (result.wall.get(s) ?? 0));
    if (over.length > 0) {
      for (const s of over) capped.add(s);
      continue;
    }
    for (const s of busyStages) {
      if (s === 'event-loop I/O (native)') continue;
      const wall = result.wall.get(s) ?? 0;
      const share = capped.has(s) ? wall : (result.gaps.get(s) ?? 0) * factor;
      cpu.set(s, wall - share);
      if (share > 0) off.set(s, share);
    }
    break;
  }
  return {
    thread: result.thread, cpu, off, frames: result.frames, lines: result.lines, os,
    totals: { cpu: C, preempted: R, blocked: B, idle: E, idleCpu, profiled: wallBusy, idleWall: idle },
  };
}

interface Run {
  meta: RunMeta;
  threads: Calibrated[];
  requests: number;
  reqPerSec: number;
  windowUs: number;
  /** Profiled threads' CPU (sum of stages), V8 helper threads, libuv pool, other unprofiled server threads (µs, window). */
  busyCpu: number;
  helpers: number;
  pool: number;
  rest: number;
  cpuOf(stage: Stage, t?: Calibrated): number;
  offOf(stage: Stage, t?: Calibrated): number;
}

function loadRun(runDir: string): Run {
  const meta = JSON.parse(readFileSync(join(runDir, 'run.json'), 'utf8')) as RunMeta;
  profileRoot = meta.root ?? ROOT;
  const profDir = join(runDir, 'prof');
  const files = readdirSync(profDir).filter((f) => f.endsWith('.cpuprofile')).sort();
  if (files.length === 0) throw new Error(`no .cpuprofile in ${profDir}`);
  // Profiles name Node's thread id (0 = main); /proc names OS threads: the main one is the pid, workers are "WorkerThread".
  const workersOs = meta.osThreads.filter((t) => t.name === 'WorkerThread');
  const threads: Calibrated[] = [];
  const workerProfiles = files.filter((f) => !/\.0\.\d+\.cpuprofile$/.test(f));
  for (const file of files) {
    // CPU.<date>.<time>.<pid>.<thread id>.<seq>.cpuprofile
    const tid = Number(/\.(\d+)\.\d+\.cpuprofile$/.exec(file)?.[1] ?? 0);
    const profile = JSON.parse(readFileSync(join(profDir, file), 'utf8')) as CpuProfile;
    if (profile.startTime > meta.window.startUs || profile.endTime < meta.window.endUs) {
      process.stderr.write(`note: ${file} covers only part of the measured window\n`);
    }
    const result = analyzeProfile(profile, tid === 0 ? 'main' : `worker ${tid}`, meta.window, meta.intervalUs);
    if (result.samples === 0) continue;
    // A worker's OS thread is known only when there is exactly one worker of each kind.
    const os = tid === 0
      ? meta.osThreads.find((t) => t.tid === meta.pid)
      : workerProfiles.length === 1 && workersOs.length === 1 ? workersOs[0] : undefined;
    threads.push(calibrate(result, os));
  }
  const cpuOf = (stage: Stage, t?: Calibrated) => (t ? [t] : threads).reduce((sum, x) => sum + (x.cpu.get(stage) ?? 0), 0);
  const offOf = (stage: Stage, t?: Calibrated) => (t ? [t] : threads).reduce((sum, x) => sum + (x.off.get(stage) ?? 0), 0);
  // Threads that are not profiled, from /proc: V8's helpers (parallel and concurrent GC, JIT compilation)
  // and libuv's pool (the log file writes). The profiler's own thread is measurement overhead: left out.
  const profiledOs = new Set(threads.map((t) => t.os?.tid));
  const cpuWhere = (test: (name: string) => boolean) => meta.osThreads.filter((t) => !profiledOs.has(t.tid) && test(t.name)).reduce((sum, t) => sum + t.cpuUs, 0);
  const isHelper = (name: string) => name.startsWith('V8Worker') || name === 'DelayedTaskSche';
  const isPool = (name: string) => name.startsWith('libuv-worker');
  return {
    meta, threads, cpuOf, offOf,
    requests: meta.wrk.requests,
    reqPerSec: meta.wrk.requests / (meta.wrk.durationUs / 1e6),
    windowUs: meta.window.endUs - meta.window.startUs,
    busyCpu: BUSY_STAGES.reduce((sum, st) => sum + cpuOf(st), 0),
    helpers: cpuWhere(isHelper),
    pool: cpuWhere(isPool),
    rest: cpuWhere((name) => !isHelper(name) && !isPool(name) && !name.startsWith('v8:ProfEvntProc')),
  };
}

const BUSY_STAGES: Stage[] = STAGES.filter((s) => s !== 'idle');

function report(runDir: string, top: number): string {
  const run = loadRun(runDir);
  const { meta, threads, requests, reqPerSec, windowUs, helpers, pool, rest } = run;
  const perReq = (us: number) => us / requests;
  const multi = threads.length > 1;
  const busyOf = (map: 'cpu' | 'off', t?: Calibrated) => BUSY_STAGES.reduce((s, st) => s + (map === 'cpu' ? run.cpuOf(st, t) : run.offOf(st, t)), 0);
  const busyAll = run.busyCpu;

  const out: string[] = [];
  const bad = meta.wrk.connect + meta.wrk.read + meta.wrk.write + meta.wrk.status + meta.wrk.timeout;
  out.push(`### ${meta.title}`);
  out.push('');
  out.push(`${meta.date}, commit ${meta.commit}, node ${meta.node}; ${meta.seconds} s, ${meta.connections} connections${meta.pinned ? ', server on CPU 0, wrk on CPU 1' : ' (not pinned: no taskset)'}, sampling every ${meta.intervalUs} µs`
    + `${Object.keys(meta.env).length ? `; ${Object.entries(meta.env).map(([k, v]) => `${k}=${v}`).join(' ')}` : ''}.`);
  out.push(`${requests.toLocaleString('en-US')} requests, **${fmt(reqPerSec, 0)} req/s**, p50 ${fmt(meta.wrk.p50Us / 1000, 1)} ms, p99 ${fmt(meta.wrk.p99Us / 1000, 1)} ms`
    + `${bad ? `, **${bad} errors/non-2xx** (connect ${meta.wrk.connect}, read ${meta.wrk.read}, write ${meta.wrk.write}, status ${meta.wrk.status}, timeout ${meta.wrk.timeout})` : ''}; `
    + `log ${fmt(meta.logBytes / requests, 0)} bytes/request.`);
  out.push('');
  const head = [...(multi ? [...threads.map((t) => `${t.thread} CPU µs/req`), 'total CPU µs/req'] : ['CPU µs/req']), '% of busy CPU', 'off-CPU µs/req'];
  out.push(`| stage | ${head.join(' | ')} |`);
  out.push(`|---|${head.map(() => '---:').join('|')}|`);
  const cells = (pick: (t?: Calibrated) => number) =>
    (multi ? [...threads.map((t) => fmt(perReq(pick(t)))), fmt(perReq(pick()))] : [fmt(perReq(pick()))]);
  for (const stage of BUSY_STAGES) {
    const cpu = run.cpuOf(stage);
    const off = run.offOf(stage);
    if (cpu === 0 && off === 0) continue;
    out.push(`| ${stage} | ${cells((t) => run.cpuOf(stage, t)).join(' | ')} | ${fmt((100 * cpu) / busyAll)}% | ${off >= 0.05 * requests ? fmt(perReq(off)) : ''} |`);
  }
  out.push(`| **busy total** | ${cells((t) => busyOf('cpu', t)).map((c) => `**${c}**`).join(' | ')} | 100% | ${fmt(perReq(busyOf('off')))} |`);
  const blank = multi ? threads.map(() => '') : [];
  const extra = (name: string, us: number) => out.push(`| ${name} | ${[...blank, fmt(perReq(us))].join(' | ')} | | |`);
  extra('V8 helper threads (GC, JIT; /proc)', helpers);
  extra('libuv threadpool (/proc)', pool);
  if (rest > 0.05 * requests) extra('other server threads (/proc)', rest);
  out.push(`| **server CPU per request** | ${[...blank, `**${fmt(perReq(busyAll + helpers + pool + rest))}**`].join(' | ')} | | |`);
  out.push('');
  for (const t of threads) {
    const x = t.totals;
    if (!x) {
      out.push(`- ${t.thread} thread: no /proc figures for it; its column is profile time (CPU and off-CPU together).`);
      continue;
    }
    out.push(`- ${t.thread} thread, µs/request: CPU ${fmt(perReq(x.cpu))} (/proc; ${fmt(perReq(x.idleCpu))} of it in (idle) samples), preempted ${fmt(perReq(x.preempted))} (run-queue wait), blocked in system calls ${fmt(perReq(x.blocked))}, waiting for events ${fmt(perReq(x.idle))}`
      + ` (profile busy ${fmt(perReq(x.profiled))}, ${fmt((100 * (x.profiled + x.idleWall)) / windowUs, 0)}% of the ${fmt(windowUs / 1e6, 2)} s window covered).`);
  }
  const byName = new Map<string, number>();
  for (const t of meta.osThreads) byName.set(t.tid === meta.pid ? 'main' : t.name, (byName.get(t.tid === meta.pid ? 'main' : t.name) ?? 0) + t.cpuUs);
  const cpuTotal = [...byName.values()].reduce((a, b) => a + b, 0);
  if (meta.cpus) {
    const line = Object.entries(meta.cpus).map(([cpu, v]) => {
      const total = v.reduce((a, b) => a + b, 0) || 1;
      const pct = (i: number) => fmt((100 * (v[i] ?? 0)) / total, 0);
      return `${cpu} user ${pct(0)}% system ${pct(2)}% irq+softirq ${fmt((100 * ((v[5] ?? 0) + (v[6] ?? 0))) / total, 0)}% idle ${pct(3)}% iowait ${pct(4)}% steal ${pct(7)}%`;
    });
    const cpu0 = meta.cpus['cpu0'];
    let others = '';
    if (cpu0 && meta.pinned && meta.clkTck) {
      // CPU 0 holds every server thread but the profiler's: what else ran there (other processes, kernel threads, interrupts)?
      const used = ((cpu0[0]! + cpu0[1]! + cpu0[2]! + cpu0[5]! + cpu0[6]!) * 1e6) / meta.clkTck;
      const server = meta.osThreads.filter((t) => !t.name.startsWith('v8:ProfEvntProc')).reduce((sum, t) => sum + t.cpuUs, 0);
      others = ` CPU 0 time not used by the server's threads (other processes, kernel threads, interrupts): ${fmt(perReq(Math.max(0, used - server)))} µs/request.`;
    }
    out.push(`- Machine during the window (/proc/stat): ${line.join('; ')}.${others}`);
  }
  out.push(`- CPU of every server thread (/proc), µs/request: ${[...byName].filter(([, us]) => us > 0).sort((a, b) => b[1] - a[1]).map(([n, us]) => `${n} ${fmt(perReq(us))}`).join(', ')}; all ${fmt(perReq(cpuTotal))}.`);

  if (top > 0) {
    out.push('');
    out.push(`Top ${top} frames per stage (leaf ← frame that decided the stage), profile µs/request (CPU and off-CPU together):`);
    const merged = new Map<string, number>();
    for (const t of threads) {
      for (const [key, us] of t.frames) {
        const k = multi ? `${key}\t${t.thread}` : key;
        merged.set(k, (merged.get(k) ?? 0) + us);
      }
    }
    for (const stage of STAGES) {
      const rows = [...merged].filter(([k]) => k.startsWith(`${stage}\t`)).sort((a, b) => b[1] - a[1]).slice(0, top);
      if (rows.length === 0) continue;
      out.push(`  ${stage}:`);
      for (const [key, us] of rows) {
        const [, leaf, at, thread] = key.split('\t');
        // Where in the leaf function the samples fell, when it has more than one hot line (e.g. BEGIN vs COMMIT).
        const perLine = threads.find((t) => !thread || t.thread === thread)?.lines.get(leaf!);
        const total = perLine ? [...perLine.values()].reduce((a, b) => a + b, 0) : 0;
        const hot = perLine && perLine.size > 1
          ? `  {lines ${[...perLine].sort((a, b) => b[1] - a[1]).slice(0, 3).map(([line, n]) => `${line}: ${fmt((100 * n) / total, 0)}%`).join(', ')}}`
          : '';
        out.push(`    ${fmt(perReq(us), 2).padStart(8)}  ${leaf}${at !== leaf ? `  ←  ${at}` : ''}${thread ? `  [${thread}]` : ''}${hot}`);
      }
    }
  }
  return out.join('\n');
}

// ── running a scenario ─────────────────────────────────────────────────────────────────────────────

const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 10);
const CONNECTIONS = Number(process.env['BENCH_CONNECTIONS'] ?? 50);
const WARMUP_SECONDS = Number(process.env['STAGES_WARMUP_SECONDS'] ?? 3);
const INTERVAL_US = Number(process.env['STAGES_INTERVAL_US'] ?? 500);
const WRK_THREADS = Number(process.env['WRK_THREADS'] ?? 1);
const KEEP = process.env['STAGES_KEEP'] === '1';
const WRK_LUA = fileURLToPath(new URL('./stages/wrk.lua', import.meta.url));

const pinned = spawnSync('taskset', ['-c', '0', 'true']).status === 0;
const pin = (cpu: number, argv: string[]) => (pinned ? ['taskset', '-c', String(cpu), ...argv] : argv);

function nowUs(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

/** CPU time and run-queue wait of each thread of a process (/proc/<pid>/task/<tid>/schedstat, ns). */
function osThreads(pid: number): Map<number, OsThread> {
  const out = new Map<number, OsThread>();
  const dir = `/proc/${pid}/task`;
  if (!existsSync(dir)) return out;
  for (const tid of readdirSync(dir)) {
    try {
      const [cpuNs, runDelayNs] = readFileSync(`${dir}/${tid}/schedstat`, 'utf8').trim().split(' ').map(Number);
      const name = readFileSync(`${dir}/${tid}/comm`, 'utf8').trim();
      out.set(Number(tid), { tid: Number(tid), name, cpuUs: (cpuNs ?? 0) / 1000, runDelayUs: (runDelayNs ?? 0) / 1000 });
    } catch { /* the thread ended */ }
  }
  return out;
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
      env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'],
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
  return spawnSync('git', args, { cwd: ROOT, encoding: 'utf8' }).stdout.trim();
}

interface Scenario {
  name: 'get' | 'payment';
  title: string;
}

const SCENARIOS: Scenario[] = [
  { name: 'get', title: 'GET /v1/orders/{id}' },
  { name: 'payment', title: 'POST /v1/payments (unique Idempotency-Key per request)' },
];

async function runScenario(scenario: Scenario): Promise<string> {
  const runDir = mkdtempSync(join(tmpdir(), `corebridge-stages-${scenario.name}-`));
  const dataDir = join(runDir, 'data');
  const profDir = join(runDir, 'prof');
  mkdirSync(profDir);
  let server: ChildProcess | undefined;
  try {
    const port = await freePort();
    const serverEnv = {
      HOST: '127.0.0.1', PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'info',
      // The highest values src/api/protection/config.ts accepts (per 60 s window): no request is refused.
      RATE_LIMIT_MAX: process.env['RATE_LIMIT_MAX'] ?? '1000000', RATE_LIMIT_ADDRESS_MAX: process.env['RATE_LIMIT_ADDRESS_MAX'] ?? '10000000',
    };
    const env = { ...process.env, ...serverEnv };
    const config = loadConfig(env);
    const issuer = await openDevIssuer({ dataDir, issuer: config.auth.issuer, audience: config.auth.audience });
    const token = await issuer.sign({ subject: 'clerk', role: 'agent', scopes: ROLE_SCOPES.agent }, { ttlSeconds: 3600 });

    const logFile = join(runDir, 'server.log');
    const logFd = openSync(logFile, 'w');
    const errFd = openSync(join(runDir, 'server.err'), 'w');
    const argv = pin(0, [process.execPath, '--cpu-prof', `--cpu-prof-dir=${profDir}`, `--cpu-prof-interval=${INTERVAL_US}`, 'src/server.ts']);
    server = spawn(argv[0]!, argv.slice(1), { cwd: ROOT, env, stdio: ['ignore', logFd, errFd] });
    closeSync(logFd);
    closeSync(errFd);
    const base = `http://127.0.0.1:${port}`;
    await waitFor(`${base}/health/ready`, server);
    // V8's profiler thread (one per profiled thread) samples and symbolises: move it to wrk's CPU so that
    // only the server's own threads share CPU 0.
    if (pinned) {
      for (const t of osThreads(server.pid!).values()) {
        if (t.name.startsWith('v8:ProfEvntProc')) spawnSync('taskset', ['-p', '-c', '1', String(t.tid)], { stdio: 'ignore' });
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
      url = `${base}/v1/payments`;
      headers.push('-H', 'Content-Type: application/json');
      wrkEnv = { STAGES_METHOD: 'POST', STAGES_BODY: PAYMENT_BODY, STAGES_IDEMPOTENCY: '1' };
    }
    const wrkArgs = (seconds: number) => ['-t', String(WRK_THREADS), '-c', String(CONNECTIONS), '-d', `${seconds}s`, '-s', WRK_LUA, ...headers, url];

    if (WARMUP_SECONDS > 0) await wrk(wrkArgs(WARMUP_SECONDS), { ...wrkEnv, STAGES_RUN: `w${randomUUID().slice(0, 8)}` });
    const pid = server.pid!;
    const before = osThreads(pid);
    const cpusBefore = cpuTimes();
    const startUs = nowUs();
    const summary = await wrk(wrkArgs(SECONDS), { ...wrkEnv, STAGES_RUN: `m${randomUUID().slice(0, 8)}` });
    const endUs = nowUs();
    const cpusAfter = cpuTimes();
    const threads = [...osThreads(pid).values()].map((t) => ({
      ...t, cpuUs: t.cpuUs - (before.get(t.tid)?.cpuUs ?? 0), runDelayUs: t.runDelayUs - (before.get(t.tid)?.runDelayUs ?? 0),
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
    const meta: RunMeta = {
      root: ROOT,
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
      cpus: Object.fromEntries(Object.entries(cpusAfter).map(([cpu, after]) => [cpu, after.map((v, i) => v - (cpusBefore[cpu]?.[i] ?? 0))])),
      logBytes: statSync(logFile).size,
      env: Object.fromEntries(['BACKEND_TRANSPORT', 'BACKEND_READS'].filter((k) => process.env[k]).map((k) => [k, process.env[k]!])),
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

/** Several kept runs side by side: CPU µs/request per stage (all profiled threads), then the totals. */
function compare(runDirs: string[]): string {
  const runs = runDirs.map(loadRun);
  const per = (run: Run, us: number) => fmt(us / run.requests);
  const out: string[] = [];
  out.push(`| stage | ${runs.map((r) => `${r.meta.scenario} ${r.meta.commit.split(' ')[0]} ${r.meta.date.slice(11, 16)}`).join(' | ')} |`);
  out.push(`|---|${runs.map(() => '---:').join('|')}|`);
  for (const stage of BUSY_STAGES) {
    if (runs.every((r) => r.cpuOf(stage) < 0.05 * r.requests)) continue;
    out.push(`| ${stage} | ${runs.map((r) => per(r, r.cpuOf(stage))).join(' | ')} |`);
  }
  out.push(`| **busy CPU, profiled threads** | ${runs.map((r) => `**${per(r, r.busyCpu)}**`).join(' | ')} |`);
  out.push(`| V8 helper threads (GC, JIT) | ${runs.map((r) => per(r, r.helpers)).join(' | ')} |`);
  out.push(`| libuv threadpool | ${runs.map((r) => per(r, r.pool)).join(' | ')} |`);
  if (runs.some((r) => r.rest >= 0.05 * r.requests)) out.push(`| other server threads | ${runs.map((r) => per(r, r.rest)).join(' | ')} |`);
  out.push(`| **server CPU per request** | ${runs.map((r) => `**${per(r, r.busyCpu + r.helpers + r.pool + r.rest)}**`).join(' | ')} |`);
  out.push(`| off-CPU while busy (preempted, blocked), profiled threads | ${runs.map((r) => per(r, BUSY_STAGES.reduce((sum, st) => sum + r.offOf(st), 0))).join(' | ')} |`);
  for (const name of ['store', 'idempotency', 'transport', 'GC'] as Stage[]) {
    if (runs.some((r) => r.offOf(name) >= 1 * r.requests)) out.push(`| … of which in ${name} | ${runs.map((r) => per(r, r.offOf(name))).join(' | ')} |`);
  }
  out.push(`| main thread blocked in system calls | ${runs.map((r) => (r.threads[0]?.totals ? per(r, r.threads[0].totals.blocked) : '')).join(' | ')} |`);
  out.push(`| req/s | ${runs.map((r) => fmt(r.reqPerSec, 0)).join(' | ')} |`);
  out.push(`| p99 ms | ${runs.map((r) => fmt(r.meta.wrk.p99Us / 1000)).join(' | ')} |`);
  return out.join('\n');
}

// ── main ───────────────────────────────────────────────────────────────────────────────────────────

const args = process.argv.slice(2);
const topAt = args.indexOf('--top');
const top = topAt >= 0 ? Number(args[topAt + 1]) : 0;
const analyzeAt = args.indexOf('--analyze');
const compareAt = args.indexOf('--compare');
if (compareAt >= 0) {
  const dirs = args.slice(compareAt + 1).filter((a) => !a.startsWith('--'));
  if (dirs.length === 0) throw new Error('--compare needs kept run directories');
  console.log(compare(dirs));
} else if (analyzeAt >= 0) {
  const dir = args[analyzeAt + 1];
  if (!dir) throw new Error('--analyze needs a directory');
  console.log(report(dir, top));
} else {
  const names = args.filter((a, i) => !a.startsWith('--') && args[i - 1] !== '--top');
  const chosen = names.length ? SCENARIOS.filter((s) => names.includes(s.name)) : SCENARIOS;
  if (chosen.length === 0) throw new Error(`unknown scenario; choose from ${SCENARIOS.map((s) => s.name).join(', ')}`);
  if (!pinned) process.stderr.write('note: taskset not available, server and wrk are not pinned\n');
  for (const scenario of chosen) {
    const runDir = await runScenario(scenario);
    try {
      console.log(`${report(runDir, top)}\n`);
    } finally {
      if (KEEP) console.log(`kept: ${runDir} (npm run bench:stages -- --analyze ${runDir})\n`);
      else rmSync(runDir, { recursive: true, force: true });
    }
  }
}
