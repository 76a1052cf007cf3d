import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ConfigError, loadConfig, readEnvFile } from '../src/config.ts';

test('defaults: port 8080, ./data, info, 24 h idempotency', () => {
  const c = loadConfig({});
  assert.equal(c.port, 8080);
  assert.equal(c.host, '0.0.0.0');
  assert.match(c.dataDir, /\/data$/);
  assert.equal(c.logLevel, 'info');
  assert.equal(c.idempotency.ttlSeconds, 86_400);
  assert.equal(c.auth.issuer, 'http://localhost:8080/oauth');
  const certs = join(c.dataDir, 'certs');
  assert.deepEqual(c.backend, {
    transport: 'worker',
    reads: 'api-thread',
    cobolPrograms: [],
    cobolSourceDir: null,
    cobolHosts: 2,
    cobolCallTimeoutMs: 2000,
    // Embedded unless BACKEND_URL names back-end services; then the development PKI's API certificate by default.
    urls: [],
    connections: 2,
    callTimeoutMs: 4000,
    // The embedded SQLite store unless DATABASE_URL names a PostgreSQL database.
    databaseUrl: null,
    databasePoolSize: 10,
    clientTls: { caFile: join(certs, 'ca.crt'), certFile: join(certs, 'api.crt'), keyFile: join(certs, 'api.key') },
  });
  assert.deepEqual(c.backendService, {
    host: '127.0.0.1',
    port: 7443,
    allowedClients: new Set(['corebridge-api']),
    apiClients: new Set(['corebridge-api']),
    tls: { caFile: join(certs, 'ca.crt'), certFile: join(certs, 'backend.crt'), keyFile: join(certs, 'backend.key') },
  });
  // Programs in COBOL: names of linked programs, in any case, once each.
  assert.deepEqual(loadConfig({ PROGRAMS_COBOL: 'lndecide, LNDECIDE' }).backend.cobolPrograms, ['LNDECIDE']);
});

test('back-end services: several URLs, TLS files set for both roles, the allowlist and the listen address', () => {
  const c = loadConfig({
    BACKEND_URL: 'tls://10.0.0.5:7443, tls://backend-2.internal:7443 tls://[::1]:7443',
    BACKEND_TLS_CA: '/pki/ca.pem',
    BACKEND_TLS_CERT: '/pki/me.pem',
    BACKEND_TLS_KEY: '/pki/me.key',
    BACKEND_ALLOWED_CLIENTS: 'api-1.internal,api-2.internal',
    BACKEND_API_CLIENTS: 'api-1.internal,api-2.internal',
    BACKEND_LISTEN: '[::]:9443',
    BACKEND_CONNECTIONS: '4',
    BACKEND_CALL_TIMEOUT_MS: '1500',
  });
  assert.deepEqual(c.backend.urls, ['tls://10.0.0.5:7443', 'tls://backend-2.internal:7443', 'tls://[::1]:7443']);
  const files = { caFile: '/pki/ca.pem', certFile: '/pki/me.pem', keyFile: '/pki/me.key' };
  assert.deepEqual(c.backend.clientTls, files);
  assert.deepEqual(c.backendService.tls, files);
  assert.deepEqual([...c.backendService.allowedClients], ['api-1.internal', 'api-2.internal']);
  assert.deepEqual([c.backendService.host, c.backendService.port], ['::', 9443]);
  assert.deepEqual([c.backend.connections, c.backend.callTimeoutMs], [4, 1500]);
});

test('PostgreSQL: DATABASE_URL and the pool size', () => {
  const c = loadConfig({
    DATABASE_URL: 'postgresql://corebridge@db.internal:5432/corebridge',
    DATABASE_POOL_SIZE: '25',
  });
  assert.deepEqual(
    [c.backend.databaseUrl, c.backend.databasePoolSize],
    ['postgresql://corebridge@db.internal:5432/corebridge', 25],
  );
});

test('an invalid value stops startup with a message naming the variable', () => {
  const bad: Array<[Record<string, string>, string]> = [
    [{ PORT: 'eighty' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ BACKEND_TRANSPORT: 'tcp' }, 'BACKEND_TRANSPORT'],
    [{ BACKEND_READS: 'anywhere' }, 'BACKEND_READS'],
    [{ PROGRAMS_COBOL: 'LNDECIDE,PAYCRT' }, 'PROGRAMS_COBOL'],
    [{ COBOL_HOSTS: '0' }, 'COBOL_HOSTS'],
    [{ IDEMPOTENCY_TTL_SECONDS: '5' }, 'IDEMPOTENCY_TTL_SECONDS'],
    [{ AUTH_ISSUER: 'not a url' }, 'AUTH_ISSUER'],
    [{ BACKEND_URL: 'https://backend:7443' }, 'BACKEND_URL'],
    [{ BACKEND_URL: 'tls://backend' }, 'BACKEND_URL'],
    [{ BACKEND_URL: 'tls://backend:7443/path' }, 'BACKEND_URL'],
    [{ BACKEND_TLS_CERT: '/pki/me.pem' }, 'BACKEND_TLS_KEY'],
    [{ BACKEND_LISTEN: '7443' }, 'BACKEND_LISTEN'],
    [{ BACKEND_CONNECTIONS: '0' }, 'BACKEND_CONNECTIONS'],
    [{ DATABASE_URL: 'mysql://db/corebridge' }, 'DATABASE_URL'],
    [{ DATABASE_URL: 'postgres://db:5432' }, 'DATABASE_URL'],
    [{ DATABASE_URL: 'corebridge' }, 'DATABASE_URL'],
    [{ DATABASE_POOL_SIZE: '0' }, 'DATABASE_POOL_SIZE'],
  ];
  for (const [env, name] of bad) {
    assert.throws(
      () => loadConfig(env),
      (e: unknown) => e instanceof ConfigError && e.variable === name && e.message.includes(name),
    );
  }
});

test('.env values are read without overriding the environment', () => {
  const dir = mkdtempSync(join(tmpdir(), 'corebridge-env-'));
  try {
    const file = join(dir, '.env');
    writeFileSync(file, 'PORT=9090\n# comment\nLOG_LEVEL=debug\n');
    const env = { ...readEnvFile(file), LOG_LEVEL: 'warn' };
    const c = loadConfig(env);
    assert.equal(c.port, 9090);
    assert.equal(c.logLevel, 'warn');
    assert.deepEqual(readEnvFile(join(dir, 'missing.env')), {});
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the startup configuration log shows every setting as it is, masking only secrets (credentials in URLs)', async () => {
  const { effectiveConfig } = await import('../src/logging/effective-config.ts');
  const config = loadConfig({
    AUTH_ACCESS_TOKEN_TTL_SECONDS: '420',
    AUTH_TOKEN_CACHE_SIZE: '1234',
    CORS_CREDENTIALS: 'true',
    CORS_ORIGINS: 'https://shop.example',
    REDIS_URL: 'redis://default:redis-pa55@127.0.0.1:6379/0',
    DATABASE_URL: 'postgres://corebridge:db-pa55@127.0.0.1:5432/corebridge',
    BROKER_URL: 'amqp://events:broker-pa55@127.0.0.1:5672',
  });
  const shown = effectiveConfig(config) as {
    auth: Record<string, unknown>;
    protection: { cors: Record<string, unknown>; rateLimit: Record<string, unknown> };
    backend: Record<string, unknown>;
    events: Record<string, unknown>;
  };
  // Names that merely contain "token" or "credential" are not secrets.
  assert.equal(shown.auth['accessTokenTtlSeconds'], 420);
  assert.equal(shown.auth['tokenCacheSize'], 1234);
  assert.equal(shown.protection.cors['credentials'], true);
  // Passwords inside URLs are.
  assert.equal(shown.protection.rateLimit['redisUrl'], 'redis://[masked]@127.0.0.1:6379/0');
  assert.equal(shown.backend['databaseUrl'], 'postgres://[masked]@127.0.0.1:5432/corebridge');
  assert.equal(shown.events['brokerUrl'], 'amqp://[masked]@127.0.0.1:5672');
  assert.doesNotMatch(JSON.stringify(shown), /pa55/);
});
