/**
 * server.ts and `corebridge backend serve` as processes under NODE_ENV=production: with no other setting the API
 * refuses to start, exit 2, naming what to set and without a stack trace; with a complete production
 * configuration (an external issuer, HTTPS and the back-end over mutual TLS with certificates of an operator's own
 * CA; or the embedded provider with an accounts file) they start, leave the new store empty until the demo data is
 * loaded explicitly (npm run seed), and serve real requests.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { Agent, fetch as undiciFetch } from 'undici';
import { signingKeyFile } from '../src/auth/dev-issuer.ts';
import { hashPassword } from '../src/auth/password-hash.ts';
import { credentialsFile } from '../src/identity/credentials.ts';
import { createCertificateAuthority } from '../src/tls/dev-pki.ts';
import { freePort } from '../support/free-port.ts';
import { startFakeIssuer } from './helpers/fake-issuer.ts';

const AUDIENCE = 'https://api.bank.test';

/** The environment of a process started here: only what the test gives, so no setting of this machine leaks in. */
function baseEnv(): Record<string, string> {
  return { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', LOG_LEVEL: 'warn', METRICS_PORT: '0' };
}

/** A webhook keyring made per run, as an operator's secret store would give it. */
function webhookKeyring(): string {
  return `k1:${randomBytes(32).toString('base64')}`;
}

function tempDir(t: TestContext, name: string): string {
  const dir = mkdtempSync(join(tmpdir(), `corebridge-${name}-`));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('NODE_ENV=production with no other setting: exit 2, what to set on stderr, no stack trace, nothing written', (t) => {
  const dataDir = tempDir(t, 'production-bare');
  const run = spawnSync(process.execPath, ['src/server.ts'], {
    env: { ...baseEnv(), NODE_ENV: 'production', DATA_DIR: dataDir },
    encoding: 'utf8',
  });
  assert.equal(run.status, 2, run.stderr);
  assert.match(
    run.stderr,
    /^corebridge: production mode \(NODE_ENV=production\) refuses this configuration; 2 to fix:\n/,
  );
  assert.match(run.stderr, /^ {2}AUTH_ACCOUNTS_FILE: the demo users and clients are refused: .*AUTH_EXTERNAL_ISSUER/m);
  assert.match(run.stderr, /^ {2}WEBHOOK_SECRET_KEY: webhook signing secrets would be sealed with a development key/m);
  assert.doesNotMatch(run.stderr, /\n\s+at /, 'no stack trace');
  assert.equal(run.stdout, '');
  assert.deepEqual(readdirSync(dataDir), [], 'refused before any key, credential or store is made');
  assert.equal(existsSync(signingKeyFile(dataDir)), false);
});

test('corebridge backend serve under NODE_ENV=production refuses the development PKI, exit 2', (t) => {
  const dataDir = tempDir(t, 'production-backend');
  const run = spawnSync(process.execPath, ['bin/corebridge.ts', 'backend', 'serve'], {
    env: { ...baseEnv(), NODE_ENV: 'production', DATA_DIR: dataDir },
    encoding: 'utf8',
  });
  assert.equal(run.status, 2, run.stderr);
  for (const setting of ['BACKEND_TLS_CA', 'BACKEND_TLS_CERT', 'BACKEND_TLS_KEY']) {
    assert.match(run.stderr, new RegExp(`^ {2}${setting}: is unset, so the development PKI's`, 'm'));
  }
  assert.doesNotMatch(run.stderr, /\n\s+at /);
});

/** `npm run seed`: the explicit load of the demo data, which production mode never does by itself. */
function seedStore(env: Record<string, string>) {
  return spawnSync(process.execPath, ['src/cli/seed.ts'], { env, encoding: 'utf8' });
}

/** An OpenID issuer of the operator's (discovery and JWKS over loopback HTTP), its key made here. */
async function externalIssuer(t: TestContext): Promise<{ issuer: string; sign(claims: object): Promise<string> }> {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  const idp = await startFakeIssuer(t);
  idp.publish([{ ...(await exportJWK(publicKey)), kid: 'bank-1', alg: 'ES256', use: 'sig' }]);
  const issuer = idp.issuer;
  const key: CryptoKey = privateKey;
  return {
    issuer,
    sign: (claims) => {
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({ ...claims })
        .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: 'bank-1' })
        .setIssuer(issuer)
        .setAudience(AUDIENCE)
        .setSubject('ada')
        .setIssuedAt(now)
        .setExpirationTime(now + 300)
        .sign(key);
    },
  };
}

/** A process whose output is kept for the assertion messages; killed when the test ends. */
function startProcess(
  t: TestContext,
  args: string[],
  env: Record<string, string>,
): { child: ChildProcess; output(): string } {
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  t.after(() => {
    child.kill('SIGKILL');
  });
  return { child, output: () => output };
}

test('a complete production configuration starts: HTTPS, external issuer, back-end over mutual TLS; it serves', async (t) => {
  const dir = tempDir(t, 'production-full');
  // The operator's own CA: neither the development PKI's files nor its CA.
  const ca = await createCertificateAuthority({ commonName: 'Bank Issuing CA', days: 1 });
  const local = { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'], days: 1 };
  const certs = {
    api: await ca.issue({ commonName: 'api.bank.test', usage: 'server', ...local }),
    apiClient: await ca.issue({ commonName: 'bank-api', usage: 'client', dnsNames: ['bank-api'], days: 1 }),
    backend: await ca.issue({ commonName: 'backend.bank.test', usage: 'server', ...local }),
  };
  const file = (name: string, content: string) => {
    const path = join(dir, name);
    writeFileSync(path, content, { mode: 0o600 });
    return path;
  };
  const caFile = file('ca.crt', ca.cert);
  const idp = await externalIssuer(t);
  const backendPort = await freePort();
  const apiPort = await freePort();

  const backend = startProcess(t, ['bin/corebridge.ts', 'backend', 'serve'], {
    ...baseEnv(),
    NODE_ENV: 'production',
    DATA_DIR: join(dir, 'backend-data'),
    BACKEND_LISTEN: `127.0.0.1:${backendPort}`,
    BACKEND_TLS_CA: caFile,
    BACKEND_TLS_CERT: file('backend.crt', certs.backend.cert),
    BACKEND_TLS_KEY: file('backend.key', certs.backend.key),
    BACKEND_ALLOWED_CLIENTS: 'bank-api',
    BACKEND_API_CLIENTS: 'bank-api',
  });
  const api = startProcess(t, ['src/server.ts'], {
    ...baseEnv(),
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    PORT: String(apiPort),
    DATA_DIR: join(dir, 'api-data'),
    TLS_CERT_FILE: file('api.crt', certs.api.cert),
    TLS_KEY_FILE: file('api.key', certs.api.key),
    AUTH_EXTERNAL_ISSUER: idp.issuer,
    WEBHOOK_SECRET_KEY: webhookKeyring(),
    AUTH_AUDIENCE: AUDIENCE,
    BACKEND_URL: `tls://127.0.0.1:${backendPort}`,
    BACKEND_TLS_CA: caFile,
    BACKEND_TLS_CERT: file('api-client.crt', certs.apiClient.cert),
    BACKEND_TLS_KEY: file('api-client.key', certs.apiClient.key),
  });

  const dispatcher = new Agent({ connect: { ca: ca.cert } });
  t.after(() => dispatcher.close());
  const origin = `https://localhost:${apiPort}`;
  const call = (path: string, init: { method?: string; token?: string; body?: unknown; headers?: object } = {}) =>
    undiciFetch(`${origin}${path}`, {
      dispatcher,
      method: init.method ?? 'GET',
      headers: {
        ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
        ...(init.body ? { 'content-type': 'application/json' } : {}),
        ...init.headers,
      },
      ...(init.body ? { body: JSON.stringify(init.body) } : {}),
    });

  let ready = false;
  for (let i = 0; i < 200 && !ready; i++) {
    if (api.child.exitCode !== null || backend.child.exitCode !== null) break;
    try {
      ready = (await call('/health/ready')).ok;
    } catch {
      // not listening yet
    }
    if (!ready) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.ok(ready, `the API became ready over HTTPS\n--- api\n${api.output()}\n--- backend\n${backend.output()}`);
  assert.equal(existsSync(signingKeyFile(join(dir, 'api-data'))), false, 'no development signing key is made');
  assert.equal((await call('/oauth/.well-known/openid-configuration')).status, 404, 'no embedded provider');

  const token = await idp.sign({
    role: 'customer',
    customer_id: '1001',
    scope: 'customers:read orders:read orders:write accounts:read payments:write payments:read',
  });
  // Production mode loaded no demo data into the new store: the operator loads it, here while the service runs.
  assert.equal((await call('/v1/customers/1001', { token })).status, 404, 'no demo customer');
  const seeded = seedStore({ ...baseEnv(), NODE_ENV: 'production', DATA_DIR: join(dir, 'backend-data') });
  assert.equal(seeded.status, 0, seeded.stderr);
  assert.equal((await call('/v1/customers/1001', { token })).status, 200, 'the demo customer, once loaded');
  const created = await call('/v1/orders', {
    method: 'POST',
    token,
    body: { customerId: '1001', productId: 'P-100', quantity: 1 },
  });
  assert.equal(created.status, 201, await created.clone().text());
  const order = (await created.json()) as { orderId: string; status: string };
  assert.equal(order.status, 'CONFIRMED');
  const read = await call(`/v1/orders/${order.orderId}`, { token });
  assert.equal(read.status, 200);
  assert.equal(((await read.json()) as { orderId: string }).orderId, order.orderId);

  const payment = await call('/v1/payments', {
    method: 'POST',
    token,
    headers: { 'idempotency-key': 'production-payment-1' },
    body: { debtorAccount: '1001-01', creditorAccount: '1002-01', amount: 12.5, currency: 'EUR', reference: 'prod' },
  });
  assert.equal(payment.status, 201, await payment.clone().text());
  assert.equal(((await payment.json()) as { status: string }).status, 'COMPLETED');

  // A token the issuer did not sign is refused: 401 problem+json.
  const forged = await call('/v1/orders/' + order.orderId, { token: `${token.slice(0, -4)}AAAA` });
  assert.equal(forged.status, 401);
  assert.match(String(forged.headers.get('content-type')), /application\/problem\+json/);
  assert.equal(api.child.exitCode, null, 'still running');
});

test('production mode with the embedded provider and an accounts file: starts, serves its client, no demo credentials', async (t) => {
  const dir = tempDir(t, 'production-accounts');
  const secret = `s-${Math.random().toString(36).slice(2)}-${Date.now()}`;
  const accountsFile = join(dir, 'accounts.json');
  const secretHash = await hashPassword(secret, { ln: 14, r: 8, p: 1 });
  writeFileSync(
    accountsFile,
    JSON.stringify({ users: [], clients: [{ id: 'back-office', secretHash, role: 'agent' }] }),
  );
  const port = await freePort();
  const dataDir = join(dir, 'data');
  const env = {
    ...baseEnv(),
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    PORT: String(port),
    DATA_DIR: dataDir,
    AUTH_ISSUER: `http://127.0.0.1:${port}/oauth`,
    AUTH_ACCOUNTS_FILE: accountsFile,
    WEBHOOK_SECRET_KEY: webhookKeyring(),
  };
  // Production mode loads no demo data by itself: loaded explicitly before the start, as an operator would.
  const seeded = seedStore(env);
  assert.equal(seeded.status, 0, seeded.stderr);
  const api = startProcess(t, ['src/server.ts'], env);
  const origin = `http://127.0.0.1:${port}`;
  let ready = false;
  for (let i = 0; i < 200 && !ready && api.child.exitCode === null; i++) {
    ready = await fetch(`${origin}/health/ready`).then(
      (res) => res.ok,
      () => false,
    );
    if (!ready) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.ok(ready, `the API became ready\n${api.output()}`);
  assert.equal(existsSync(credentialsFile(dataDir)), false, 'no demo passwords or secrets are made');

  const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  const grant = (authorization: string) =>
    fetch(`${origin}/oauth/token`, {
      method: 'POST',
      headers: { authorization, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials&scope=customers%3Aread',
    });
  const granted = await grant(basic('back-office', secret));
  assert.equal(granted.status, 200, await granted.clone().text());
  const { access_token: token } = (await granted.json()) as { access_token: string };
  const customer = await fetch(`${origin}/v1/customers/1001`, { headers: { authorization: `Bearer ${token}` } });
  assert.equal(customer.status, 200);
  assert.equal(((await customer.json()) as { customerId: string }).customerId, '1001');
  assert.equal((await grant(basic('back-office', `${secret}x`))).status, 401, 'a wrong secret');
  assert.equal((await grant(basic('acme-shop', secret))).status, 401, 'no demo client');
});
