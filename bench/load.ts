/**
 * Load generation for the bench scripts: wrk (or autocannon in a child process when wrk is missing), and
 * the children they start, pinned to a CPU when taskset exists and there are two cores.
 */
import { spawn, spawnSync, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { accessSync, constants } from 'node:fs';
import { availableParallelism } from 'node:os';
import { delimiter, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { PAYMENT_BODY } from './harness.ts';

const ROOT = join(import.meta.dirname, '..');

/** What the load generator sends: GETs, or POSTs of `body` with a unique Idempotency-Key per request. */
export interface LoadTarget {
  url: string;
  method: 'GET' | 'POST';
  body?: string;
  /** Each POST replaces {debtor} and {creditor} in `body` with two different accounts of these, at random. */
  accounts?: readonly string[];
}

/** One load-generator run, as bench/wrk/report.lua (or autocannon-load.ts) prints it. */
export interface Measurement {
  requests: number;
  durationMs: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  /** Responses with status >= 400 under wrk; any non-2xx under autocannon. */
  non2xx: number;
  /** Socket errors and timeouts. */
  errors: number;
}

/** Every child started here, stopped by the bench's cleanup. */
export const children = new Set<ChildProcess>();

function onPath(name: string): string | null {
  for (const dir of (process.env['PATH'] ?? '').split(delimiter)) {
    const file = join(dir, name);
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      /* not here */
    }
  }
  return null;
}

const TASKSET = onPath('taskset');
const WRK = onPath('wrk');
export const PINNED = TASKSET !== null && availableParallelism() >= 2;

export function pinningDescription(): string {
  if (PINNED) return 'servers on CPU 0, load generator on CPU 1 (taskset)';
  return `not pinned (${TASKSET === null ? 'taskset not found' : `${availableParallelism()} core available`}): servers and load generator share the cores`;
}

/** Spawns `file args` on the given CPU when pinning, and tracks the child for cleanup. */
export function start(cpu: 0 | 1 | null, file: string, args: string[], options: SpawnOptions): ChildProcess {
  const child =
    PINNED && cpu !== null
      ? spawn(TASKSET ?? 'taskset', ['-c', String(cpu), file, ...args], options)
      : spawn(file, args, options);
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  if ((await Promise.race([exited, sleep(5_000, 'timeout')])) === 'timeout') child.kill('SIGKILL');
}

export function loadGeneratorDescription(): string {
  if (WRK === null) return 'autocannon in a child process (wrk not on PATH; latencies to 1 ms)';
  const version = /^wrk (\S+)/.exec(spawnSync(WRK, ['-v'], { encoding: 'utf8' }).stdout)?.[1] ?? '?';
  return `wrk ${version}, 1 thread`;
}

export function loadCommand(
  target: LoadTarget,
  authorization: string,
  seconds: number,
  connections: number,
): { file: string; args: string[] } {
  const keyPrefix = randomUUID().slice(0, 8);
  if (WRK !== null) {
    const script = join(ROOT, 'bench', 'wrk', target.method === 'GET' ? 'get.lua' : 'post.lua');
    const scriptArgs =
      target.method === 'GET'
        ? [authorization]
        : [authorization, target.body ?? PAYMENT_BODY, keyPrefix, (target.accounts ?? []).join(',')];
    return {
      file: WRK,
      args: [
        '-t1',
        `-c${connections}`,
        `-d${seconds}s`,
        '--timeout',
        '10s',
        '-s',
        script,
        target.url,
        '--',
        ...scriptArgs,
      ],
    };
  }
  const spec = {
    url: target.url,
    method: target.method,
    authorization,
    connections,
    seconds,
    ...(target.method === 'POST'
      ? { body: target.body ?? PAYMENT_BODY, keyPrefix, accounts: target.accounts ?? [] }
      : {}),
  };
  return { file: process.execPath, args: [join(ROOT, 'bench', 'wrk', 'autocannon-load.ts'), JSON.stringify(spec)] };
}

/** Runs the load generator on CPU 1 for `seconds` and returns its BENCH_JSON line. */
/** `cpu`: where the load generator runs when pinning (null: anywhere, beside what it measures). */
export function runLoad(
  target: LoadTarget,
  authorization: string,
  seconds: number,
  connections: number,
  cpu: 0 | 1 | null = 1,
): Promise<Measurement> {
  const { file, args } = loadCommand(target, authorization, seconds, connections);
  return new Promise((resolve, reject) => {
    const child = start(cpu, file, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.once('error', reject);
    child.once('close', (code, signal) => {
      const line = output.split('\n').find((l) => l.startsWith('BENCH_JSON '));
      if (code === 0 && line) resolve(JSON.parse(line.slice('BENCH_JSON '.length)) as Measurement);
      else reject(new Error(`load generator exited with ${code ?? signal}:\n${output.trim()}`));
    });
  });
}
