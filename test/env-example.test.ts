/** `.env.example` lists every setting the configuration reads, and nothing it does not. */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ConfigError, loadConfig, type Env } from '../src/config.ts';

const listed = new Set([...readFileSync('.env.example', 'utf8').matchAll(/^# ([A-Z][A-Z0-9_]+)=/gm)].map((m) => m[1]!));

/** The names loadConfig asks for, whatever it then does with them. */
function settingsRead(env: Record<string, string>): Set<string> {
  const asked = new Set<string>();
  const recording = new Proxy(env, {
    get(target, name) {
      if (typeof name === 'string') asked.add(name);
      return target[name as string];
    },
  }) as Env;
  try {
    loadConfig(recording);
  } catch (error) {
    // A set-up that needs files this test has not written: the names read before the refusal still count.
    if (!(error instanceof ConfigError)) throw error;
  }
  return asked;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}

test('every setting the configuration reads is in .env.example', () => {
  // The defaults, and a set-up that switches on the optional parts (their own settings are read only then).
  const read = new Set([
    ...settingsRead({}),
    ...settingsRead({ BACKEND_URL: 'tls://127.0.0.1:7443' }),
    ...settingsRead({ REDIS_URL: 'redis://127.0.0.1:6379' }),
    ...settingsRead({ AUTH_EXTERNAL_ISSUER: 'https://login.example.com', AUTH_AUDIENCE: 'api' }),
    ...settingsRead({ MTLS_PORT: '8443', TLS_CERT_FILE: 'cert.pem', TLS_KEY_FILE: 'key.pem' }),
  ].filter((name) => /^[A-Z][A-Z0-9_]+$/.test(name)));
  const missing = [...read].filter((name) => !listed.has(name));
  assert.deepEqual(missing, [], 'settings read by src/config.ts but missing from .env.example');
});

test('every setting in .env.example is read somewhere in src/', () => {
  const source = sourceFiles('src').map((file) => readFileSync(file, 'utf8')).join('\n');
  // OTEL_* beyond the endpoint are read by the OpenTelemetry SDK itself.
  const unknown = [...listed].filter((name) => !source.includes(name) && !name.startsWith('OTEL_'));
  assert.deepEqual(unknown, [], 'listed in .env.example but read nowhere');
});
