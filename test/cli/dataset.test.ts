import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { DuckDBInstance } from '@duckdb/node-api';

const BIN = join(import.meta.dirname, '../../bin/corebridge.ts');

/** Runs the real command in a child process, as a user would. */
function run(args: string[], input?: string | Buffer) {
  const r = spawnSync(process.execPath, [BIN, 'dataset', ...args], { input: input ?? '' });
  return { code: r.status, stdout: r.stdout.toString('utf8'), stderr: r.stderr.toString('utf8'), raw: r.stdout };
}

const dir = mkdtempSync(join(tmpdir(), 'corebridge-dataset-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));
const at = (name: string) => join(dir, name);

writeFileSync(
  at('account.cpy'),
  [
    '       01  ACCOUNT.',
    '           05  ACC-ID        PIC 9(6).',
    '           05  ACC-NAME      PIC X(10).',
    '           05  ACC-BALANCE   PIC S9(9)V99 COMP-3.',
    '           05  FILLER        PIC X(2).',
    '           05  ACC-N         PIC 9.',
    '           05  ACC-TXN OCCURS 0 TO 3 DEPENDING ON ACC-N.',
    '               10  TXN-AMT   PIC S9(5)V99 COMP-3.',
  ].join('\n'),
);

const accounts = [
  { accId: 1, accName: 'ADA', accBalance: 1250.75, accN: 0, accTxn: [] },
  { accId: 2, accName: 'GRACE', accBalance: -3.5, accN: 2, accTxn: [{ txnAmt: 10 }, { txnAmt: -0.01 }] },
  { accId: 3, accName: 'Müller', accBalance: '123456789.01', accN: 1, accTxn: [{ txnAmt: 99999.99 }] },
];
const jsonl = accounts.map((a) => JSON.stringify(a)).join('\n') + '\n';
const decoded = accounts.map((a) => ({ ...a, accBalance: Number(a.accBalance) }));
const lines = (s: string) =>
  s
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l));

test('encode writes V records from JSON Lines; decode gives the values back; encode again gives the same bytes', () => {
  writeFileSync(at('in.jsonl'), jsonl);
  const encoded = run([
    'encode',
    at('account.cpy'),
    '--input',
    at('in.jsonl'),
    '--output',
    at('acc.v'),
    '--recfm',
    'V',
  ]);
  assert.equal(encoded.code, 0, encoded.stderr);
  assert.equal(encoded.stderr, 'encoded 3 records\n');
  const file = readFileSync(at('acc.v'));
  // RDWs: 4 + 25 bytes with no transactions, then 4 + 25 + 2 × 4
  assert.deepEqual([file.readUInt16BE(0), file.readUInt16BE(29), file.length], [29, 37, 29 + 37 + 33]);
  assert.equal(file.subarray(4, 10).toString('hex'), 'f0f0f0f0f0f1', 'zoned digits in EBCDIC (the zos profile)');

  const back = run(['decode', at('account.cpy'), '--input', at('acc.v'), '--recfm', 'v']);
  assert.equal(back.code, 0, back.stderr);
  assert.deepEqual(lines(back.stdout), decoded);
  assert.equal(back.stderr, 'decoded 3 records\n');

  const again = run(['encode', at('account.cpy'), '--output', at('again.v'), '--recfm', 'V', '--quiet'], back.stdout);
  assert.equal(again.code, 0, again.stderr);
  assert.equal(again.stderr, '');
  assert.deepEqual(readFileSync(at('again.v')), file);
});

test('decode of a file in another record format fails on one line naming the record, offset and reason', () => {
  writeFileSync(at('in.jsonl'), jsonl);
  assert.equal(run(['encode', at('account.cpy'), '-i', at('in.jsonl'), '-o', at('acc.vb'), '--recfm', 'VB']).code, 0);
  const asV = run(['decode', at('account.cpy'), '--input', at('acc.vb'), '--recfm', 'V']);
  assert.equal(asV.code, 1);
  // the BDW reads as an RDW of the whole block, whose first bytes are the first record's RDW
  assert.equal(
    asV.stderr,
    'corebridge: record 1 at byte 0 (ACC-N): invalid digit 0x07 in a zoned decimal, at byte 28 (byte 24 of the record)\n',
  );
  assert.equal(asV.stderr.split('\n').length, 2, 'one line, no stack trace');
  const asF = run(['decode', at('account.cpy'), '--input', at('acc.vb')]);
  assert.equal(asF.code, 1);
  // the counter comes first: it sizes the record
  assert.equal(
    asF.stderr,
    'corebridge: record 1 at byte 0 (ACC-N): invalid digit 0x00 in a zoned decimal, at byte 24 (byte 24 of the record)\n',
  );
});

test('a bad record stops decode; --on-error skip or null goes on and reports each in --errors', () => {
  writeFileSync(at('in.jsonl'), jsonl);
  assert.equal(run(['encode', at('account.cpy'), '-i', at('in.jsonl'), '-o', at('acc.f')]).code, 0);
  const file = readFileSync(at('acc.f'));
  assert.equal(file.length, 3 * 37, 'F records at the layout’s longest, the unused table padded');
  const broken = Buffer.from(file);
  broken[37 + 16 + 2] = 0xaa; // record 2's balance (record bytes 16–21): digit nibbles of 10
  writeFileSync(at('broken.f'), broken);

  const failed = run(['decode', at('account.cpy'), '--input', at('broken.f'), '--output', at('out.jsonl')]);
  assert.equal(failed.code, 1);
  assert.match(
    failed.stderr,
    /^corebridge: record 2 at byte 37 \(ACC-BALANCE\): .+, at byte 55 \(byte 18 of the record\)\n$/,
  );
  assert.equal(existsSync(at('out.jsonl')), false, 'no output file after a failure');
  assert.deepEqual(
    readdirSync(dir).filter((f) => f.includes('partial')),
    [],
  );

  const skipped = run([
    'decode',
    at('account.cpy'),
    '--input',
    at('broken.f'),
    '--on-error',
    'skip',
    '--errors',
    at('errors.jsonl'),
  ]);
  assert.equal(skipped.code, 0, skipped.stderr);
  assert.deepEqual(
    lines(skipped.stdout).map((r) => r.accId),
    [1, 3],
  );
  assert.equal(skipped.stderr, 'decoded 2 records; 1 bad (left out)\n');
  const [report] = lines(readFileSync(at('errors.jsonl'), 'utf8'));
  assert.deepEqual(
    { ...report, reason: undefined },
    { record: 2, offset: 37, field: 'ACC-BALANCE', reason: undefined },
  );
  assert.match(report.reason, /at byte 55 \(byte 18 of the record\)$/);

  const nulled = run(['decode', at('account.cpy'), '--input', at('broken.f'), '--on-error', 'null']);
  assert.equal(nulled.code, 0, nulled.stderr);
  assert.deepEqual(
    lines(nulled.stdout).map((r) => r?.accId ?? null),
    [1, null, 3],
  );
  assert.match(nulled.stderr, /^decoded 3 records; 1 bad \(null\)\n {2}record 2 at byte 37 \(ACC-BALANCE\): /);
});

test('--skip and --limit choose records; --lrecl reads wider F records by the layout’s first bytes', () => {
  writeFileSync(at('in.jsonl'), jsonl);
  assert.equal(run(['encode', at('account.cpy'), '-i', at('in.jsonl'), '-o', at('acc.f')]).code, 0);
  const r = run(['decode', at('account.cpy'), '-i', at('acc.f'), '--skip', '1', '--limit', '1', '--quiet']);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(lines(r.stdout), [decoded[1]]);
  assert.equal(r.stderr, '');

  const fixed = join(dir, 'fixed.cpy');
  writeFileSync(fixed, '       01  R.\n           05  R-ID  PIC 9(3).\n           05  R-NAME  PIC X(5).\n');
  const wide = Buffer.from('F0F0F1C1C4C140404040F0F0F2C2D6C240404040', 'hex'); // 8-byte records in 10-byte slots
  writeFileSync(at('wide.f'), wide);
  const w = run(['decode', fixed, '-i', at('wide.f'), '--lrecl', '10', '-q']);
  assert.equal(w.code, 0, w.stderr);
  assert.deepEqual(lines(w.stdout), [
    { rId: 1, rName: 'ADA' },
    { rId: 2, rName: 'BOB' },
  ]);
});

test('encode: a line that is not JSON or does not fit names the line and path; nothing is written', () => {
  writeFileSync(at('bad.jsonl'), `${JSON.stringify(accounts[0])}\n\n{"accId": 2,\n`);
  let r = run(['encode', at('account.cpy'), '-i', at('bad.jsonl'), '-o', at('bad.out')]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /^corebridge: line 3: not JSON: /);
  writeFileSync(
    at('bad.jsonl'),
    `${JSON.stringify(accounts[0])}\n${JSON.stringify({ ...accounts[1], accName: 'FAR TOO LONG' })}\n`,
  );
  r = run(['encode', at('account.cpy'), '-i', at('bad.jsonl'), '-o', at('bad.out')]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /^corebridge: line 2 \(accName\): .+\n$/);
  assert.equal(existsSync(at('bad.out')), false);
});

test('wrong command lines exit 2 with the reason', () => {
  for (const [args, message] of [
    [['decode', at('account.cpy'), '--recfm', 'U'], /--recfm must be one of F, FB, V, VB \(got "U"\)/],
    [['decode', at('account.cpy'), '--lrecl', '0'], /--lrecl must be a whole number of at least 1/],
    [['decode', at('account.cpy'), '--rdw', 'little'], /--rdw applies to --recfm V and VB only/],
    [['decode', at('account.cpy'), '--errors', at('e.jsonl')], /--errors needs --on-error skip or null/],
    [['frobnicate', at('account.cpy')], /dataset needs decode or encode \(got "frobnicate"\)/],
    [['decode'], /dataset decode needs a copybook file/],
  ] as const) {
    const r = run([...args]);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, message);
  }
  const missing = run(['decode', at('account.cpy'), '--input', at('nope.dat')]);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /cannot read .*nope\.dat: no such file/);
});

test('--format parquet writes a file DuckDB reads as the same rows, with the decimals exact', async () => {
  writeFileSync(at('in.jsonl'), jsonl);
  assert.equal(run(['encode', at('account.cpy'), '-i', at('in.jsonl'), '-o', at('acc.v'), '--recfm', 'V']).code, 0);
  const r = run([
    'decode',
    at('account.cpy'),
    '-i',
    at('acc.v'),
    '--recfm',
    'V',
    '--format',
    'parquet',
    '-o',
    at('acc.parquet'),
  ]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, '');
  const duck = await (await DuckDBInstance.create(':memory:')).connect();
  try {
    const sql = `SELECT accId, accName, CAST(accBalance AS VARCHAR) AS balance, accN,
                        list_transform(accTxn, t -> CAST(t.txnAmt AS VARCHAR)) AS txns
                 FROM read_parquet('${at('acc.parquet')}') ORDER BY accId`;
    const rows = (await duck.runAndReadAll(sql)).getRowObjectsJson();
    assert.deepEqual(rows, [
      { accId: 1, accName: 'ADA', balance: '1250.75', accN: 0, txns: [] },
      { accId: 2, accName: 'GRACE', balance: '-3.50', accN: 2, txns: ['10.00', '-0.01'] },
      { accId: 3, accName: 'Müller', balance: '123456789.01', accN: 1, txns: ['99999.99'] },
    ]);
    const types = (await duck.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet('${at('acc.parquet')}')`))
      .getRowObjectsJson()
      .map((c) => `${c.column_name} ${c.column_type}`);
    assert.deepEqual(types, [
      'accId INTEGER',
      'accName VARCHAR',
      'accBalance DECIMAL(11,2)',
      'accN INTEGER',
      'accTxn STRUCT(txnAmt DECIMAL(7,2))[]',
    ]);
  } finally {
    duck.closeSync();
  }
});
