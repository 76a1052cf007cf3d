/**
 * Production mode's rules on a loaded configuration: each refusal names the setting to give, all are reported
 * together, nothing is refused outside production mode, and a complete production configuration passes.
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { ConfigError, loadConfig, type Env } from '../src/config.ts';
import { loadServingConfig, productionProblems, ProductionConfigError, type ProcessRole } from '../src/production.ts';
import { devPkiFiles } from '../src/tls/dev-files.ts';
import { createCertificateAuthority, createDevelopmentPki } from '../src/tls/dev-pki.ts';

/** A webhook keyring made per run: production mode refuses the generated development key. */
const KEYRING = { WEBHOOK_SECRET_KEY: `k1:${randomBytes(32).toString('base64')}` };
const EXTERNAL = {
  AUTH_EXTERNAL_ISSUER: 'https://login.example.com/realms/bank',
  AUTH_AUDIENCE: 'corebridge',
  ...KEYRING,
};

function dataDir(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'corebridge-production-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The settings production mode refuses, each with its message, for `env` under NODE_ENV=production. */
function refused(env: Env, role: ProcessRole = 'api'): Map<string, string> {
  const all = { NODE_ENV: 'production', ...env };
  return new Map(productionProblems(loadConfig(all), role, all).map((p) => [p.setting, p.message]));
}

/** Certificates from a CA of the operator's own (not the development PKI), written under `dir`. */
async function ownPki(dir: string) {
  const ca = await createCertificateAuthority({ commonName: 'Example Bank Issuing CA', days: 1 });
  const server = await ca.issue({ commonName: 'api.example.com', usage: 'server', dnsNames: ['localhost'], days: 1 });
  const client = await ca.issue({ commonName: 'api-client', usage: 'client', days: 1 });
  const files = {
    ca: join(dir, 'own-ca.crt'),
    serverCert: join(dir, 'own-server.crt'),
    serverKey: join(dir, 'own-server.key'),
    clientCert: join(dir, 'own-client.crt'),
    clientKey: join(dir, 'own-client.key'),
  };
  writeFileSync(files.ca, ca.cert);
  writeFileSync(files.serverCert, server.cert);
  writeFileSync(files.serverKey, server.key, { mode: 0o600 });
  writeFileSync(files.clientCert, client.cert);
  writeFileSync(files.clientKey, client.key, { mode: 0o600 });
  return files;
}

test('production mode is NODE_ENV=production, nothing else; outside it nothing is refused', () => {
  assert.equal(loadConfig({}).production, false);
  assert.equal(loadConfig({ NODE_ENV: 'development' }).production, false);
  assert.equal(loadConfig({ NODE_ENV: 'production' }).production, true);
  const demo = loadConfig({ DATABASE_URL: 'postgres://postgres:postgres@db/x', BACKEND_URL: 'tls://127.0.0.1:7443' });
  assert.deepEqual(productionProblems(demo, 'api', {}), []);
  assert.doesNotThrow(() => loadServingConfig({}, 'api'), 'the demo starts as it always did');
});

test('no other setting: the demo users and clients are refused, naming AUTH_ACCOUNTS_FILE and the external issuer', () => {
  const problems = refused({});
  assert.deepEqual([...problems.keys()], ['AUTH_ACCOUNTS_FILE', 'WEBHOOK_SECRET_KEY']);
  assert.match(problems.get('WEBHOOK_SECRET_KEY')!, /development key generated into DATA_DIR/);
  assert.match(problems.get('AUTH_ACCOUNTS_FILE')!, /demo users and clients are refused/);
  assert.match(problems.get('AUTH_ACCOUNTS_FILE')!, /AUTH_EXTERNAL_ISSUER/);
  assert.deepEqual([...refused(EXTERNAL).keys()], [], 'an external issuer instead');
  assert.deepEqual([...refused({ AUTH_ACCOUNTS_FILE: '/etc/corebridge/accounts.json', ...KEYRING }).keys()], []);
});

test('an http issuer is refused unless on loopback', () => {
  const external = refused({ ...EXTERNAL, AUTH_EXTERNAL_ISSUER: 'http://login.example.com/realms/bank' });
  assert.match(external.get('AUTH_EXTERNAL_ISSUER')!, /plain http on a network host: give an https: URL/);
  const embedded = refused({ AUTH_ACCOUNTS_FILE: '/a.json', AUTH_ISSUER: 'http://10.0.0.5:8080/oauth', ...KEYRING });
  assert.deepEqual([...embedded.keys()], ['AUTH_ISSUER']);
  for (const loopback of ['http://127.0.0.1:9000/realms/bank', 'http://localhost/realms/bank', 'http://[::1]:9/r']) {
    assert.deepEqual([...refused({ ...EXTERNAL, AUTH_EXTERNAL_ISSUER: loopback }).keys()], [], loopback);
  }
});

test("the back-end hop's certificates default to the development PKI: refused until given, for both roles", async (t) => {
  const dir = dataDir(t);
  const dev = devPkiFiles(dir);
  const api = refused({ ...EXTERNAL, DATA_DIR: dir, BACKEND_URL: 'tls://backend.internal:7443' });
  assert.deepEqual([...api.keys()], ['BACKEND_TLS_CA', 'BACKEND_TLS_CERT', 'BACKEND_TLS_KEY']);
  assert.match(
    api.get('BACKEND_TLS_CA')!,
    new RegExp(`^is unset, so the development PKI's ${dev.caCert} would be used`),
  );
  assert.match(api.get('BACKEND_TLS_CERT')!, /this API's client certificate/);
  assert.deepEqual([...refused({ ...EXTERNAL, DATA_DIR: dir }).keys()], [], 'the embedded back-end has no such hop');

  const backend = refused({ DATA_DIR: dir }, 'backend');
  assert.deepEqual([...backend.keys()], ['BACKEND_TLS_CA', 'BACKEND_TLS_CERT', 'BACKEND_TLS_KEY']);
  assert.match(backend.get('BACKEND_TLS_CERT')!, new RegExp(`${dev.backendCert}.*the back-end service's certificate`));

  const own = await ownPki(dir);
  const given = { BACKEND_TLS_CA: own.ca, BACKEND_TLS_CERT: own.clientCert, BACKEND_TLS_KEY: own.clientKey };
  assert.deepEqual([...refused({ ...EXTERNAL, DATA_DIR: dir, BACKEND_URL: 'tls://b:7443', ...given }).keys()], []);
});

test('a certificate of the development CA is refused wherever its file is, for TLS, mutual TLS and the back-end', async (t) => {
  const dir = dataDir(t);
  const pki = await createDevelopmentPki({ days: 1 });
  const copies = { ca: join(dir, 'copied-ca.pem'), cert: join(dir, 'copied.pem'), key: join(dir, 'copied.key') };
  writeFileSync(copies.ca, pki.ca.cert);
  writeFileSync(copies.cert, pki.backend.cert);
  writeFileSync(copies.key, pki.backend.key, { mode: 0o600 });
  const own = await ownPki(dir);
  const problems = refused({
    ...EXTERNAL,
    TLS_CERT_FILE: copies.cert,
    TLS_KEY_FILE: own.serverKey,
    MTLS_PORT: '8443',
    MTLS_CA_FILE: copies.ca,
    MTLS_CLIENTS: 'acme=acme:partner',
    BACKEND_URL: 'tls://b:7443',
    BACKEND_TLS_CA: own.ca,
    BACKEND_TLS_CERT: copies.cert,
    BACKEND_TLS_KEY: own.clientKey,
  });
  assert.deepEqual([...problems.keys()].sort(), ['BACKEND_TLS_CERT', 'MTLS_CA_FILE', 'TLS_CERT_FILE']);
  assert.match(problems.get('TLS_CERT_FILE')!, /comes from the development CA: give the server certificate/);
  assert.match(problems.get('MTLS_CA_FILE')!, /comes from the development CA/);

  // The operator's own files where the development PKI would be: given explicitly, they are theirs to use.
  const dev = devPkiFiles(dir);
  mkdirSync(dev.dir, { recursive: true });
  copyFileSync(own.ca, dev.caCert);
  copyFileSync(own.clientCert, dev.apiCert);
  copyFileSync(own.clientKey, dev.apiKey);
  const explicit = { BACKEND_TLS_CA: dev.caCert, BACKEND_TLS_CERT: dev.apiCert, BACKEND_TLS_KEY: dev.apiKey };
  assert.deepEqual([...refused({ ...EXTERNAL, DATA_DIR: dir, BACKEND_URL: 'tls://b:7443', ...explicit }).keys()], []);
});

test('example and default passwords are refused in every URL that holds credentials', () => {
  const problems = refused({
    ...EXTERNAL,
    DATABASE_URL: 'postgres://postgres:postgres@db.internal:5432/corebridge',
    REDIS_URL: 'redis://:changeme@redis.internal:6379',
    BROKER_URL: 'amqp://guest:guest@mq.internal:5672',
    OTEL_EXPORTER_OTLP_ENDPOINT: 'https://collector:password@otel.internal:4318',
  });
  assert.deepEqual([...problems.keys()].sort(), [
    'BROKER_URL',
    'DATABASE_URL',
    'OTEL_EXPORTER_OTLP_ENDPOINT',
    'REDIS_URL',
  ]);
  for (const message of problems.values()) assert.match(message, /example or default password: give the real/);
  const traces = refused({
    ...EXTERNAL,
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://otel:secret@otel.internal/v1/traces',
  });
  assert.deepEqual([...traces.keys()], ['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT']);
  const sameAsUser = refused({ ...EXTERNAL, DATABASE_URL: 'postgres://bank:bank@db/corebridge' });
  assert.ok(sameAsUser.has('DATABASE_URL'), 'a password equal to the user name');
  const noBrokerCredentials = refused({ ...EXTERNAL, BROKER_URL: 'amqp://mq.internal:5672' });
  assert.match(noBrokerCredentials.get('BROKER_URL')!, /guest:guest/);
  const real = refused({
    ...EXTERNAL,
    DATABASE_URL: 'postgres://corebridge:Xq9-long-Generated@db.internal/corebridge',
    REDIS_URL: 'rediss://:Ju7-also-Generated@redis.internal:6380',
    BROKER_URL: 'amqps://corebridge:Wp2-generated-Too@mq.internal:5671',
  });
  assert.deepEqual([...real.keys()], []);
});

test('every problem is reported at once, one line each naming its setting, as a ConfigError (exit 2)', (t) => {
  const dir = dataDir(t);
  const env = {
    NODE_ENV: 'production',
    DATA_DIR: dir,
    AUTH_ISSUER: 'http://api.example.com/oauth',
    BACKEND_URL: 'tls://b:7443',
    DATABASE_URL: 'postgres://postgres:password@db/x',
  };
  assert.throws(
    () => loadServingConfig(env, 'api'),
    (error: unknown) => {
      assert.ok(error instanceof ProductionConfigError && error instanceof ConfigError);
      const lines = error.message.split('\n');
      assert.match(lines[0]!, /^production mode \(NODE_ENV=production\) refuses this configuration; 7 to fix:$/);
      assert.deepEqual(
        lines.slice(1).map((line) => /^ {2}([A-Z_]+): /.exec(line)?.[1]),
        [
          'AUTH_ACCOUNTS_FILE',
          'WEBHOOK_SECRET_KEY',
          'AUTH_ISSUER',
          'BACKEND_TLS_CA',
          'BACKEND_TLS_CERT',
          'BACKEND_TLS_KEY',
          'DATABASE_URL',
        ],
      );
      return true;
    },
  );
});
