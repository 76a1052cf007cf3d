/**
 * `npm run stack -- --api N --backend M`: a small cluster on one machine for trying and testing: M back-ends on
 * one PostgreSQL database, N API instances, mutual TLS, Redis and HAProxy in front on PORT. A development tool,
 * not part of the product: production runs the same processes under an orchestrator (deploy/).
 * Its PKI, provider key, HAProxy configuration and per-process logs live under DATA_DIR; Ctrl-C stops everything
 * it started.
 */
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { closeRedis, connectRedis } from '../../src/api/redis.ts';
import { redactedDatabaseUrl } from '../../src/backend/store/postgres-store.ts';
import { writeDevelopmentPki } from '../../src/cli/certs.ts';
import { exitWithUsageIfAsked } from '../../src/cli/help.ts';
import { UsageError, type Io } from '../../src/cli/usage.ts';
import { ConfigError, loadConfig, processEnv } from '../../src/config.ts';
import { devPkiFiles } from '../../src/tls/dev-files.ts';
import { until } from '../../src/until.ts';
import { accepts } from '../../support/free-port.ts';
import { findHaproxy, HAPROXY_MISSING, writeHaproxyFiles } from './haproxy.ts';
import { supervise, type ProcessSpec, type Supervised } from './supervised.ts';

const STACK_USAGE = `usage: npm run stack -- [--api N] [--backend M]
  N API instances (default 2) and M back-end services (default 1) on this machine, over mutual TLS, behind
  HAProxy on PORT (Debian package haproxy); PostgreSQL (DATABASE_URL) and Redis (REDIS_URL) are shared by them.`;

const BIN = fileURLToPath(new URL('../../bin/corebridge.ts', import.meta.url));
const SERVER = fileURLToPath(new URL('../../src/server.ts', import.meta.url));
const DEFAULT_REDIS = 'redis://127.0.0.1:6379';
const DEFAULT_DATABASE = 'postgres://postgres@127.0.0.1:5432/corebridge';
const START_TIMEOUT_MS = 60_000;

/** Polls `check` until the process answers; fails naming it and its log after START_TIMEOUT_MS. */
function whenStarted(p: Supervised, check: () => Promise<boolean>): Promise<void> {
  return until(`${p.name} did not start; see ${p.log}`, check, START_TIMEOUT_MS);
}

function count(value: string | undefined, flag: string): number {
  if (value === undefined) return flag === '--api' ? 2 : 1;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 16) throw new UsageError(`${flag} must be a whole number from 1 to 16`);
  return n;
}

/** Fails early, in the user's words, when the database server cannot be reached (a missing database is made later). */
async function checkPostgres(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
  } catch (error) {
    if ((error as { code?: unknown }).code === '3D000') return;
    throw new UsageError(
      `the stack's back-ends share a PostgreSQL database, which is not reachable at ${redactedDatabaseUrl(url)} (set DATABASE_URL): ${(error as Error).message}`,
      1,
    );
  } finally {
    await client.end().catch(() => {});
  }
}

/** Ports the instances listen on: PORT+1… for APIs, PORT+101… for back-ends, so they are known before they start. */
function instancePorts(front: number, n: number, offset: number): number[] {
  return Array.from({ length: n }, (_, i) => front + offset + i);
}

async function stackCommand(args: string[], io: Io): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({ args, options: { api: { type: 'string' }, backend: { type: 'string' } } }));
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\n${STACK_USAGE}`);
  }
  const apis = count(values.api, '--api');
  const backends = count(values.backend, '--backend');
  const env = processEnv();
  const haproxy = findHaproxy(env['PATH']);
  if (!haproxy) throw new UsageError(HAPROXY_MISSING, 1);
  const config = loadConfig(env);
  if (config.port === 0)
    throw new UsageError('PORT must be a fixed port for the stack (its instances take the ports after it)');
  if (await accepts(config.port)) throw new UsageError(`PORT ${config.port} is already in use`, 1);
  const redisUrl = env['REDIS_URL'] || DEFAULT_REDIS;
  const databaseUrl = config.backend.databaseUrl ?? DEFAULT_DATABASE;
  await checkPostgres(databaseUrl);
  try {
    await closeRedis(await connectRedis(redisUrl, { warn: () => {} }));
  } catch (error) {
    throw new UsageError(
      `the stack keeps its shared state in Redis, which is not reachable at ${redisUrl} (set REDIS_URL): ${(error as Error).message}`,
      1,
    );
  }

  // Listened for from here on: a Ctrl-C while the stack starts stops what has started, once it has.
  const stopSignal = new Promise<string>((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });
  const dir = join(config.dataDir, 'stack');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const pki = devPkiFiles(config.dataDir);
  if (!existsSync(pki.caCert)) {
    await writeDevelopmentPki(pki);
    io.stdout.write(`made development certificates in ${pki.dir}\n`);
  }

  // One issuer, the front's URL, and one shared provider key for every API instance, so all accept the same tokens.
  const issuer = `http://localhost:${config.port}/oauth`;
  const backendPorts = instancePorts(config.port, backends, 101);
  const apiPorts = instancePorts(config.port, apis, 1);
  // Each API instance its own metrics listener: METRICS_PORT, METRICS_PORT+1, … (none with METRICS_PORT=0).
  const metricsPorts = config.metrics ? instancePorts(config.metrics.port, apis, 0) : [];
  const common = { ...env, DATA_DIR: config.dataDir, LOG_LEVEL: config.logLevel, DATABASE_URL: databaseUrl };
  // HAProxy is not restarted: its death stops the stack, which says so.
  let frontDied: (why: string) => void = () => {};
  const frontDeath = new Promise<string>((resolve) => (frontDied = resolve));
  const events = {
    exited: (name: string, code: number | null, signal: string | null, restarting: boolean) => {
      const how = `${name} exited (${signal ?? `code ${code}`})`;
      if (restarting) io.stdout.write(`${how}; restarting it in 1 s\n`);
      else frontDied(how);
    },
    restarted: (name: string, pid: number | undefined) => {
      io.stdout.write(`${name} restarted (pid ${pid})\n`);
      writeState();
    },
  };
  const started: Supervised[] = [];
  let front: Supervised | undefined;
  // Where writeHaproxyFiles puts it, beside its error files.
  const frontConfig = join(dir, 'haproxy.cfg');

  function writeState(): void {
    const state = {
      front: { url: `http://localhost:${config.port}`, pid: front?.pid(), config: frontConfig, log: front?.log },
      apis: started
        .filter((p) => p.name.startsWith('api'))
        .map((p, i) => ({
          name: p.name,
          pid: p.pid(),
          port: apiPorts[i],
          metricsPort: metricsPorts[i] ?? null,
          log: p.log,
        })),
      backends: started
        .filter((p) => p.name.startsWith('backend'))
        .map((p, i) => ({ name: p.name, pid: p.pid(), listen: `127.0.0.1:${backendPorts[i]}`, log: p.log })),
      redis: redisUrl,
      database: redactedDatabaseUrl(databaseUrl),
      issuer,
    };
    // Write-then-rename: the file is rewritten on every restart while tools poll it for new pids.
    const file = join(dir, 'stack.json');
    writeFileSync(`${file}.tmp`, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
    renameSync(`${file}.tmp`, file);
  }

  async function stopAll(): Promise<void> {
    await front?.stop();
    // APIs first (they finish their requests), then the back-ends they call.
    await Promise.all(started.filter((p) => p.name.startsWith('api')).map((p) => p.stop()));
    await Promise.all(started.filter((p) => p.name.startsWith('backend')).map((p) => p.stop()));
  }

  const startBackend = (i: number) => {
    const p = supervise(
      {
        name: `backend-${i + 1}`,
        args: [BIN, 'backend', 'serve'],
        env: { ...common, BACKEND_LISTEN: `127.0.0.1:${backendPorts[i]}` },
        log: join(dir, `backend-${i + 1}.log`),
      },
      events,
    );
    started.push(p);
    // It listens only once its store is open.
    return whenStarted(p, () => accepts(backendPorts[i]!));
  };
  const startApi = (i: number) => {
    const p = supervise(
      {
        name: `api-${i + 1}`,
        args: [SERVER],
        env: {
          ...common,
          PORT: String(apiPorts[i]),
          HOST: '127.0.0.1',
          AUTH_ISSUER: issuer,
          REDIS_URL: redisUrl,
          METRICS_PORT: String(metricsPorts[i] ?? 0),
          BACKEND_URL: backendPorts.map((port) => `tls://127.0.0.1:${port}`).join(','),
          // HAProxy connects from loopback: its X-Forwarded-For names the client, for rate limits and logs.
          TRUST_PROXY: '127.0.0.1',
        },
        log: join(dir, `api-${i + 1}.log`),
      },
      events,
    );
    started.push(p);
    return whenStarted(
      p,
      async () => (await fetch(`http://127.0.0.1:${apiPorts[i]}/health/live`).catch(() => null))?.ok === true,
    );
  };

  /** HAProxy in the foreground (master-worker, no daemon), a child of the stack: it stops when the stack does. */
  const startFront = async () => {
    writeHaproxyFiles(dir, {
      host: config.host,
      port: config.port,
      apis: apiPorts,
      requestTimeoutMs: config.protection.limits.requestTimeoutMs,
    });
    const spec: ProcessSpec = {
      name: 'haproxy',
      program: haproxy,
      args: ['-W', '-db', '-f', frontConfig],
      env,
      log: join(dir, 'haproxy.log'),
      restart: false,
    };
    front = supervise(spec, events);
    await Promise.race([
      whenStarted(front, () => accepts(config.port)),
      frontDeath.then((how) => Promise.reject(new Error(`${how} at start; see ${spec.log}`))),
    ]);
  };

  try {
    // The first of each kind alone: it creates what the others share (the database, its tables and demo
    // data; the identity provider's key and secrets).
    await startBackend(0);
    await Promise.all(backendPorts.slice(1).map((_, i) => startBackend(i + 1)));
    await startApi(0);
    await Promise.all(apiPorts.slice(1).map((_, i) => startApi(i + 1)));
    await startFront();
  } catch (error) {
    await stopAll();
    throw new UsageError((error as Error).message, 1);
  }
  writeState();

  const lines = [
    `Corebridge stack: ${apis} API instance(s), ${backends} back-end service(s)`,
    `  front (HAProxy)      http://localhost:${config.port}  pid ${front?.pid()}  config ${frontConfig}  log ${front?.log}`,
    ...started
      .filter((p) => p.name.startsWith('api'))
      .map(
        (p, i) =>
          `  ${p.name.padEnd(19)}  http://127.0.0.1:${apiPorts[i]}  pid ${p.pid()}  log ${p.log}${metricsPorts[i] ? `  metrics http://127.0.0.1:${metricsPorts[i]}/metrics` : ''}`,
      ),
    ...started
      .filter((p) => p.name.startsWith('backend'))
      .map((p, i) => `  ${p.name.padEnd(19)}  tls://127.0.0.1:${backendPorts[i]}  pid ${p.pid()}  log ${p.log}`),
    `  database             ${redactedDatabaseUrl(databaseUrl)}`,
    `  shared state         ${redisUrl}`,
    `  certificates         ${pki.dir}`,
    `Tokens: npm run token -- ada   (with the same PORT and DATA_DIR). Ctrl-C stops everything.`,
    '',
  ];
  io.stdout.write(lines.join('\n'));

  const ended = await Promise.race([stopSignal, frontDeath.then((how) => ({ how }))]);
  // A Ctrl-C in a terminal reaches HAProxy too, which may exit before the stack sees its own signal.
  const signal = typeof ended === 'string' ? ended : await Promise.race([stopSignal, sleep(500).then(() => undefined)]);
  if (signal === undefined) {
    io.stderr.write(`${(ended as { how: string }).how}: stopping the stack; see ${front?.log}\n`);
    await stopAll();
    return 1;
  }
  io.stdout.write(`${signal}: stopping the stack\n`);
  await stopAll();
  io.stdout.write('stopped\n');
  return 0;
}

const args = process.argv.slice(2);
exitWithUsageIfAsked(args, STACK_USAGE);
try {
  process.exitCode = await stackCommand(args, { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr });
} catch (error) {
  process.stderr.write(`stack: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = error instanceof UsageError ? error.exitCode : error instanceof ConfigError ? 2 : 1;
}
