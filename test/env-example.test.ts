/** `.env.example` lists every setting the configuration reads and nothing else; it and docs/settings.md are current. */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { settingsFiles } from '../src/cli/config-docs.ts';
import { ConfigError, loadConfig, SETTINGS_SECTIONS, type Env } from '../src/config.ts';

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

/** The defaults, and set-ups that switch on the optional parts (their own settings are read only then). */
function settingsReadInAnySetUp(): Set<string> {
  return new Set(
    [
      ...settingsRead({}),
      ...settingsRead({ BACKEND_URL: 'tls://127.0.0.1:7443' }),
      ...settingsRead({ REDIS_URL: 'redis://127.0.0.1:6379' }),
      ...settingsRead({ AUTH_EXTERNAL_ISSUER: 'https://login.example.com', AUTH_AUDIENCE: 'api' }),
      ...settingsRead({ MTLS_PORT: '8443', TLS_CERT_FILE: 'cert.pem', TLS_KEY_FILE: 'key.pem' }),
      ...settingsRead({
        MTLS_PORT: '8443',
        TLS_CERT_FILE: 'cert.pem',
        TLS_KEY_FILE: 'key.pem',
        MTLS_CA_FILE: 'ca.pem',
      }),
      ...settingsRead({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }),
    ].filter((name) => /^[A-Z][A-Z0-9_]+$/.test(name)),
  );
}

test('every setting the configuration reads is in .env.example', () => {
  const read = settingsReadInAnySetUp();
  const missing = [...read].filter((name) => !listed.has(name));
  assert.deepEqual(missing, [], 'settings read by src/config.ts but missing from .env.example');
});

test('every setting in .env.example is read somewhere in src/', () => {
  const source = sourceFiles('src')
    .map((file) => readFileSync(file, 'utf8'))
    .join('\n');
  // OTEL_* beyond the endpoint are read by the OpenTelemetry SDK itself.
  const unknown = [...listed].filter((name) => !source.includes(name) && !name.startsWith('OTEL_'));
  assert.deepEqual(unknown, [], 'listed in .env.example but read nowhere');
});

test('every declared setting is read by the configuration', () => {
  const read = settingsReadInAnySetUp();
  const declared = SETTINGS_SECTIONS.flatMap((section) => Object.keys(section.settings));
  const unread = declared.filter((name) => !read.has(name));
  assert.deepEqual(unread, [], 'declared in a settings table but never read by loadConfig');
  assert.equal(new Set(declared).size, declared.length, 'a setting declared twice');
});

test('.env.example and docs/settings.md are as `npm run config:docs` writes them', () => {
  for (const [file, text] of settingsFiles()) {
    assert.equal(readFileSync(file, 'utf8'), text, `${file} is stale: run \`npm run config:docs\``);
  }
});
