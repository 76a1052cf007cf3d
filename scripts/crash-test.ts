/**
 * Crash test (npm run test:crash): SIGKILLs the server again and again while clients send internal
 * payments, retrying each under its own Idempotency-Key until they get an answer. After the last
 * restart: every acknowledged payment exists exactly once, no payment exists twice, every intended
 * payment was acknowledged, the ledger matches the balances, and the sum of all balances is unchanged.
 * Talks only to 127.0.0.1; bounded in rounds and time.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openDevIssuer } from '../src/auth/dev-issuer.ts';
import { ROLE_SCOPES } from '../src/auth/roles.ts';
import { loadConfig } from '../src/config.ts';
import { exitWithUsageIfAsked } from '../src/cli/help.ts';
import { freePort } from '../support/free-port.ts';
import { until } from '../src/until.ts';
import { balances, checkAcknowledged, checkStore, sleep, startPaymentLoad, summary, total } from './payment-load.ts';

exitWithUsageIfAsked(
  process.argv.slice(2),
  `usage: npm run test:crash -- \
[--kills N] [--clients N] [--max-seconds S] [--keep]
  SIGKILLs the server N times (default 8) under payments from N clients (default 6), then checks that no
  acknowledged payment is lost or doubled and money is conserved; --keep leaves the data directory.`,
);

const { values: args } = parseArgs({
  options: {
    kills: { type: 'string', default: '8' },
    clients: { type: 'string', default: '6' },
    'max-seconds': { type: 'string', default: '120' },
    keep: { type: 'boolean', default: false },
  },
});
const KILLS = Number(args.kills);
const CLIENTS = Number(args.clients);
const DEADLINE = Date.now() + Number(args['max-seconds']) * 1000;

const dataDir = mkdtempSync(join(tmpdir(), 'corebridge-crash-'));
const port = await freePort();
const env = {
  ...process.env,
  PORT: String(port),
  HOST: '127.0.0.1',
  DATA_DIR: dataDir,
  LOG_LEVEL: 'warn',
  IDEMPOTENCY_LEASE_MS: '400',
  RATE_LIMIT_MAX: '1000000',
  RATE_LIMIT_ADDRESS_MAX: '10000000',
};
const config = loadConfig(env);
const base = `http://127.0.0.1:${port}`;
const issuer = await openDevIssuer({ dataDir, issuer: config.auth.issuer, audience: config.auth.audience });
const token = await issuer.sign({ subject: 'clerk', role: 'agent', scopes: ROLE_SCOPES.agent }, { ttlSeconds: 3600 });
const auth = { authorization: `Bearer ${token}` };

let server: ChildProcess | undefined;
function startServer(): ChildProcess {
  const child = spawn(process.execPath, ['src/server.ts'], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  server = child;
  return child;
}

/** Waits for the server within what is left of the run's time. */
async function waitReady(): Promise<void> {
  const ready = async () =>
    (await fetch(`${base}/health/ready`, { signal: AbortSignal.timeout(1000) }).catch(() => null))?.ok === true;
  await until('the server ready', ready, Math.max(0, DEADLINE - Date.now()), 50);
}

const failures: string[] = [];
try {
  startServer();
  await waitReady();
  const totalBefore = total(await balances(base, auth));
  const load = startPaymentLoad({ base, auth, deadline: DEADLINE, clients: CLIENTS, keyPrefix: 'crash' });

  for (let k = 0; k < KILLS; k++) {
    await sleep(300 + Math.random() * 900);
    server!.kill('SIGKILL');
    await new Promise((r) => server!.once('exit', r));
    startServer();
    await waitReady();
  }
  await sleep(500);
  await load.stop();

  // Verification against the last server, then against its files.
  failures.push(...load.unexpected, ...(await checkAcknowledged(base, auth, load.acks)));
  const totalAfter = total(await balances(base, auth));
  if (totalAfter !== totalBefore) failures.push(`sum of balances changed: ${totalBefore} → ${totalAfter}`);
  server!.kill('SIGTERM');
  await new Promise((r) => server!.once('exit', r));
  server = undefined;
  const store = await checkStore(
    { file: join(dataDir, 'backend.sqlite'), databaseUrl: null },
    { acks: load.acks, intents: load.intents() },
  );
  failures.push(...store.failures);

  console.log(`kills: ${KILLS}, clients: ${CLIENTS}`);
  console.log(summary({ acks: load.acks, intents: load.intents(), retried: load.retried }, store.stored));
  console.log(`sum of balances before ${totalBefore / 100}, after ${totalAfter / 100}`);
} catch (error) {
  failures.push(String(error instanceof Error ? error.stack : error));
} finally {
  if (server) server.kill('SIGKILL');
  if (!args.keep) rmSync(dataDir, { recursive: true, force: true });
}

if (failures.length) {
  console.error(`CRASH TEST FAILED\n${failures.slice(0, 20).join('\n')}`);
  process.exit(1);
}
console.log('crash test passed: every acknowledged payment exists exactly once, none duplicated, balances conserved');
