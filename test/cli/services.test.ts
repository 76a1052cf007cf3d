import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { EXAMPLE_SERVICES, editedExample } from '../helpers/services.ts';

const BIN = join(import.meta.dirname, '../../bin/corebridge.ts');

function run(args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('services check: one line per service, or the file and JSON pointer of the mistake with exit 1', () => {
  const ok = run(['services', 'check', EXAMPLE_SERVICES]);
  assert.equal(ok.code, 0, ok.stderr);
  assert.equal(
    ok.stdout,
    'POST /v1/customers/{customerId}/payment-method-checks  program PMVERIFY  PM-VERIFY-REQUEST → PM-VERIFY-RESULT  scope customers:read  roles customer,agent  ownership customer-in-request\n',
  );
  const dir = editedExample((s) => {
    s['outcomes'][0]['status'] = 404;
  });
  try {
    const bad = run(['services', 'check', dir]);
    assert.equal(bad.code, 1);
    assert.equal(bad.stdout, '');
    assert.match(
      bad.stderr,
      /^corebridge: .*payment-method-check\.json: \/outcomes\/0: status 404 needs an error code\n$/,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const usage = run(['services']);
  assert.equal(usage.code, 2);
  assert.match(usage.stderr, /usage: corebridge services check DIR/);
});
