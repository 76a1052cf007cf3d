/**
 * npm run bench: requests/s and p50/p99 latency of GET /v1/orders/{id} and POST /v1/payments through
 * the real server (JWT auth, one log line per request to a file, in-process back-end over encoded
 * records, SQLite with synchronous=FULL), beside a bare Fastify route served in the same run.
 * Servers run as child processes on 127.0.0.1; the load generator (autocannon) runs here.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { openDevIssuer } from '../src/api/auth/dev-issuer.ts';
import { ROLE_SCOPES } from '../src/api/auth/roles.ts';
import { loadConfig } from '../src/config.ts';

const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 10);
const CONNECTIONS = Number(process.env['BENCH_CONNECTIONS'] ?? 10);

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => (typeof a === 'object' && a ? resolve(a.port) : reject(new Error('no port'))));
    });
  });
}

async function waitFor(url: string): Promise<void> {
  const until = Date.now() + 20_000;
  while (Date.now() < until) {
    try {
      if ((await fetch(url)).ok) return;
    } catch { /* starting */ }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${url} did not come up`);
}

const dataDir = mkdtempSync(join(tmpdir(), 'corebridge-bench-'));
const children: ChildProcess[] = [];
try {
  const apiPort = await freePort();
  const barePort = await freePort();
  const env = { ...process.env, PORT: String(apiPort), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'info', RATE_LIMIT_MAX: '1000000', RATE_LIMIT_ADDRESS_MAX: '10000000' };
  const config = loadConfig(env);
  const issuer = await openDevIssuer({ dataDir, issuer: config.auth.issuer, audience: config.auth.audience });
  const token = await issuer.sign({ subject: 'clerk', role: 'agent', scopes: ROLE_SCOPES.agent }, { ttlSeconds: 3600 });

  const logFile = join(dataDir, 'server.log');
  // The server writes its log lines straight into a file (no pipe through this process).
  const logFd = openSync(logFile, 'w');
  const api = spawn(process.execPath, ['src/server.ts'], { env, stdio: ['ignore', logFd, 'inherit'] });
  closeSync(logFd);
  const bare = spawn(process.execPath, ['bench/bare-server.ts'], { env: { ...process.env, PORT: String(barePort) }, stdio: 'inherit' });
  children.push(api, bare);
  await waitFor(`http://127.0.0.1:${apiPort}/health/ready`);
  await waitFor(`http://127.0.0.1:${barePort}/bare`);

  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const order = await fetch(`http://127.0.0.1:${apiPort}/v1/orders`, {
    method: 'POST', headers, body: JSON.stringify({ customerId: '1001', productId: 'P-100', quantity: 1 }),
  });
  const orderId = ((await order.json()) as { orderId: string }).orderId;

  const scenarios: Array<{ name: string; options: autocannon.Options }> = [
    { name: 'bare Fastify GET /bare', options: { url: `http://127.0.0.1:${barePort}/bare` } },
    { name: 'GET /v1/orders/{id}', options: { url: `http://127.0.0.1:${apiPort}/v1/orders/${orderId}`, headers } },
    {
      name: 'POST /v1/payments',
      options: {
        url: `http://127.0.0.1:${apiPort}/v1/payments`,
        method: 'POST',
        headers,
        // 0.01 EUR from Grace (10,000.00) to Ada, each with its own Idempotency-Key.
        body: JSON.stringify({ debtorAccount: '1003-01', creditorAccount: '1001-01', amount: 0.01, currency: 'EUR' }),
        requests: [{ setupRequest: (req) => ({ ...req, headers: { ...req.headers, 'idempotency-key': randomUUID() } }) }],
      },
    },
  ];

  const rows: string[] = [];
  for (const s of scenarios) {
    // Short warm-up (JIT, caches), then the measured run.
    await autocannon({ ...s.options, connections: CONNECTIONS, duration: 2 });
    const r = await autocannon({ ...s.options, connections: CONNECTIONS, duration: SECONDS });
    const bad = r.non2xx + r.errors + r.timeouts;
    rows.push(
      `${s.name.padEnd(26)} ${r.requests.average.toFixed(0).padStart(8)} req/s   p50 ${String(r.latency.p50).padStart(4)} ms   p99 ${String(r.latency.p99).padStart(4)} ms   ${r.requests.total} requests${bad ? `, ${bad} failed` : ''}`,
    );
  }
  console.log(`\n${SECONDS}s per scenario, ${CONNECTIONS} connections, 127.0.0.1; API: JWT auth (verified tokens cached), one API log line per request + one back-end line per transaction, to a file; in-process back-end over EBCDIC records; SQLite WAL synchronous=FULL`);
  console.log(rows.join('\n'));
  console.log(`server log: ${(statSync(logFile).size / 1e6).toFixed(1)} MB written during the run`);
} finally {
  for (const c of children) c.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 300));
  rmSync(dataDir, { recursive: true, force: true });
}
