/**
 * TLS and mutual TLS. A throwaway CA and certificates are made with openssl in a
 * temporary directory for each run and deleted afterwards; no key is committed.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { listenMutualTls } from '../../../src/api/protection/tls.ts';
import { loadConfig } from '../../../src/config.ts';
import { startApp } from '../../helpers/app.ts';
import { until } from '../../../src/until.ts';

interface Pki {
  dir: string;
  file(name: string): string;
}

function openssl(dir: string, ...args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
}

/** A CA, a server certificate for 127.0.0.1/localhost, and client certificates signed by it. */
function makePki(t: TestContext): Pki {
  const dir = mkdtempSync(join(tmpdir(), 'corebridge-pki-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const ca = (name: string) => {
    openssl(
      dir,
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-days',
      '1',
      '-subj',
      `/CN=${name}`,
      '-keyout',
      `${name}.key`,
      '-out',
      `${name}.crt`,
    );
  };
  const leaf = (name: string, issuer: string, cn: string, san: string, usage: string) => {
    writeFileSync(join(dir, `${name}.ext`), `subjectAltName=${san}\nextendedKeyUsage=${usage}\n`);
    openssl(
      dir,
      'req',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-subj',
      `/CN=${cn}`,
      '-keyout',
      `${name}.key`,
      '-out',
      `${name}.csr`,
    );
    openssl(
      dir,
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      `${issuer}.crt`,
      '-CAkey',
      `${issuer}.key`,
      '-CAcreateserial',
      '-days',
      '1',
      '-extfile',
      `${name}.ext`,
      '-out',
      `${name}.crt`,
    );
  };
  ca('test-ca');
  ca('rogue-ca');
  leaf('server', 'test-ca', 'localhost', 'DNS:localhost,IP:127.0.0.1', 'serverAuth');
  leaf('billing', 'test-ca', 'billing.internal', 'DNS:billing.internal', 'clientAuth');
  leaf('shop', 'test-ca', 'some-other-name', 'DNS:shop-gateway.internal', 'clientAuth');
  leaf('stranger', 'test-ca', 'stranger.internal', 'DNS:stranger.internal', 'clientAuth');
  leaf('rogue', 'rogue-ca', 'billing.internal', 'DNS:billing.internal', 'clientAuth');
  // The subject CN of a registered client, but no SAN entry that is: allowlists match SAN entries only.
  leaf('cn-only', 'test-ca', 'billing.internal', 'DNS:unlisted.internal', 'clientAuth');
  return { dir, file: (name) => join(dir, name) };
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function get(
  port: number,
  path: string,
  pki: Pki,
  client?: string,
  headers: Record<string, string> = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'GET',
        agent: false,
        headers,
        ca: readFileSync(pki.file('test-ca.crt')),
        ...(client
          ? { cert: readFileSync(pki.file(`${client}.crt`)), key: readFileSync(pki.file(`${client}.key`)) }
          : {}),
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          body += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.setTimeout(5000, () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end();
  });
}

test('HTTPS from TLS_CERT_FILE/TLS_KEY_FILE, with HSTS; plain HTTP gets no HSTS', async (t) => {
  const pki = makePki(t);
  const h = await startApp(t, { TLS_CERT_FILE: pki.file('server.crt'), TLS_KEY_FILE: pki.file('server.key') });
  await h.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = h.app.server.address() as AddressInfo;
  const res = await get(port, '/health/live', pki);
  assert.equal(res.status, 200);
  assert.deepEqual(JSON.parse(res.body), { status: 'ok' });
  assert.equal(res.headers['strict-transport-security'], 'max-age=31536000; includeSubDomains');
  assert.equal(res.headers['x-content-type-options'], 'nosniff');

  const token = await h.token('ada');
  const customer = await get(port, '/v1/customers/1001', pki, undefined, { authorization: `Bearer ${token}` });
  assert.equal(customer.status, 200);
  assert.equal(JSON.parse(customer.body).customerId, '1001');
  // The main listener does not ask for client certificates: without a token it is 401.
  assert.equal((await get(port, '/v1/customers/1001', pki, 'billing')).status, 401);
});

async function mutualSetup(t: TestContext) {
  const pki = makePki(t);
  const h = await startApp(t, {
    TLS_CERT_FILE: pki.file('server.crt'),
    TLS_KEY_FILE: pki.file('server.key'),
    MTLS_PORT: '0',
    MTLS_CA_FILE: pki.file('test-ca.crt'),
    MTLS_CLIENTS: 'billing.internal=billing-service:agent,shop-gateway.internal=acme-shop:partner',
  });
  const tls = h.config.protection.tls!;
  const server: Server = await listenMutualTls(h.app, tls, { host: '127.0.0.1', limits: h.config.protection.limits });
  t.after(() => {
    server.close();
    server.closeAllConnections();
  });
  return { pki, h, port: (server.address() as AddressInfo).port };
}

test('mutual TLS: a registered client certificate is the credential; its subject maps to a principal and role', async (t) => {
  const { pki, h, port } = await mutualSetup(t);
  const res = await get(port, '/v1/customers/1001', pki, 'billing');
  assert.equal(res.status, 200, res.body);
  assert.equal(JSON.parse(res.body).customerId, '1001');
  assert.equal(res.headers['strict-transport-security'], 'max-age=31536000; includeSubDomains');
  // The request's line is written once the response has left, which the client may see first.
  const completed = () => h.logs.find((l) => l['msg'] === 'request completed' && l['url'] === '/v1/customers/1001');
  await until("the request's log line", () => completed() !== undefined, 5_000);
  assert.equal(completed()?.['principal'], 'billing-service');

  // Matched by a SAN entry; the partner role has no accounts:read scope.
  const shop = await get(port, '/v1/accounts/1001-01/balance', pki, 'shop');
  assert.equal(shop.status, 403);
  assert.equal(JSON.parse(shop.body).code, 'INSUFFICIENT_SCOPE');
  assert.equal((await get(port, '/v1/customers/1001', pki, 'shop')).status, 200);
});

test('mutual TLS: missing, foreign-CA and unregistered client certificates are refused', async (t) => {
  const { pki, port } = await mutualSetup(t);
  await assert.rejects(get(port, '/health/live', pki), 'no client certificate: the handshake fails');
  await assert.rejects(get(port, '/health/live', pki, 'rogue'), 'a certificate from another CA: the handshake fails');
  const stranger = await get(port, '/v1/customers/1001', pki, 'stranger');
  assert.equal(stranger.status, 403);
  assert.match(String(stranger.headers['content-type']), /^application\/problem\+json/);
  const problem = JSON.parse(stranger.body) as Record<string, unknown>;
  assert.equal(problem['code'], 'FORBIDDEN');
  assert.equal(problem['detail'], 'the client certificate is not registered');
});

test('mutual TLS: a certificate whose subject CN, but no SAN entry, is registered is refused', async (t) => {
  const { pki, port } = await mutualSetup(t);
  const res = await get(port, '/v1/customers/1001', pki, 'cn-only');
  assert.equal(res.status, 403);
  assert.equal((JSON.parse(res.body) as Record<string, unknown>)['detail'], 'the client certificate is not registered');
});

test('TLS variables are checked at startup', () => {
  assert.throws(() => loadConfig({ TLS_CERT_FILE: '/x.crt' }), /TLS_KEY_FILE/);
  assert.throws(() => loadConfig({ MTLS_PORT: '8443' }), /MTLS_PORT/);
  assert.throws(() => loadConfig({ TLS_CERT_FILE: '/x', TLS_KEY_FILE: '/y', MTLS_PORT: '8443' }), /MTLS_CA_FILE/);
  assert.throws(
    () => loadConfig({ TLS_CERT_FILE: '/x', TLS_KEY_FILE: '/y', MTLS_PORT: '8443', MTLS_CA_FILE: '/z' }),
    /MTLS_CLIENTS/,
  );
  assert.throws(
    () =>
      loadConfig({
        TLS_CERT_FILE: '/x',
        TLS_KEY_FILE: '/y',
        MTLS_PORT: '8443',
        MTLS_CA_FILE: '/z',
        MTLS_CLIENTS: 'a=b:customer',
      }),
    /MTLS_CLIENTS/,
  );
  const tls = loadConfig({
    TLS_CERT_FILE: '/x',
    TLS_KEY_FILE: '/y',
    MTLS_PORT: '8443',
    MTLS_CA_FILE: '/z',
    MTLS_CLIENTS: 'svc.internal=svc:agent',
  }).protection.tls;
  assert.deepEqual(tls?.mutual?.clients.get('svc.internal'), { subject: 'svc', role: 'agent' });
  assert.equal(loadConfig({}).protection.tls, null);
});
