import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ConfigError, loadConfig, readEnvFile } from '../../src/config.ts';

test('defaults: port 8080, ./data, info, 24 h idempotency', () => {
  const c = loadConfig({});
  assert.equal(c.port, 8080);
  assert.equal(c.host, '0.0.0.0');
  assert.match(c.dataDir, /\/data$/);
  assert.equal(c.logLevel, 'info');
  assert.equal(c.idempotency.ttlSeconds, 86_400);
  assert.equal(c.auth.issuer, 'http://localhost:8080/oauth');
  assert.deepEqual(c.backend, {
    transport: 'worker', reads: 'api-thread', cobolPrograms: [], cobolSourceDir: null, cobolHosts: 2, cobolCallTimeoutMs: 2000,
  });
  // Programs in COBOL: names of linked programs, in any case, once each.
  assert.deepEqual(loadConfig({ PROGRAMS_COBOL: 'lndecide, LNDECIDE' }).backend.cobolPrograms, ['LNDECIDE']);
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
  ];
  for (const [env, name] of bad) {
    assert.throws(() => loadConfig(env), (e: unknown) => e instanceof ConfigError && e.variable === name && e.message.includes(name));
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
