import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

const BIN = join(import.meta.dirname, '../../bin/corebridge.ts');

function run(args: string[], input?: string) {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    input: input === undefined ? undefined : Buffer.from(input),
  });
  return { code: r.status, stdout: r.stdout.toString('utf8'), stderr: r.stderr.toString('utf8') };
}

const dir = mkdtempSync(join(tmpdir(), 'corebridge-cli-floats-'));
const cpy = join(dir, 'rate.cpy');
writeFileSync(
  cpy,
  [
    '       01  RATE-REC.',
    '           05  RT-CODE  PIC X.',
    '           05  RT-RATE  COMP-1 SYNC.',
    '           05  RT-PTR   POINTER.',
  ].join('\n'),
);
test.after(() => rmSync(dir, { recursive: true, force: true }));

test('copybook encode/decode: COMP-1 as HFP by default, as IEEE with --float-format, rounding with --float-rounding', () => {
  const hfp = run(['copybook', 'encode', cpy], '{"rtCode": "A", "rtRate": 1, "rtPtr": 16}');
  assert.equal(hfp.code, 0, hfp.stderr);
  assert.equal(hfp.stdout.trim(), 'c10000004110000000000010');
  const ieee = run(
    ['copybook', 'encode', cpy, '--profile', 'gnucobol', '--float-format', 'ieee-big', '--pointer-size', '4'],
    '{"rtCode": "A", "rtRate": 1, "rtPtr": 16}',
  );
  assert.equal(ieee.code, 0, ieee.stderr);
  assert.equal(ieee.stdout.trim(), '410000003f80000010000000');
  const refused = run(['copybook', 'encode', cpy], '{"rtRate": 0.1}');
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /rtRate: 0\.1 cannot be held exactly by a COMP-1/);
  const rounded = run(['copybook', 'encode', cpy, '--float-rounding', 'nearest'], '{"rtRate": 0.1}');
  assert.equal(rounded.stdout.trim(), '400000004019999a00000000');
  const decoded = run(['copybook', 'decode', cpy], 'c1000000c276a00000000010');
  assert.deepEqual(JSON.parse(decoded.stdout), { rtCode: 'A', rtRate: -118.625, rtPtr: 16 });
  const bad = run(['copybook', 'inspect', cpy, '--float-format', 'vax']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--float-format must be one of hfp, ieee-big, ieee-little/);
});

test('copybook inspect: slack rows and the profile line', () => {
  const r = run(['copybook', 'inspect', cpy]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^RATE-REC: 12 bytes; .*COMP-1\/COMP-2 hfp, 4-byte pointers, ibm SYNC/);
  assert.match(r.stdout, /\(slack\)\s+1\s+3\s+slack bytes \(LOW-VALUES\), not in JSON/);
  assert.match(r.stdout, /rtRate\s+05\s+RT-RATE\s+4\s+4\s+COMP-1 SYNC/);
  assert.match(r.stdout, /rtPtr\s+05\s+RT-PTR\s+8\s+4\s+POINTER/);
});
