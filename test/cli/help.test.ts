/** `--help` on every command: its usage on stdout, exit 0, and nothing done (no file written, no server started). */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

const COMMANDS: Array<{ args: string[]; usage: RegExp }> = [
  { args: ['bin/corebridge.ts', '--help'], usage: /^Usage: corebridge <command>/ },
  { args: ['bin/corebridge.ts', 'copybook', '--help'], usage: /^usage: corebridge copybook inspect/ },
  {
    args: ['bin/corebridge.ts', 'copybook', 'encode', 'x.cpy', '-h'],
    usage: /^usage: corebridge copybook inspect[\s\S]*--profile/,
  },
  { args: ['bin/corebridge.ts', 'services', 'check', '--help'], usage: /^usage: corebridge services check DIR/ },
  { args: ['bin/corebridge.ts', 'backend', 'serve', '--help'], usage: /^usage: corebridge backend serve/ },
  { args: ['bin/corebridge.ts', 'certs', '--help'], usage: /^usage: corebridge certs/ },
  { args: ['bin/corebridge.ts', 'webhooks', 'reencrypt', '--help'], usage: /^usage: corebridge webhooks reencrypt/ },
  { args: ['src/cli/token.ts', '--help'], usage: /^usage: npm run token -- <identity>/ },
  { args: ['src/cli/seed.ts', '--help'], usage: /^usage: npm run seed/ },
  { args: ['src/cli/contract-check.ts', '--help'], usage: /^usage: npm run contract:check/ },
  { args: ['src/cli/contract-update.ts', '--help'], usage: /^usage: npm run contract:update/ },
  { args: ['src/cli/records-types.ts', '--help'], usage: /^usage: npm run records:types/ },
  { args: ['scripts/crash-test.ts', '--help'], usage: /^usage: npm run test:crash/ },
  { args: ['scripts/fault-test.ts', '--help'], usage: /^usage: npm run test:faults/ },
  { args: ['scripts/image.ts', '--help'], usage: /^usage: npm run image/ },
  { args: ['scripts/container-test.ts', '--help'], usage: /^usage: npm run test:container/ },
  { args: ['scripts/stack/stack.ts', '--help'], usage: /^usage: npm run stack -- \[--api N\] \[--backend M\]/ },
];

for (const { args, usage } of COMMANDS) {
  test(`${args.join(' ')} prints its usage and exits 0`, (t) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'corebridge-help-'));
    t.after(() => rmSync(dataDir, { recursive: true, force: true }));
    const run = spawnSync(process.execPath, args, {
      env: { ...process.env, DATA_DIR: dataDir, PORT: '1' },
      encoding: 'utf8',
    });
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, usage);
    assert.equal(run.stderr, '');
    assert.deepEqual(readdirSync(dataDir), [], 'asking for help does nothing else');
  });
}

test('seed refuses arguments it does not take', () => {
  const run = spawnSync(process.execPath, ['src/cli/seed.ts', 'now'], { encoding: 'utf8' });
  assert.equal(run.status, 2);
  assert.match(run.stderr, /^seed: takes no arguments/);
});

// Scripts import commands directly (the bench and the stack: certs.ts): each must load on its own.
for (const module of ['backend', 'certs', 'services', 'webhooks', 'main']) {
  test(`src/cli/${module}.ts loads on its own, first in a process`, () => {
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', `await import('./src/cli/${module}.ts')`], {
      encoding: 'utf8',
    });
    assert.equal(run.status, 0, run.stderr);
  });
}
