/**
 * npm run bench:events — how fast events leave Corebridge as webhooks: events/s delivered and the latency from
 * the change to the webhook's receipt, against a local receiver (node:http in this process).
 *
 * A real server (`node src/server.ts`, fresh DATA_DIR, embedded SQLite, pinned to CPU 0 where taskset exists)
 * with a subscription of the clerk to PaymentCompleted; this process sends payments for BENCH_SECONDS at
 * BENCH_CONNECTIONS at once (each with its own Idempotency-Key), then waits for every event. Latency runs
 * from the event's `time` (the back-end's clock when the payment's transaction ran, before its commit) to
 * the receipt here, on the same machine's clock. Settings: BENCH_SECONDS (10), BENCH_CONNECTIONS (20),
 * BENCH_ROUNDS (3), LOG_LEVEL (warn).
 *
 * BENCH_SCENARIO=recover: an outage and its recovery instead. The receiver goes away (connections refused),
 * BENCH_EVENTS (1000) payments are made through the API during it, the subscription is disabled by hand
 * (PATCH {"status":"disabled"}); then the receiver is back, the subscription enabled (PATCH {"status":"active"})
 * and recovered from the outage's start (POST …/recover, again from `continueFrom` while the window was cut).
 * Prints how long from the first recover until the receiver has every event's webhook-id, and how many
 * deliveries it got more than once.
 */
import { closeSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { Webhook } from 'standardwebhooks';
import { openDevIssuer } from '../src/auth/dev-issuer.ts';
import { ROLE_SCOPES } from '../src/auth/roles.ts';
import { loadConfig } from '../src/config.ts';
import { freePort } from '../support/free-port.ts';
import { PAYMENT_BODY, waitFor } from './harness.ts';
import { children, pinningDescription, start, stop } from './load.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 10);
const CONNECTIONS = Number(process.env['BENCH_CONNECTIONS'] ?? 20);
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 3);
const LOG_LEVEL = process.env['LOG_LEVEL'] ?? 'warn';
const SCENARIO = process.env['BENCH_SCENARIO'] ?? 'throughput';
const EVENTS = Number(process.env['BENCH_EVENTS'] ?? 1000);

interface Receipt {
  at: number;
  time: number;
}

/** A real server on a fresh DATA_DIR under `dir` that may deliver to the receiver's port; the clerk's authorization. */
async function startServer(dir: string, receiverPort: number) {
  const port = await freePort();
  const dataDir = join(dir, 'data');
  const env = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    LOG_LEVEL,
    RATE_LIMIT_MAX: '1000000',
    RATE_LIMIT_ADDRESS_MAX: '10000000',
    RATE_LIMIT_WINDOW_SECONDS: '1',
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOWED_CIDRS: '127.0.0.1/32',
    WEBHOOK_ALLOWED_PORTS: String(receiverPort),
  };
  const config = loadConfig(env);
  const issuer = await openDevIssuer({ dataDir, issuer: config.auth.issuer, audience: config.auth.audience });
  const authorization = `Bearer ${await issuer.sign({ subject: 'clerk', role: 'agent', scopes: ROLE_SCOPES.agent }, { ttlSeconds: 3600 })}`;
  const logFd = openSync(join(dir, 'server.log'), 'w');
  const server = start(0, process.execPath, ['src/server.ts'], { cwd: ROOT, env, stdio: ['ignore', logFd, 'inherit'] });
  closeSync(logFd);
  const base = `http://127.0.0.1:${port}`;
  try {
    await waitFor(`${base}/health/ready`, server);
  } catch (error) {
    await stop(server);
    throw error;
  }
  return { base, authorization, server };
}

async function round(n: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'corebridge-bench-events-'));
  const receipts = new Map<string, Receipt>();
  let secret = '';
  let badSignatures = 0;
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req
      .on('data', (c: Buffer) => chunks.push(c))
      .on('end', () => {
        const at = Date.now();
        try {
          const event = new Webhook(secret).verify(
            Buffer.concat(chunks).toString('utf8'),
            req.headers as Record<string, string>,
          ) as { id: string; time: string };
          if (!receipts.has(event.id)) receipts.set(event.id, { at, time: Date.parse(event.time) });
        } catch {
          badSignatures++;
        }
        res.writeHead(204).end();
      });
  });
  await new Promise<void>((done) => receiver.listen(0, '127.0.0.1', () => done()));
  const receiverPort = (receiver.address() as AddressInfo).port;

  const { base, authorization, server } = await startServer(dir, receiverPort);
  try {
    const sub = await fetch(`${base}/v1/webhook-subscriptions`, {
      method: 'POST',
      headers: { authorization, 'content-type': 'application/json' },
      body: JSON.stringify({ url: `http://127.0.0.1:${receiverPort}/hooks`, eventTypes: ['PaymentCompleted'] }),
    });
    if (sub.status !== 201) throw new Error(`subscribing answered ${sub.status}: ${await sub.text()}`);
    secret = ((await sub.json()) as { secret: string }).secret;

    let paid = 0;
    let key = 0;
    const until = Date.now() + SECONDS * 1000;
    const started = Date.now();
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        while (Date.now() < until) {
          const res = await fetch(`${base}/v1/payments`, {
            method: 'POST',
            headers: { authorization, 'content-type': 'application/json', 'idempotency-key': `bench-${n}-${++key}` },
            body: PAYMENT_BODY,
          });
          await res.arrayBuffer();
          if (res.status === 201) paid++;
        }
      }),
    );
    const loadEnded = Date.now();
    const deadline = Date.now() + 120_000;
    while (receipts.size < paid && Date.now() < deadline) await sleep(50);
    const latencies = [...receipts.values()].map((r) => r.at - r.time).sort((a, b) => a - b);
    const pct = (p: number) =>
      latencies[Math.min(latencies.length - 1, Math.floor((latencies.length * p) / 100))] ?? NaN;
    const last = Math.max(...[...receipts.values()].map((r) => r.at));
    console.log(
      `| ${n} | ${paid} | ${Math.round(paid / ((loadEnded - started) / 1000))} | ${receipts.size} | ${Math.round(receipts.size / ((last - started) / 1000))} ` +
        `| ${pct(50)} | ${pct(99)} | ${latencies.at(-1)} | ${last - loadEnded} | ${badSignatures} |`,
    );
    if (receipts.size < paid)
      console.log(`   ${paid - receipts.size} events not received within 120 s of the load's end`);
  } finally {
    await stop(server);
    receiver.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The recover scenario (BENCH_SCENARIO=recover): an outage of the receiver, then its recovery. */
async function recoverRound(n: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'corebridge-bench-recover-'));
  const seen = new Map<string, number>();
  let secret = '';
  let badSignatures = 0;
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req
      .on('data', (c: Buffer) => chunks.push(c))
      .on('end', () => {
        try {
          const id = String(req.headers['webhook-id']);
          new Webhook(secret).verify(Buffer.concat(chunks).toString('utf8'), req.headers as Record<string, string>);
          seen.set(id, (seen.get(id) ?? 0) + 1);
        } catch {
          badSignatures++;
        }
        res.writeHead(204).end();
      });
  });
  const listen = (port: number) => new Promise<void>((done) => receiver.listen(port, '127.0.0.1', () => done()));
  await listen(0);
  const receiverPort = (receiver.address() as AddressInfo).port;
  const { base, authorization, server } = await startServer(dir, receiverPort);
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { authorization, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json().catch(() => null)) as Record<string, unknown> | null };
  };
  const expect = (what: string, answer: { status: number; body: unknown }, status: number) => {
    if (answer.status !== status) throw new Error(`${what} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    return answer.body as Record<string, unknown>;
  };
  try {
    const sub = expect(
      'subscribing',
      await call('POST', '/v1/webhook-subscriptions', {
        url: `http://127.0.0.1:${receiverPort}/hooks`,
        eventTypes: ['PaymentCompleted'],
      }),
      201,
    );
    secret = String(sub['secret']);
    const id = String(sub['subscriptionId']);

    // The outage: connections refused from here on.
    const outageStart = new Date().toISOString();
    await new Promise<void>((done) => {
      receiver.close(() => done());
      receiver.closeAllConnections();
    });
    let made = 0;
    let key = 0;
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        while (key < EVENTS) {
          const res = await call('POST', '/v1/payments', JSON.parse(PAYMENT_BODY), {
            'idempotency-key': `recover-${n}-${++key}`,
          });
          if (res.status === 201 && res.body?.['status'] === 'COMPLETED') made++;
        }
      }),
    );
    expect('disabling', await call('PATCH', `/v1/webhook-subscriptions/${id}`, { status: 'disabled' }), 200);

    // The receiver is back: enable, then recover from the outage's start, on from `continueFrom` while cut.
    await listen(receiverPort);
    expect('enabling', await call('PATCH', `/v1/webhook-subscriptions/${id}`, { status: 'active' }), 200);
    const started = Date.now();
    let since = outageStart;
    let calls = 0;
    let queued = 0;
    for (;;) {
      const answer = expect(
        'recovering',
        await call('POST', `/v1/webhook-subscriptions/${id}/recover`, { since }),
        202,
      );
      calls++;
      queued += Number(answer['queued']);
      if (!answer['cut']) break;
      since = String(answer['continueFrom']);
    }
    const recovered = Date.now() - started;
    const deadline = Date.now() + 300_000;
    while (seen.size < made && Date.now() < deadline) await sleep(20);
    const allSeen = Date.now() - started;
    const received = [...seen.values()].reduce((a, b) => a + b, 0);
    console.log(
      `| ${n} | ${made} | ${calls} | ${queued} | ${recovered} | ${seen.size} | ${seen.size >= made ? allSeen : 'not all'} ` +
        `| ${received - seen.size} | ${badSignatures} |`,
    );
  } finally {
    await stop(server);
    receiver.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});
if (SCENARIO === 'recover') {
  console.log(
    `bench:events recover — ${EVENTS} payments (PaymentCompleted) at ${CONNECTIONS} at once while the receiver refuses ` +
      `connections, the subscription disabled; then the receiver back, enabled, recovered; ${pinningDescription()}; LOG_LEVEL=${LOG_LEVEL}`,
  );
  console.log('from the first recover call until the receiver has every webhook-id, ms\n');
  console.log(
    '| round | events | recover calls | queued | recover calls ms | webhook-ids received | all received after ms | duplicates | bad signatures |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (let n = 1; n <= ROUNDS; n++) await recoverRound(n);
} else {
  console.log(
    `bench:events — payments for ${SECONDS} s at ${CONNECTIONS} at once, each raising PaymentCompleted to one webhook subscription; ${pinningDescription()}; LOG_LEVEL=${LOG_LEVEL}`,
  );
  console.log('latency: from the event time (the back-end transaction) to receipt at the local receiver, ms\n');
  console.log(
    '| round | payments | payments/s | events received | events/s | p50 ms | p99 ms | max ms | drain after load ms | bad signatures |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (let n = 1; n <= ROUNDS; n++) await round(n);
}
