/**
 * Fault test (npm run test:faults): a stack of 2 API instances and 2 back-end services (npm run stack:
 * mutual TLS, Redis, HAProxy in front) under payment load with retries, while its parts are killed:
 * kill -9 of one back-end service, then of one API instance (the stack restarts each, as an orchestrator
 * would), then a restart of the PostgreSQL server the back-ends share (a database of this run's own on
 * the local server). Afterwards: no acknowledged payment lost, none duplicated, money conserved, and
 * during the outages only 503/504 (and 409 for a key still held) answers, each with Retry-After.
 * POSTGRES_RESTART_COMMAND overrides how the server is restarted (default: pg_ctlcluster, as root).
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { exitWithUsageIfAsked } from '../src/cli/help.ts';
import { balances, checkAcknowledged, checkStore, sleep, startPaymentLoad, summary, total } from './payment-load.ts';
import { until } from '../src/until.ts';
import { startStack } from './stack/run.ts';

exitWithUsageIfAsked(
  process.argv.slice(2),
  `usage: npm run test:faults -- [--clients N] [--max-seconds S] [--keep]
  a stack of 2 APIs and 2 back-ends on PostgreSQL under payments from N clients (default 6): kill -9 of each
  kind and a PostgreSQL restart (POSTGRES_RESTART_COMMAND), then no acknowledged payment lost or doubled.`,
);

const { values: args } = parseArgs({
  options: {
    clients: { type: 'string', default: '6' },
    'max-seconds': { type: 'string', default: '180' },
    keep: { type: 'boolean', default: false },
  },
});
const DEADLINE = Date.now() + Number(args['max-seconds']) * 1000;

/** Restarts the local PostgreSQL server (every connection to it breaks); throws if it cannot. */
function restartPostgres(): void {
  const custom = process.env['POSTGRES_RESTART_COMMAND'];
  const [command, ...args] = custom
    ? ['sh', '-c', custom]
    : ['pg_ctlcluster', '--skip-systemctl-redirect', readdirSync('/etc/postgresql').sort()[0] ?? '', 'main', 'restart'];
  const run = spawnSync(command!, args, { encoding: 'utf8' });
  if (run.status !== 0) {
    const why = run.error?.message ?? run.stderr;
    throw new Error(`restarting PostgreSQL failed (${[command, ...args].join(' ')}): ${why}`);
  }
}

const stack = await startStack({
  apis: 2,
  backends: 2,
  env: { LOG_LEVEL: 'warn', IDEMPOTENCY_LEASE_MS: '1000' },
  startMs: DEADLINE - Date.now(),
});
const { base, auth, databaseUrl, state, ready } = stack;
/** Waits for the stack within what is left of the run's time. */
const untilDeadline = (what: string, check: () => boolean | Promise<boolean>) =>
  until(what, check, Math.max(0, DEADLINE - Date.now()), 50);

async function restartDatabase(): Promise<string> {
  const started = Date.now();
  restartPostgres();
  await untilDeadline('the stack ready after the database restart', ready);
  return `PostgreSQL restarted: the stack ready again after ${Date.now() - started} ms`;
}

/** kill -9 of one process of the stack; resolves once the stack has restarted it and the front is ready. */
async function kill(kind: 'apis' | 'backends'): Promise<string> {
  const victim = state()[kind][0]!;
  process.kill(victim.pid, 'SIGKILL');
  const started = Date.now();
  await untilDeadline(`${victim.name} restarted`, () => state()[kind][0]!.pid !== victim.pid);
  await untilDeadline('the stack ready again', ready);
  return `kill -9 ${victim.name} (pid ${victim.pid}): restarted and ready after ${Date.now() - started} ms`;
}

const failures: string[] = [];
try {
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

  failures.push(...load.unexpected, ...(await checkAcknowledged(base, auth, load.acks)));
  const totalAfter = total(await balances(base, auth));
  if (totalAfter !== totalBefore) failures.push(`sum of balances changed: ${totalBefore} → ${totalAfter}`);
  const code = await stack.stop();
  if (code !== 0) failures.push(`the stack exited with ${code} on Ctrl-C`);
  const store = await checkStore({ file: '', databaseUrl }, { acks: load.acks, intents: load.intents() });
  failures.push(...store.failures);

  console.log(events.join('\n'));
  console.log(summary({ acks: load.acks, intents: load.intents(), retried: load.retried }, store.stored));
  console.log(`sum of balances before ${totalBefore / 100}, after ${totalAfter / 100}`);
} catch (error) {
  failures.push(String(error instanceof Error ? error.stack : error));
} finally {
  await stack.cleanup({ keep: args.keep });
}

if (failures.length) {
  console.error(`FAULT TEST FAILED\n${failures.slice(0, 20).join('\n')}`);
  process.exit(1);
}
console.log(
  'fault test passed: every acknowledged payment exists exactly once, none duplicated, balances conserved; ' +
    'outages answered 503/504 (409 for a held key) with Retry-After',
);
