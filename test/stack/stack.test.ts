/**
 * `npm run stack` as a user runs it: the real API instances and back-end service behind HAProxy, on the
 * local PostgreSQL and Redis; its refusal to start without HAProxy; and its absence from the product's command.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { Agent, fetch as undiciFetch } from 'undici';
import { startStack } from '../../scripts/stack/run.ts';
import { until } from '../../src/until.ts';

const ROOT = join(import.meta.dirname, '..', '..');

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

test('the stack serves through HAProxy from both API instances, and Ctrl-C stops HAProxy too', async (t) => {
  const stack = await startStack({ apis: 2, backends: 1, env: { LOG_LEVEL: 'info' } });
  t.after(() => stack.cleanup());
  const dir = join(stack.dataDir, 'stack');
  const state = JSON.parse(readFileSync(join(dir, 'stack.json'), 'utf8')) as {
    front: { pid: number; config: string };
  };
  assert.equal(state.front.config, join(dir, 'haproxy.cfg'));
  assert.match(readFileSync(state.front.config, 'utf8'), /option httpchk GET \/health\/ready/);
  assert.equal(readFileSync(`/proc/${state.front.pid}/comm`, 'utf8').trim(), 'haproxy');

  for (let i = 0; i < 6; i++) {
    const res = await fetch(`${stack.base}/v1/accounts/1001-01/balance`, {
      headers: { ...stack.auth, 'x-request-id': `through-haproxy-${i}` },
    });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('x-request-id'), `through-haproxy-${i}`);
  }
  // Both instances answered some of them (each logs the requests it served).
  for (const name of ['api-1', 'api-2']) {
    const log = readFileSync(join(dir, `${name}.log`), 'utf8');
    assert.match(log, /"requestId":"through-haproxy-\d"/, `${name} served none`);
  }

  // A client on 127.0.0.2: HAProxy names it in X-Forwarded-For, and the API (TRUST_PROXY=127.0.0.1) believes it.
  const elsewhere = new Agent({ localAddress: '127.0.0.2' });
  t.after(() => elsewhere.close());
  const res = await undiciFetch(`${stack.base}/v1/accounts/1001-01/balance`, {
    headers: { ...stack.auth, 'x-request-id': 'from-127-0-0-2' },
    dispatcher: elsewhere,
  });
  assert.equal(res.status, 200);
  // The instance writes its request line after answering: read the logs until it is there.
  let line: string | undefined;
  await until('the request line in an instance log', () => {
    const lines = ['api-1', 'api-2'].flatMap((name) => readFileSync(join(dir, `${name}.log`), 'utf8').split('\n'));
    line = lines.find((l) => l.includes('"requestId":"from-127-0-0-2"') && l.includes('"status"'));
    return line !== undefined;
  });
  assert.match(line!, /"client":"127\.0\.0\.2"/, 'the request line names the client behind HAProxy');

  assert.equal(await stack.stop(), 0);
  assert.equal(alive(state.front.pid), false, 'HAProxy stopped with the stack');
});

test('without HAProxy on PATH the stack stops at once, naming the Debian package', () => {
  const run = spawnSync(process.execPath, ['scripts/stack/stack.ts', '--api', '2', '--backend', '2'], {
    cwd: ROOT,
    env: { ...process.env, PATH: '/nonexistent', DATA_DIR: '/nonexistent/corebridge' },
    encoding: 'utf8',
    timeout: 30_000,
  });
  assert.equal(run.status, 1);
  assert.equal(run.stdout, '');
  const lines = run.stderr.trimEnd().split('\n');
  assert.equal(lines.length, 1, run.stderr);
  assert.match(lines[0]!, /^stack: .*HAProxy.*not on PATH.*Debian package haproxy/);
  assert.equal(existsSync('/nonexistent/corebridge'), false);
});

test('the corebridge command does not offer the stack: a development tool, not the product', () => {
  const run = spawnSync(process.execPath, ['bin/corebridge.ts', 'stack'], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(run.status, 2);
  assert.match(run.stderr, /^corebridge: unknown command "stack"/);
  const help = spawnSync(process.execPath, ['bin/corebridge.ts', '--help'], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(help.status, 0);
  assert.doesNotMatch(help.stdout, /^\s+stack\b/m);
});
