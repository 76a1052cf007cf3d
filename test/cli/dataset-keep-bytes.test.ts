import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { compileFromArgs } from '@corebridge/records/cli';
import { exactDecoder } from '@corebridge/records/dataset';

const BIN = join(import.meta.dirname, '../../bin/corebridge.ts');
const FIXTURES = join(import.meta.dirname, '../../records/test/fixtures/datasets/exact');

/** Runs the real command in a child process, as a user would. */
function run(args: string[], input?: string | Buffer) {
  const r = spawnSync(process.execPath, [BIN, 'dataset', ...args], { input: input ?? '' });
  return { code: r.status, stdout: r.stdout.toString('utf8'), stderr: r.stderr.toString('utf8'), raw: r.stdout };
}

const dir = mkdtempSync(join(tmpdir(), 'corebridge-keep-bytes-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));
const at = (name: string) => join(dir, name);

// z/OS: a FILLER, a signed COMP-3 and a signed zoned number
writeFileSync(
  at('item.cpy'),
  [
    '       01  ITEM.',
    '           05  ITEM-ID       PIC X(4).',
    '           05  FILLER        PIC X(4).',
    '           05  ITEM-PRICE    PIC S9(5)V99 COMP-3.',
    '           05  ITEM-QTY      PIC S9(3).',
  ].join('\n'),
);
const ebcdic = (s: string) => Buffer.from([...s].map((c) => ({ A: 0xc1, B: 0xc2, ' ': 0x40 })[c] ?? 0xf0 + Number(c)));
// record 1: FILLER of binary bytes, packed sign F, zoned sign F; record 2 as encode writes it
const file = Buffer.concat([
  ebcdic('AB12'),
  Buffer.from('00ff1234', 'hex'),
  Buffer.from('1234567f', 'hex'),
  Buffer.from('f0f1f2', 'hex'),
  ebcdic('BA21'),
  ebcdic('    '),
  Buffer.from('0000125c', 'hex'),
  Buffer.from('f0f0c7', 'hex'),
]);
writeFileSync(at('item.dat'), file);

test('decode --keep-bytes, then encode: the file byte for byte; without it, FILLER as spaces and sign nibbles C', () => {
  const kept = run(['decode', at('item.cpy'), '--input', at('item.dat'), '--keep-bytes', '--quiet']);
  assert.equal(kept.code, 0, kept.stderr);
  const lines = kept.stdout.trim().split('\n');
  assert.deepEqual(JSON.parse(lines[0]!), {
    itemId: 'AB12',
    itemPrice: 12345.67,
    itemQty: 12,
    '@bytes': [
      [4, '00ff1234', '40404040'],
      [11, '7ff0f1f2', '7cf0f1c2'],
    ],
  });
  assert.deepEqual(JSON.parse(lines[1]!), { itemId: 'BA21', itemPrice: 1.25, itemQty: 7 });
  writeFileSync(at('kept.jsonl'), kept.stdout);
  const back = run(['encode', at('item.cpy'), '--input', at('kept.jsonl'), '--output', at('back.dat')]);
  assert.equal(back.code, 0, back.stderr);
  assert.equal(back.stderr, 'encoded 2 records\n');
  assert.equal(readFileSync(at('back.dat')).toString('hex'), file.toString('hex'));

  const plain = run(['decode', at('item.cpy'), '--input', at('item.dat'), '--quiet']);
  assert.equal(plain.code, 0, plain.stderr);
  assert.ok(!plain.stdout.includes('@bytes'));
  const lossy = run(['encode', at('item.cpy')], plain.stdout);
  assert.equal(lossy.code, 0, lossy.stderr);
  assert.equal(lossy.raw.subarray(4, 15).toString('hex'), '404040401234567cf0f1c2');
  assert.equal(lossy.raw.subarray(15).toString('hex'), file.subarray(15).toString('hex'));
});

test('slot bytes past the record of an F file wider than the layout come back', () => {
  const wide = Buffer.concat([file.subarray(0, 15), Buffer.from('0000aa', 'hex'), file.subarray(15), Buffer.alloc(3)]);
  writeFileSync(at('wide.dat'), wide);
  const kept = run(['decode', at('item.cpy'), '--input', at('wide.dat'), '--lrecl', '18', '--keep-bytes', '--quiet']);
  assert.equal(kept.code, 0, kept.stderr);
  assert.deepEqual(JSON.parse(kept.stdout.split('\n')[0]!)['@bytes'].at(-1), [11, '7ff0f1f20000aa', '7cf0f1c2000000']);
  assert.ok(!kept.stdout.split('\n')[1]!.includes('@bytes'), 'x00 slack is what encode writes');
  const back = run(['encode', at('item.cpy'), '--lrecl', '18'], kept.stdout);
  assert.equal(back.code, 0, back.stderr);
  assert.equal(back.raw.toString('hex'), wide.toString('hex'));
});

test('the GnuCOBOL file with FILLER content comes back byte for byte through the CLI', () => {
  const fixture = JSON.parse(readFileSync(join(FIXTURES, 'fixed-filler-bytes.json'), 'utf8')) as {
    copybook: string[];
    file: { name: string };
  };
  writeFileSync(at('xb.cpy'), fixture.copybook.join('\n'));
  const data = join(FIXTURES, fixture.file.name);
  const flags = ['--profile', 'gnucobol', '--quiet'];
  const kept = run(['decode', at('xb.cpy'), '--input', data, '--keep-bytes', ...flags]);
  assert.equal(kept.code, 0, kept.stderr);
  const back = run(['encode', at('xb.cpy'), ...flags], kept.stdout);
  assert.equal(back.code, 0, back.stderr);
  assert.ok(back.raw.equals(readFileSync(data)), "encode gives cobc's bytes");
  const plain = run(['decode', at('xb.cpy'), '--input', data, ...flags]);
  const lossy = run(['encode', at('xb.cpy'), ...flags], plain.stdout);
  assert.equal(lossy.code, 0, lossy.stderr);
  assert.ok(!lossy.raw.equals(readFileSync(data)), 'without --keep-bytes the FILLER is lost');
});

test('a bad "@bytes" stops encode with the line and the key, and writes no file', () => {
  const good = JSON.stringify({ itemId: 'AB12', itemPrice: 1, itemQty: 1 });
  for (const [bytes, reason] of [
    [[[4, '0g']], /^corebridge: line 2 \(@bytes\[0\]\): the bytes must be hex digits, two a byte \(got "0g"\)\n$/],
    [
      [[15, '0000']],
      /^corebridge: line 2 \(@bytes\[0\]\): bytes 15–16 are outside the record: it holds at most 15 bytes\n$/,
    ],
    ['00ff', /^corebridge: line 2 \(@bytes\): an array of \[offset, "hex"\] or \[offset, "hex", "was"\] ranges\n$/],
  ] as const) {
    writeFileSync(at('bad.jsonl'), `${good}\n${JSON.stringify({ ...JSON.parse(good), '@bytes': bytes })}\n`);
    const r = run(['encode', at('item.cpy'), '--input', at('bad.jsonl'), '--output', at('bad.dat')]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, reason);
    assert.equal(existsSync(at('bad.dat')), false);
  }
});

test('--keep-bytes in worker threads: the same lines as one thread', async () => {
  const one = run(['decode', at('item.cpy'), '--input', at('item.dat'), '--keep-bytes', '--quiet']);
  assert.equal(one.code, 0, one.stderr);
  assert.ok(one.stdout.includes('"@bytes"'));
  const two = run(['decode', at('item.cpy'), '--input', at('item.dat'), '--keep-bytes', '--threads', '2', '--quiet']);
  assert.equal(two.code, 0, two.stderr);
  assert.equal(two.stdout, one.stdout);
  // a small file is decoded before a worker is ready: workers alone, one record a batch, take the same path
  const { decodeInThreads, noBytes } = await import('../../src/cli/dataset/parallel.ts');
  const decoder = exactDecoder(await compileFromArgs(at('item.cpy'), {}));
  const framing = { recfm: 'F' as const, lrecl: 15 };
  const options = { file: at('item.cpy'), args: {}, keepBytes: true, format: 'jsonl' as const, decoder, framing };
  const input = { path: at('item.dat'), start: 0, end: Infinity };
  let text = '';
  const workersOnly = { ...options, onError: 'fail' as const, threads: 2, decodeHere: false, batchBytes: 15, input };
  for await (const done of decodeInThreads(noBytes(), workersOnly)) {
    text += Buffer.from(done.text).toString('utf8');
  }
  assert.equal(text, one.stdout);
});

test('--keep-bytes: JSON Lines only, decode only', () => {
  for (const [args, message] of [
    [['decode', '--format', 'csv'], '--keep-bytes writes JSON Lines: encode reads those, not csv'],
    [
      ['decode', '--format', 'parquet', '--output', at('x.parquet')],
      '--keep-bytes writes JSON Lines: encode reads those, not parquet',
    ],
    [['encode'], '--keep-bytes applies to decode; encode writes a line\'s "@bytes" whenever it has one'],
  ] as const) {
    const [action, ...rest] = args;
    const r = run([action, at('item.cpy'), '--input', at('item.dat'), '--keep-bytes', ...rest]);
    assert.equal(r.code, 2, r.stderr);
    assert.equal(r.stderr.split('\n')[0], `corebridge: ${message}`);
  }
});
