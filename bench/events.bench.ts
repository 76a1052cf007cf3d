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
 * BENCH_SCENARIO=recover: an outage and its recovery instead. BENCH_EVENTS_BEFORE (50) payments are delivered as
 * usual; then the receiver goes away (connections refused) for BENCH_OUTAGE_SECONDS (10), BENCH_EVENTS (1000)
 * payments are made through the API evenly over it, and half-way the subscription is disabled by hand (PATCH
 * {"status":"disabled"}: its pending deliveries cancelled, later events make none). Then the receiver is back, the
 * subscription enabled (PATCH {"status":"active"}) and recovered from the outage's start (POST …/recover, again
 * from `continueFrom` with the same `until` while the window was cut). The outage is compressed: a longer one holds
 * the same events in the window, so the recover does the same work. Prints the time from the first recover call
 * to the last distinct webhook-id, the recover calls' own time, second deliveries of a webhook-id, events from
 * before the outage delivered again, bad signatures, and deliveries still pending BENCH_SETTLE_SECONDS (6) after.
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
const EVENTS_BEFORE = Number(process.env['BENCH_EVENTS_BEFORE'] ?? 50);
const OUTAGE_SECONDS = Number(process.env['BENCH_OUTAGE_SECONDS'] ?? 10);
// Long enough for a first retry (5 s by default) of anything left scheduled to arrive as a duplicate.
const SETTLE_MS = Number(process.env['BENCH_SETTLE_SECONDS'] ?? 6) * 1000;

interface RecoverFigures {
  made: number;
  distinct: number;
  allMs: number | null;
  recoverMs: number;
  duplicates: number;
  resentBefore: number;
  badSignatures: number;
}

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
    // Another server on the machine may hold the default metrics port; these figures need none.
    METRICS_PORT: process.env['METRICS_PORT'] ?? '0',
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
async function recoverRound(n: number): Promise<RecoverFigures> {
  const dir = mkdtempSync(join(tmpdir(), 'corebridge-bench-recover-'));
  // Per webhook-id: how many verified deliveries, and when the first came.
  const seen = new Map<string, { count: number; first: number }>();
  let secret = '';
  let badSignatures = 0;
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req
      .on('data', (c: Buffer) => chunks.push(c))
      .on('end', () => {
        const at = Date.now();
        try {
          const id = String(req.headers['webhook-id']);
          new Webhook(secret).verify(Buffer.concat(chunks).toString('utf8'), req.headers as Record<string, string>);
          const s = seen.get(id);
          if (s) s.count++;
          else seen.set(id, { count: 1, first: at });
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
  const expectStatus = (what: string, subscription: Record<string, unknown>, status: string) => {
    if (subscription['status'] !== status)
      throw new Error(`${what}: the subscription is ${JSON.stringify(subscription)}`);
  };
  let key = 0;
  /** `count` payments, the i-th not before `at(i)`, CONNECTIONS at once; how many completed. */
  const pay = async (count: number, at: (i: number) => number) => {
    let next = 0;
    let made = 0;
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        while (next < count) {
          const wait = at(next++) - Date.now();
          if (wait > 0) await sleep(wait);
          const res = await call('POST', '/v1/payments', JSON.parse(PAYMENT_BODY), {
            'idempotency-key': `recover-${n}-${++key}`,
          });
          if (res.status === 201 && res.body?.['status'] === 'COMPLETED') made++;
        }
      }),
    );
    return made;
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

    // Before the outage: events delivered as usual, outside the window recovered later.
    const madeBefore = await pay(EVENTS_BEFORE, () => 0);
    const settleBy = Date.now() + 60_000;
    while (seen.size < madeBefore && Date.now() < settleBy) await sleep(20);
    const before = new Set(seen.keys());

    // The outage: connections refused from here on; the events raised evenly over it, the subscription disabled
    // by hand half-way (its pending deliveries cancelled, the later events make none).
    const outageStarted = Date.now();
    const outageStart = new Date(outageStarted).toISOString();
    await new Promise<void>((done) => {
      receiver.close(() => done());
      receiver.closeAllConnections();
    });
    const outageMs = OUTAGE_SECONDS * 1000;
    let disabledAfter = 0;
    const disabling = (async () => {
      await sleep(outageMs / 2);
      disabledAfter = key - EVENTS_BEFORE;
      const disabled = expect(
        'disabling',
        await call('PATCH', `/v1/webhook-subscriptions/${id}`, { status: 'disabled' }),
        200,
      );
      expectStatus('disabling', disabled, 'disabled');
    })();
    const made = await pay(EVENTS, (i) => outageStarted + (i * outageMs) / EVENTS);
    await disabling;
    const raisedIn = Date.now() - outageStarted;
    if (raisedIn < outageMs) await sleep(outageMs - raisedIn);
    const outageSeconds = ((Date.now() - outageStarted) / 1000).toFixed(1);
    const duringOutage = seen.size - before.size;

    // The receiver is back: enable, then recover from the outage's start, on from `continueFrom` while cut.
    await listen(receiverPort);
    const enabled = expect(
      'enabling',
      await call('PATCH', `/v1/webhook-subscriptions/${id}`, { status: 'active' }),
      200,
    );
    expectStatus('enabling', enabled, 'active');
    const started = Date.now();
    let since = outageStart;
    let until: string | undefined;
    let calls = 0;
    let queued = 0;
    let requeued = 0;
    let recoverMs = 0;
    for (;;) {
      const sent = Date.now();
      const answer = expect(
        'recovering',
        await call(
          'POST',
          `/v1/webhook-subscriptions/${id}/recover`,
          until === undefined ? { since } : { since, until },
        ),
        202,
      );
      recoverMs += Date.now() - sent;
      calls++;
      queued += Number(answer['queued']);
      requeued += Number(answer['requeued']);
      if (!answer['cut']) break;
      since = String(answer['continueFrom']);
      until = String(answer['until']);
    }
    const outageIds = () => [...seen.keys()].filter((k) => !before.has(k));
    const deadline = Date.now() + 300_000;
    while (outageIds().length < made && Date.now() < deadline) await sleep(20);
    // Late second deliveries would come now; then nothing may still be pending.
    await sleep(SETTLE_MS);
    const pending = expect(
      'listing pending deliveries',
      await call('GET', `/v1/webhook-subscriptions/${id}/deliveries?state=pending&limit=100`),
      200,
    )['items'] as unknown[];
    const ids = outageIds();
    const lastFirst = Math.max(...ids.map((k) => seen.get(k)?.first ?? 0));
    const figures: RecoverFigures = {
      made,
      distinct: ids.length,
      allMs: ids.length >= made ? lastFirst - started : null,
      recoverMs,
      duplicates: ids.reduce((sum, k) => sum + (seen.get(k)?.count ?? 1) - 1, 0),
      resentBefore: [...before].reduce((sum, k) => sum + (seen.get(k)?.count ?? 1) - 1, 0),
      badSignatures,
    };
    console.log(
      `| ${n} | ${madeBefore} | ${outageSeconds} | ${made} | ${disabledAfter} | ${duringOutage} | ${calls} | ${queued} | ${requeued} ` +
        `| ${recoverMs} | ${figures.distinct} | ${figures.allMs ?? 'not all'} | ${figures.duplicates} ` +
        `| ${figures.resentBefore} | ${badSignatures} | ${pending.length} |`,
    );
    return figures;
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
    `bench:events recover — ${EVENTS_BEFORE} payments (PaymentCompleted) delivered, then an outage of ${OUTAGE_SECONDS} s: ` +
      `the receiver refuses connections while ${EVENTS} payments are made evenly over it, ${CONNECTIONS} at once at most, and ` +
      `the subscription is disabled by hand (PATCH) half-way; then the receiver is back, the subscription enabled (PATCH) ` +
      `and recovered from the outage's start; ${pinningDescription()}; LOG_LEVEL=${LOG_LEVEL}`,
  );
  console.log(
    'A longer outage changes nothing the recover does: its window holds the same events, whose deliveries were ' +
      'cancelled by the disable or never made; only how many attempts were refused before the disable differs.\n',
  );
  console.log(
    '| round | delivered before | outage s | raised in outage | sent before disable | received in outage | recover calls | queued | requeued ' +
      '| recover calls ms | distinct ids | last distinct id after ms | duplicates | before-outage sent again | bad signatures | pending after |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  const all: RecoverFigures[] = [];
  for (let n = 1; n <= ROUNDS; n++) all.push(await recoverRound(n));
  const spread = (values: number[]) => {
    const v = [...values].sort((a, b) => a - b);
    return `${v[0]} / ${v[Math.floor((v.length - 1) / 2)]} / ${v.at(-1)}`;
  };
  const complete = all.filter((f) => f.allMs !== null);
  console.log(
    `\nfrom the first recover call to the last distinct webhook-id, ms (min / median / max): ` +
      `${complete.length > 0 ? spread(complete.map((f) => f.allMs ?? 0)) : 'none complete'}; ` +
      `the recover calls themselves: ${spread(all.map((f) => f.recoverMs))}`,
  );
  console.log(
    'duplicates: second deliveries of a webhook-id of the outage (an attempt the receiver read whose answer ' +
      'Corebridge did not get, e.g. one in flight as the outage began or the subscription was disabled); ' +
      '"before-outage sent again": events delivered before the outage that came again (none if the window is exact)',
  );
  const wrong = all.filter((f) => f.distinct < f.made || f.made < EVENTS || f.badSignatures > 0);
  if (wrong.length > 0) {
    console.log(`NOT every event received once with a good signature in ${wrong.length} of ${all.length} rounds`);
    process.exitCode = 1;
  } else {
    console.log(`every round: all ${EVENTS} events received, every signature verified (standardwebhooks)`);
  }
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
