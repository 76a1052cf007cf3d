/** server.ts as a process: starts from the environment, serves, stops cleanly on SIGTERM; bad config exits 2. */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { freePort } from '../support/free-port.ts';

test('npm start: serves on PORT with DATA_DIR, and SIGTERM closes gracefully with exit 0', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'corebridge-server-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  const port = await freePort();
  const child = spawn(process.execPath, ['src/server.ts'], {
    // No metrics listener: the default port may be another server's on this machine.
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
      METRICS_PORT: '0',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  t.after(() => child.kill('SIGKILL'));

  let ready = false;
  for (let i = 0; i < 100 && !ready; i++) {
    try {
      ready = (await fetch(`http://127.0.0.1:${port}/health/ready`)).ok;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  assert.ok(ready, 'server became ready');
  const jwks = (await (await fetch(`http://127.0.0.1:${port}/.well-known/jwks.json`)).json()) as { keys: unknown[] };
  assert.equal(jwks.keys.length, 1);

  child.kill('SIGTERM');
  assert.equal(await exited, 0);
  const lines = out
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  assert.ok(lines.some((l) => l['msg'] === 'corebridge listening'));
  assert.equal(lines.at(-1)?.['msg'], 'stopped');
});

test('an invalid variable stops startup with a message naming it', () => {
  const run = spawnSync(process.execPath, ['src/server.ts'], {
    env: { ...process.env, PORT: 'eighty' },
    encoding: 'utf8',
  });
  assert.equal(run.status, 2);
  assert.match(run.stderr, /PORT must be a whole number/);
});
