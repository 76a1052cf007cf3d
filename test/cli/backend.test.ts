/**
 * As a new user runs them: `npm run certs`, then `npm run backend` and `npm start` with BACKEND_URL, as
 * real processes; a request goes through both, and each stops cleanly on SIGTERM.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { freePort } from '../../support/free-port.ts';
import { startProcess as start } from '../helpers/processes.ts';
import { until } from '../../src/until.ts';

function corebridge(args: string[], env: Record<string, string>) {
  return spawnSync(process.execPath, ['bin/corebridge.ts', ...args], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
  });
}

function tempDir(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'corebridge-cli-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('corebridge certs: a CA, a back-end and an API certificate, owner-only; no silent overwrite; more from the same CA', (t) => {
  const dataDir = tempDir(t);
  const made = corebridge(['certs'], { DATA_DIR: dataDir });
  assert.equal(made.status, 0, made.stderr);
  const dir = join(dataDir, 'certs');
  assert.deepEqual(readdirSync(dir).sort(), ['api.crt', 'api.key', 'backend.crt', 'backend.key', 'ca.crt', 'ca.key']);
  assert.equal(statSync(dir).mode & 0o777, 0o700);
  for (const file of readdirSync(dir)) assert.equal(statSync(join(dir, file)).mode & 0o777, 0o600, file);

  const ca = new X509Certificate(readFileSync(join(dir, 'ca.crt')));
  const backend = new X509Certificate(readFileSync(join(dir, 'backend.crt')));
  const api = new X509Certificate(readFileSync(join(dir, 'api.crt')));
  assert.equal(ca.ca, true);
  assert.ok(backend.verify(ca.publicKey) && api.verify(ca.publicKey));
  assert.equal(backend.checkHost('localhost'), 'localhost');
  assert.equal(backend.checkIP('127.0.0.1'), '127.0.0.1');
  assert.match(api.subject, /CN=corebridge-api/);
  // The back-end's allowlists match SAN entries only: the API certificate carries its name there.
  assert.equal(api.subjectAltName, 'DNS:corebridge-api');
  assert.deepEqual(backend.keyUsage, ['1.3.6.1.5.5.7.3.1']); // serverAuth
  assert.deepEqual(api.keyUsage, ['1.3.6.1.5.5.7.3.2']); // clientAuth

  const again = corebridge(['certs'], { DATA_DIR: dataDir });
  assert.equal(again.status, 1);
  assert.match(again.stderr, /already holds certificates; --force/);
  assert.equal(readFileSync(join(dir, 'ca.crt'), 'utf8'), ca.toString());

  const issued = corebridge(['certs', '--issue', 'api-2.internal', '--usage', 'client'], { DATA_DIR: dataDir });
  assert.equal(issued.status, 0, issued.stderr);
  const second = new X509Certificate(readFileSync(join(dir, 'api-2.internal.crt')));
  assert.ok(second.verify(ca.publicKey));
  assert.match(second.subject, /CN=api-2.internal/);
  assert.equal(second.subjectAltName, 'DNS:api-2.internal');

  const bad = corebridge(['certs', '--issue', 'x'], { DATA_DIR: dataDir });
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /--usage client or --usage server/);
});

test('npm run backend + npm start with BACKEND_URL: a request goes through both; SIGTERM stops each with exit 0', async (t) => {
  const dataDir = tempDir(t);
  assert.equal(corebridge(['certs'], { DATA_DIR: dataDir }).status, 0);
  const [backendPort, apiPort] = [await freePort(), await freePort()];
  const backend = start(t, ['bin/corebridge.ts', 'backend', 'serve'], {
    DATA_DIR: dataDir,
    BACKEND_LISTEN: `127.0.0.1:${backendPort}`,
    LOG_LEVEL: 'info',
  });
  await until('the back-end service listening', () =>
    backend.lines.some((l) => l['msg'] === 'back-end service listening'),
  );

  // The API on its own DATA_DIR (its identity files, idempotency records), with the certificates of the first.
  const apiDir = tempDir(t);
  const tlsEnv = {
    BACKEND_TLS_CA: join(dataDir, 'certs/ca.crt'),
    BACKEND_TLS_CERT: join(dataDir, 'certs/api.crt'),
    BACKEND_TLS_KEY: join(dataDir, 'certs/api.key'),
  };
  const apiEnv = {
    DATA_DIR: apiDir,
    PORT: String(apiPort),
    HOST: '127.0.0.1',
    BACKEND_URL: `tls://127.0.0.1:${backendPort}`,
    LOG_LEVEL: 'info',
    // The default metrics port may be another server's on this machine, which would stop this one.
    METRICS_PORT: '0',
    ...tlsEnv,
  };
  const api = start(t, ['src/server.ts'], apiEnv);
  const origin = `http://127.0.0.1:${apiPort}`;
  await until('the API ready', async () => (await fetch(`${origin}/health/ready`).catch(() => null))?.ok === true);
  assert.ok(!readdirSync(apiDir).includes('backend.sqlite'), 'the API opened no back-end store of its own');

  const issued = spawnSync(process.execPath, ['src/cli/token.ts', 'clerk'], {
    env: { ...process.env, ...apiEnv },
    encoding: 'utf8',
  });
  assert.equal(issued.status, 0, issued.stderr);
  const headers = { authorization: `Bearer ${issued.stdout.trim()}` };
  const res = await fetch(`${origin}/v1/accounts/1002-01/balance`, { headers });
  assert.equal(res.status, 200);
  assert.equal(((await res.json()) as { account: string }).account, '1002-01');
  assert.ok(
    backend.lines.some(
      (l) => l['msg'] === 'back-end client connected' && l['client'] === 'corebridge-api' && l['api'] === true,
    ),
  );

  backend.child.kill('SIGTERM');
  assert.equal(await backend.exited, 0, backend.stderr());
  assert.equal(backend.lines.at(-1)?.['msg'], 'stopped');
  const away = await fetch(`${origin}/v1/accounts/1002-01/balance`, { headers });
  assert.equal(away.status, 503);
  assert.equal(away.headers.get('retry-after'), '1');
  assert.match(String(away.headers.get('content-type')), /application\/problem\+json/);

  api.child.kill('SIGTERM');
  assert.equal(await api.exited, 0, api.stderr());
});

test('backend serve without certificates, or on a port in use: a message and a non-zero exit', async (t) => {
  const dataDir = tempDir(t);
  const missing = corebridge(['backend', 'serve'], { DATA_DIR: dataDir });
  assert.equal(missing.status, 2);
  assert.match(
    missing.stderr,
    /BACKEND_TLS_CA names a file that cannot be read: .*ca\.crt \(make development certificates with `npm run certs`/,
  );

  assert.equal(corebridge(['certs'], { DATA_DIR: dataDir }).status, 0);
  const taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  t.after(() => taken.close());
  const port = (taken.address() as { port: number }).port;
  const busy = corebridge(['backend', 'serve'], {
    DATA_DIR: dataDir,
    BACKEND_LISTEN: `127.0.0.1:${port}`,
    LOG_LEVEL: 'silent',
  });
  assert.equal(busy.status, 1);
  assert.match(busy.stderr, new RegExp(`BACKEND_LISTEN: 127.0.0.1:${port} is already in use`));
});
