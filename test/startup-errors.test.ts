/**
 * server.ts when a listener cannot open: one line on stderr naming the setting to change, exit 1, and nothing left
 * serving (the API listener that had opened is closed with the rest). A path a setting names that cannot be used is
 * one line too, exit 2 as for any bad setting.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { accepts, freePort } from '../support/free-port.ts';
import { listenFailure } from '../src/listen-error.ts';

/** A port this test holds open, as another program would. */
async function occupied(t: TestContext): Promise<number> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => server.close());
  return (server.address() as { port: number }).port;
}

/** Runs server.ts to its end, or to its banner if it starts after all. */
async function run(t: TestContext, env: Record<string, string>) {
  const dataDir = mkdtempSync(join(tmpdir(), 'corebridge-startup-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  const child = spawn(process.execPath, ['src/server.ts'], {
    env: { ...process.env, HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'info', LOG_FORMAT: 'json', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  t.after(() => child.kill('SIGKILL'));
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => {
    stdout += d.toString();
    // Started after all: it would serve on, so it is stopped for the assertions to say so.
    if (stdout.includes('"corebridge ready"')) child.kill('SIGTERM');
  });
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const status = await new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  return { status, stdout, stderr };
}

test('a PORT another program holds: one line naming PORT, exit 1', async (t) => {
  const port = await occupied(t);
  const { status, stderr } = await run(t, { PORT: String(port), METRICS_PORT: '0' });
  assert.equal(status, 1);
  assert.equal(stderr, `corebridge: port ${port} is already in use — set PORT to another port\n`);
});

test('a METRICS_PORT another program holds: one line naming METRICS_PORT, exit 1, the API closed, no banner', async (t) => {
  const metricsPort = await occupied(t);
  const port = await freePort();
  const { status, stdout, stderr } = await run(t, { PORT: String(port), METRICS_PORT: String(metricsPort) });
  assert.equal(status, 1);
  assert.equal(
    stderr,
    `corebridge: port ${metricsPort} is already in use — set METRICS_PORT to another port (or 0 to turn the metrics off)\n`,
  );
  // The API had opened before the metrics listener failed: it is closed, not left serving without metrics.
  assert.equal(await accepts(port), false, 'nothing listens on PORT');
  assert.doesNotMatch(stdout, /corebridge ready|Metrics/, 'no banner claims the server is ready');
});

test('a HOST that is not an address of this machine: one line naming HOST, exit 1', async (t) => {
  // 198.51.100.0/24 is reserved for documentation (RFC 5737): not an address a machine is given.
  const { status, stderr } = await run(t, { HOST: '198.51.100.7', PORT: String(await freePort()), METRICS_PORT: '0' });
  assert.equal(status, 1);
  assert.equal(
    stderr,
    'corebridge: HOST=198.51.100.7 is not an address of this machine — set HOST to one of its addresses (127.0.0.1 for this machine only, 0.0.0.0 for every interface)\n',
  );
});

test('a DATA_DIR that cannot be made, a TLS_CERT_FILE that does not exist: one line naming the setting, exit 2', async (t) => {
  const port = String(await freePort());
  const notADirectory = join(fileURLToPath(import.meta.url), 'data');
  const data = await run(t, { DATA_DIR: notADirectory, PORT: port, METRICS_PORT: '0' });
  assert.equal(data.status, 2);
  assert.equal(
    data.stderr,
    `corebridge: DATA_DIR=${notADirectory}: not a directory (mkdir) — set DATA_DIR to a directory this user can write\n`,
  );
  const missing = join(tmpdir(), 'corebridge-no-such-certificate.crt');
  const tls = await run(t, { TLS_CERT_FILE: missing, TLS_KEY_FILE: missing, PORT: port, METRICS_PORT: '0' });
  assert.equal(tls.status, 2);
  assert.equal(
    tls.stderr,
    `corebridge: TLS_CERT_FILE=${missing}: no such file or directory (open) — set TLS_CERT_FILE to a file this user can read\n`,
  );
});

test('a privileged port and other listen failures name the setting; an error that is not one is left to its stack', () => {
  const target = { hostSetting: 'HOST', portSetting: 'PORT', host: '0.0.0.0', port: 80 };
  // What listen(2) answers a user without the privilege (this test may run as root, where the bind succeeds).
  const denied = Object.assign(new Error('listen EACCES: permission denied 0.0.0.0:80'), {
    code: 'EACCES',
    syscall: 'listen',
  });
  assert.equal(
    listenFailure(denied, target),
    'port 80 needs privileges this process does not have — set PORT to 1024 or above',
  );
  const unknown = Object.assign(new Error('listen EWHATEVER'), { code: 'EWHATEVER', syscall: 'listen' });
  assert.equal(listenFailure(unknown, target), 'cannot listen on 0.0.0.0:80 (EWHATEVER) — check HOST and PORT');
  assert.equal(listenFailure(new TypeError('a bug'), target), null);
});
