/**
 * `npm run stack` as a script uses it (the fault test, bench:scale, test/stack): on free ports, a fresh DATA_DIR, a new
 * database of the local PostgreSQL server (named, not made: the first back-end makes it) and a Redis key
 * prefix of its own, all removed afterwards; with a clerk's token signed by the stack's identity key.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { openDevIssuer } from '../../src/auth/dev-issuer.ts';
import { ROLE_SCOPES } from '../../src/auth/roles.ts';
import { loadConfig } from '../../src/config.ts';
import { createTestDatabase, dropTestDatabases } from '../../support/database.ts';
import { portIsFree } from '../../support/free-port.ts';
import { until } from '../../src/until.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const REDIS_URL = process.env['REDIS_URL'] || 'redis://127.0.0.1:6379';

export interface StackState {
  /** HAProxy's master process. */
  front: { pid: number };
  apis: Array<{ name: string; pid: number }>;
  backends: Array<{ name: string; pid: number }>;
}

export interface StackRun {
  base: string;
  dataDir: string;
  databaseUrl: string;
  /** The stack's own process (HAProxy and the instances are its children). */
  process: ChildProcess;
  /** stack.json as the stack last wrote it (pids change as it restarts processes). */
  state(): StackState;
  ready(): Promise<boolean>;
  /** `Authorization` header of the demo clerk (role agent), valid for an hour. */
  auth: { authorization: string };
  /** Ctrl-C to the stack; its exit code (null when it had to be killed). */
  stop(): Promise<number | null>;
  /** Stops it if still running, then removes the Redis keys, and (unless `keep`) DATA_DIR and the database. */
  cleanup(options?: { keep?: boolean }): Promise<void>;
}

/** A PORT whose followers the stack takes (PORT+1…, PORT+101…) are free too. */
async function freeBase(apis: number, backends: number): Promise<number> {
  for (;;) {
    const base = 20_000 + Math.floor(Math.random() * 30_000);
    const apiPorts = Array.from({ length: apis }, (_, i) => base + 1 + i);
    const backendPorts = Array.from({ length: backends }, (_, i) => base + 101 + i);
    const ports = [base, ...apiPorts, ...backendPorts];
    if ((await Promise.all(ports.map(portIsFree))).every(Boolean)) return base;
  }
}

export async function startStack(options: {
  apis: number;
  backends: number;
  env?: Record<string, string>;
  startMs?: number;
}): Promise<StackRun> {
  const dataDir = mkdtempSync(join(tmpdir(), 'corebridge-stack-run-'));
  const databaseUrl = await createTestDatabase({ prefix: 'corebridge_run', create: false });
  const port = await freeBase(options.apis, options.backends);
  const prefix = `corebridge-run:${randomUUID()}:`;
  const env = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    REDIS_URL,
    DATABASE_URL: databaseUrl,
    IDEMPOTENCY_REDIS_PREFIX: `${prefix}idem:`,
    RATE_LIMIT_REDIS_PREFIX: `${prefix}rl:`,
    RATE_LIMIT_MAX: '1000000',
    RATE_LIMIT_ADDRESS_MAX: '10000000',
    ...options.env,
  };
  const base = `http://127.0.0.1:${port}`;
  const args = ['scripts/stack/stack.ts', '--api', String(options.apis), '--backend', String(options.backends)];
  const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));

  const startMs = options.startMs ?? 60_000;
  const ready = async () =>
    (await fetch(`${base}/health/ready`, { signal: AbortSignal.timeout(1000) }).catch(() => null))?.ok === true;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
    const code = await Promise.race([exited, sleep(15_000).then(() => 'timeout' as const)]);
    if (code !== 'timeout') return code;
    child.kill('SIGKILL');
    return null;
  };
  const cleanup: StackRun['cleanup'] = async ({ keep = false } = {}) => {
    await stop();
    const redis = new Redis(REDIS_URL, { lazyConnect: true });
    await redis
      .connect()
      .then(async () => {
        const keys = await redis.keys(`${prefix}*`);
        if (keys.length) await redis.del(...keys);
      })
      .catch(() => undefined)
      .finally(() => redis.disconnect());
    if (keep) return;
    rmSync(dataDir, { recursive: true, force: true });
    await dropTestDatabases().catch((error: unknown) =>
      console.error(`could not drop the test database: ${String(error)}`),
    );
  };

  try {
    await until(
      'the stack started',
      () => {
        if (child.exitCode !== null) throw new Error(`the stack exited: ${out}`);
        return out.includes('Ctrl-C stops everything');
      },
      startMs,
      50,
    );
    await until('the stack ready', ready, startMs, 50);
    const config = loadConfig(env);
    const issuer = await openDevIssuer({
      dataDir,
      issuer: `http://localhost:${port}/oauth`,
      audience: config.auth.audience,
    });
    const clerk = { subject: 'clerk', role: 'agent', scopes: ROLE_SCOPES.agent } as const;
    const token = await issuer.sign(clerk, { ttlSeconds: 3600 });
    return {
      base,
      dataDir,
      databaseUrl,
      process: child,
      ready,
      stop,
      cleanup,
      auth: { authorization: `Bearer ${token}` },
      state: () => JSON.parse(readFileSync(join(dataDir, 'stack', 'stack.json'), 'utf8')) as StackState,
    };
  } catch (error) {
    await cleanup();
    throw error;
  }
}
