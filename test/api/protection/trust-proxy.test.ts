/**
 * TRUST_PROXY over real HTTP: behind a trusted proxy each client named by X-Forwarded-For has its own allowance;
 * the header is ignored from any other peer, and entirely without the setting. Peers are told apart by binding
 * the client socket to 127.0.0.1 (the proxy) or 127.0.0.2 (a caller reaching the API directly).
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { loadConfig } from '../../../src/config.ts';
import { startApp, type TestApp } from '../../helpers/app.ts';

// A route without a token under the public per-address limit (health probes are not counted).
const PUBLIC_ROUTE = '/openapi.json';

interface Answer {
  status: number;
  problem: { code?: string } | null;
}

function get(port: number, from: string, forwardedFor?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: PUBLIC_ROUTE,
        localAddress: from,
        headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor },
        agent: false,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => {
          const problem = res.headers['content-type']?.startsWith('application/problem+json') ? JSON.parse(body) : null;
          resolve({ status: res.statusCode ?? 0, problem });
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

async function listening(h: TestApp): Promise<number> {
  await h.app.listen({ host: '127.0.0.1', port: 0 });
  return (h.app.server.address() as AddressInfo).port;
}

const PROXY = '127.0.0.1';
const DIRECT = '127.0.0.2';

test('behind a trusted proxy one client is limited while another is not; an untrusted peer cannot choose its address', async (t) => {
  const h = await startApp(t, { TRUST_PROXY: PROXY, RATE_LIMIT_PUBLIC_MAX: '2' }, { singleInstance: true });
  const port = await listening(h);

  assert.equal((await get(port, PROXY, '203.0.113.7')).status, 200);
  assert.equal((await get(port, PROXY, '203.0.113.7')).status, 200);
  const limited = await get(port, PROXY, '203.0.113.7');
  assert.equal(limited.status, 429);
  assert.equal(limited.problem?.code, 'RATE_LIMITED');
  // Another client behind the same proxy has its own allowance.
  assert.equal((await get(port, PROXY, '203.0.113.8')).status, 200);
  // A value the client wrote itself, before the proxy appended the address it saw, changes nothing.
  assert.equal((await get(port, PROXY, '198.51.100.99, 203.0.113.7')).status, 429);

  // A peer that is not the proxy is counted by its own address, whatever header it sends.
  assert.equal((await get(port, DIRECT, '192.0.2.1')).status, 200);
  assert.equal((await get(port, DIRECT, '192.0.2.2')).status, 200);
  assert.equal((await get(port, DIRECT, '192.0.2.3')).status, 429);
  assert.equal((await get(port, DIRECT)).status, 429);

  // The request log names the client the proxy saw.
  const lines = h.logs.filter((l) => l['msg'] === 'request completed' && l['url'] === PUBLIC_ROUTE);
  assert.ok(lines.some((l) => l['client'] === '203.0.113.8'));
  assert.ok(lines.some((l) => l['client'] === DIRECT));
  assert.equal(
    lines.some((l) => String(l['client']).startsWith('192.0.2.')),
    false,
    'an untrusted header reached the log',
  );
});

test('without TRUST_PROXY X-Forwarded-For is ignored: every client behind the proxy shares its allowance', async (t) => {
  const h = await startApp(t, { RATE_LIMIT_PUBLIC_MAX: '2' }, { singleInstance: true });
  const port = await listening(h);
  assert.equal((await get(port, PROXY, '203.0.113.7')).status, 200);
  assert.equal((await get(port, PROXY, '203.0.113.8')).status, 200);
  assert.equal((await get(port, PROXY, '203.0.113.9')).status, 429);
  assert.ok(h.logs.some((l) => l['msg'] === 'request completed' && l['client'] === PROXY));
});

test('TRUST_PROXY takes addresses, ranges and proxy-addr names; anything else stops startup naming it', () => {
  assert.deepEqual(loadConfig({}).protection.rateLimit.trustProxy, []);
  assert.deepEqual(
    loadConfig({ TRUST_PROXY: '127.0.0.1, 10.0.0.0/8,fd00::/8 ,Loopback,linklocal,uniquelocal' }).protection.rateLimit
      .trustProxy,
    ['127.0.0.1', '10.0.0.0/8', 'fd00::/8', 'loopback', 'linklocal', 'uniquelocal'],
  );
  for (const value of ['true', '*', '2', '10.0.0.0/33', 'fd00::/129', 'proxy.example.com', '10.0.0.1/8/1']) {
    assert.throws(() => loadConfig({ TRUST_PROXY: value }), /TRUST_PROXY/, value);
  }
});
