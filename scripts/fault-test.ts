/**
 * Fault test (npm run test:faults): a stack of 2 API instances and 2 back-end services (npm run stack:
 * mutual TLS, Redis, a round-robin front) under payment load with retries, while its parts are killed:
 * kill -9 of one back-end service, then of one API instance (the stack restarts each, as an orchestrator
 * would), then a restart of the PostgreSQL server the back-ends share (a database of this run's own on
 * the local server). Afterwards: no acknowledged payment lost, none duplicated, money conserved, and
 * during the outages only 503/504 (and 409 for a key still held) answers, each with Retry-After.
 * POSTGRES_RESTART_COMMAND overrides how the server is restarted (default: pg_ctlcluster, as root).
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { openDevIssuer } from '../src/api/auth/dev-issuer.ts';
import { ROLE_SCOPES } from '../src/api/auth/roles.ts';
import { loadConfig } from '../src/config.ts';
import { createTestDatabase, dropTestDatabases } from '../test/helpers/backend-store.ts';
import { balances, checkAcknowledged, checkStore, sleep, startPaymentLoad, summary, total } from './payment-load.ts';

const { values: args } = parseArgs({
  options: { clients: { type: 'string', default: '6' }, 'max-seconds': { type: 'string', default: '180' }, keep: { type: 'boolean', default: false } },
});
const DEADLINE = Date.now() + Number(args['max-seconds']) * 1000;
const REDIS_URL = process.env['REDIS_URL'] || 'redis://127.0.0.1:6379';

/** A PORT whose followers the stack takes too (PORT+1…, PORT+101…) are all free. */
async function freeBase(): Promise<number> {
  const free = (port: number) => new Promise<boolean>((resolve) => {
    const s = createServer().once('error', () => resolve(false)).listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
  for (;;) {
    const base = 20_000 + Math.floor(Math.random() * 30_000);
    const ports = [base, base + 1, base + 2, base + 101, base + 102];
    if ((await Promise.all(ports.map(free))).every(Boolean)) return base;
  }
}

/** Restarts the local PostgreSQL server (every connection to it breaks); throws if it cannot. */
function restartPostgres(): void {
  const custom = process.env['POSTGRES_RESTART_COMMAND'];
  const [command, ...args] = custom
    ? ['sh', '-c', custom]
    : ['pg_ctlcluster', '--skip-systemctl-redirect', readdirSync('/etc/postgresql').sort()[0] ?? '', 'main', 'restart'];
  const run = spawnSync(command!, args, { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`restarting PostgreSQL failed (${[command, ...args].join(' ')}): ${run.error?.message ?? run.stderr}`);
}

const dataDir = mkdtempSync(join(tmpdir(), 'corebridge-faults-'));
// Named, not made: the first back-end creates it, as for a new user of `npm run stack`; dropped at the end.
const databaseUrl = await createTestDatabase({ prefix: 'corebridge_faults', create: false });
const port = await freeBase();
const prefix = `corebridge-faults:${randomUUID()}:`;
const env = {
  ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'warn', REDIS_URL, DATABASE_URL: databaseUrl,
  IDEMPOTENCY_REDIS_PREFIX: `${prefix}idem:`, RATE_LIMIT_REDIS_PREFIX: `${prefix}rl:`,
  IDEMPOTENCY_LEASE_MS: '1000', RATE_LIMIT_MAX: '1000000', RATE_LIMIT_ADDRESS_MAX: '10000000',
};
const base = `http://127.0.0.1:${port}`;
const stack = spawn(process.execPath, ['bin/corebridge.ts', 'stack', '--api', '2', '--backend', '2'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
let stackOut = '';
stack.stdout.on('data', (d: Buffer) => (stackOut += d.toString()));
const stackExited = new Promise<number | null>((resolve) => stack.once('close', (code) => resolve(code)));

interface StackState { apis: Array<{ name: string; pid: number }>; backends: Array<{ name: string; pid: number }> }
const state = () => JSON.parse(readFileSync(join(dataDir, 'stack', 'stack.json'), 'utf8')) as StackState;

async function until(what: string, check: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await check())) {
    if (Date.now() > DEADLINE) throw new Error(`${what}: not by the deadline`);
    await sleep(50);
  }
}
const ready = async () => (await fetch(`${base}/health/ready`, { signal: AbortSignal.timeout(1000) }).catch(() => null))?.ok === true;

async function restartDatabase(): Promise<string> {
  const started = Date.now();
  restartPostgres();
  await until('the stack ready after the database restart', ready);
  return `PostgreSQL restarted: the stack ready again after ${Date.now() - started} ms`;
}

/** kill -9 of one process of the stack; resolves once the stack has restarted it and the front is ready. */
async function kill(kind: 'apis' | 'backends'): Promise<string> {
  const victim = state()[kind][0]!;
  process.kill(victim.pid, 'SIGKILL');
  const started = Date.now();
  await until(`${victim.name} restarted`, () => state()[kind][0]!.pid !== victim.pid);
  await until('the stack ready again', ready);
  return `kill -9 ${victim.name} (pid ${victim.pid}): restarted and ready after ${Date.now() - started} ms`;
}

const failures: string[] = [];
try {
  await until('the stack started', () => stackOut.includes('Ctrl-C stops everything'));
  await until('the stack ready', ready);
  const config = loadConfig(env);
  const issuer = await openDevIssuer({ dataDir, issuer: `http://localhost:${port}/oauth`, audience: config.auth.audience });
  const auth = { authorization: `Bearer ${await issuer.sign({ subject: 'clerk', role: 'agent', scopes: ROLE_SCOPES.agent }, { ttlSeconds: 3600 })}` };

  const totalBefore = total(await balances(base, auth));
  const load = startPaymentLoad({ base, auth, deadline: DEADLINE, clients: Number(args.clients), keyPrefix: 'fault' });
  const events: string[] = [];
  await sleep(1500);
  events.push(await kill('backends'));
  await sleep(1500);
  events.push(await kill('apis'));
  await sleep(1500);
  events.push(await restartDatabase());
  await sleep(1500);
  await load.stop();

  failures.push(...load.unexpected, ...await checkAcknowledged(base, auth, load.acks));
  const totalAfter = total(await balances(base, auth));
  if (totalAfter !== totalBefore) failures.push(`sum of balances changed: ${totalBefore} → ${totalAfter}`);
  stack.kill('SIGINT');
  const code = await stackExited;
  if (code !== 0) failures.push(`the stack exited with ${code} on Ctrl-C`);
  const store = await checkStore({ file: '', databaseUrl }, { acks: load.acks, intents: load.intents() });
  failures.push(...store.failures);

  console.log(events.join('\n'));
  console.log(summary({ acks: load.acks, intents: load.intents(), retried: load.retried }, store.stored));
  console.log(`sum of balances before ${totalBefore / 100}, after ${totalAfter / 100}`);
} catch (error) {
  failures.push(String(error instanceof Error ? error.stack : error));
} finally {
  if (stack.exitCode === null) {
    stack.kill('SIGINT');
    await Promise.race([stackExited, sleep(15_000)]);
  }
  const redis = new Redis(REDIS_URL, { lazyConnect: true });
  await redis.connect().then(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
  }).catch(() => undefined).finally(() => redis.disconnect());
  if (!args.keep) {
    rmSync(dataDir, { recursive: true, force: true });
    await dropTestDatabases().catch((error: unknown) => console.error(`could not drop the test database: ${String(error)}`));
  }
}

if (failures.length) {
  console.error(`FAULT TEST FAILED\n${failures.slice(0, 20).join('\n')}`);
  process.exit(1);
}
console.log('fault test passed: every acknowledged payment exists exactly once, none duplicated, balances conserved; outages answered 503/504 (409 for a held key) with Retry-After');
