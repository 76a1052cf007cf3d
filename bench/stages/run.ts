/** A measured run as kept on disk (run.json and the server's .cpuprofile files), loaded with every thread analysed. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { analyzeProfile, calibrate, type Calibrated, type CpuProfile, type OsThread } from './profile.ts';
import { BUSY_STAGES, type Stage } from './rules.ts';

/** This checkout, with a trailing slash: where the server runs from. */
export const CHECKOUT_ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The line bench/stages/wrk.lua prints when done. */
export interface WrkSummary {
  requests: number;
  durationUs: number;
  bytes: number;
  connect: number;
  read: number;
  write: number;
  status: number;
  timeout: number;
  p50Us: number;
  p99Us: number;
}

/** run.json. */
export interface RunMeta {
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

export interface Run {
  meta: RunMeta;
  threads: Calibrated[];
  requests: number;
  reqPerSec: number;
  windowUs: number;
  /** Profiled threads' CPU (sum of stages), V8 helper threads, libuv pool, other unprofiled server threads (µs). */
  busyCpu: number;
  helpers: number;
  pool: number;
  rest: number;
  cpuOf(stage: Stage, t?: Calibrated): number;
  offOf(stage: Stage, t?: Calibrated): number;
}

export function loadRun(runDir: string): Run {
  const meta = JSON.parse(readFileSync(join(runDir, 'run.json'), 'utf8')) as RunMeta;
  const root = meta.root ?? CHECKOUT_ROOT;
  const profDir = join(runDir, 'prof');
  const files = readdirSync(profDir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .sort();
  if (files.length === 0) throw new Error(`no .cpuprofile in ${profDir}`);
  // Profiles name Node's thread id (0 = main); /proc names OS threads: the main one is the pid, workers are
  // "WorkerThread".
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
    const result = analyzeProfile(profile, tid === 0 ? 'main' : `worker ${tid}`, meta.window, meta.intervalUs, root);
    if (result.samples === 0) continue;
    // A worker's OS thread is known only when there is exactly one worker of each kind.
    const os =
      tid === 0
        ? meta.osThreads.find((t) => t.tid === meta.pid)
        : workerProfiles.length === 1 && workersOs.length === 1
          ? workersOs[0]
          : undefined;
    threads.push(calibrate(result, os));
  }
  const cpuOf = (stage: Stage, t?: Calibrated) =>
    (t ? [t] : threads).reduce((sum, x) => sum + (x.cpu.get(stage) ?? 0), 0);
  const offOf = (stage: Stage, t?: Calibrated) =>
    (t ? [t] : threads).reduce((sum, x) => sum + (x.off.get(stage) ?? 0), 0);
  // Threads that are not profiled, from /proc: V8's helpers (parallel and concurrent GC, JIT compilation)
  // and libuv's pool (the log file writes). The profiler's own thread is measurement overhead: left out.
  const profiledOs = new Set(threads.map((t) => t.os?.tid));
  const cpuWhere = (test: (name: string) => boolean) =>
    meta.osThreads.filter((t) => !profiledOs.has(t.tid) && test(t.name)).reduce((sum, t) => sum + t.cpuUs, 0);
  const isHelper = (name: string) => name.startsWith('V8Worker') || name === 'DelayedTaskSche';
  const isPool = (name: string) => name.startsWith('libuv-worker');
  return {
    meta,
    threads,
    cpuOf,
    offOf,
    requests: meta.wrk.requests,
    reqPerSec: meta.wrk.requests / (meta.wrk.durationUs / 1e6),
    windowUs: meta.window.endUs - meta.window.startUs,
    busyCpu: BUSY_STAGES.reduce((sum, st) => sum + cpuOf(st), 0),
    helpers: cpuWhere(isHelper),
    pool: cpuWhere(isPool),
    rest: cpuWhere((name) => !isHelper(name) && !isPool(name) && !name.startsWith('v8:ProfEvntProc')),
  };
}
