/** `corebridge hash-password`: the secret from stdin only, a scrypt hash on stdout that checks against it. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { verifyPassword } from '../../src/auth/password-hash.ts';

function run(args: string[], input: string) {
  return spawnSync(process.execPath, ['bin/corebridge.ts', 'hash-password', ...args], { input, encoding: 'utf8' });
}

test('hash-password reads one line from stdin and prints a hash that the secret matches', async () => {
  const secret = 'a long passphrase, typed once';
  const out = run([], `${secret}\n`);
  assert.equal(out.status, 0, out.stderr);
  const hash = out.stdout.trim();
  assert.match(hash, /^\$scrypt\$ln=17,r=8,p=1\$/);
  assert.ok(!out.stdout.includes(secret) && !out.stderr.includes(secret), 'the secret is not echoed');
  assert.equal(await verifyPassword(hash, secret), true, 'the newline is not part of the secret');
  assert.equal(await verifyPassword(hash, `${secret}\n`), false);
});

test('hash-password refuses a secret on the command line, a short one and several lines, exit 2', () => {
  const onArgv = run(['hunter2hunter2'], '');
  assert.equal(onArgv.status, 2);
  assert.match(onArgv.stderr, /^corebridge: takes no arguments: give the secret on stdin/);
  assert.equal(onArgv.stdout, '');
  const short = run([], 'short\n');
  assert.equal(short.status, 2);
  assert.match(short.stderr, /at least 8 characters/);
  assert.equal(run([], 'first line\nsecond line\n').status, 2);
  const help = spawnSync(process.execPath, ['bin/corebridge.ts', 'hash-password', '--help'], { encoding: 'utf8' });
  assert.equal(help.status, 0);
  assert.match(help.stdout, /^usage: corebridge hash-password/);
});
