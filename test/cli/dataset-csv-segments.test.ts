/**
 * `corebridge dataset decode --format csv` and `--segments FILE.json`, run as a user runs them: files in, files
 * out, the CSV read back by Python's csv module, segmented files encoded back to the same bytes.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

const BIN = join(import.meta.dirname, '../../bin/corebridge.ts');

function run(args: string[]) {
  const r = spawnSync(process.execPath, [BIN, 'dataset', ...args]);
  return { code: r.status, stdout: r.stdout.toString('utf8'), stderr: r.stderr.toString('utf8') };
}

const dir = mkdtempSync(join(tmpdir(), 'corebridge-dataset-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));
const at = (name: string) => join(dir, name);
const fixed = (...lines: string[]) => `${lines.map((l) => `       ${l}`).join('\n')}\n`;
const text = (s: string, n: number) => Buffer.from(s.padEnd(n, ' '), 'latin1');
const rdw = (body: Buffer) => Buffer.concat([Buffer.from([0, body.length + 4, 0, 0]), body]);

writeFileSync(
  at('item.cpy'),
  fixed(
    '01 ITEM.',
    '   05 IT-NAME PIC X(8).',
    '   05 IT-PRICE PIC S9(3)V99.',
    '   05 IT-N PIC 9.',
    '   05 IT-TAG PIC X(3) OCCURS 0 TO 2 DEPENDING ON IT-N.',
  ),
);
// ASCII zoned: 12.50 is 01250, -0.99 is 0009y (GnuCOBOL's negative 9)
writeFileSync(
  at('items.dat'),
  Buffer.concat([
    rdw(Buffer.concat([text('a,"b"', 8), Buffer.from('012502'), text('X', 3), text('Y,Z', 3)])),
    rdw(Buffer.concat([text('plain', 8), Buffer.from('0009y0')])),
  ]),
);

writeFileSync(
  at('bank.cpy'),
  fixed(
    '01 CUSTOMER-REC.',
    '   05 CUST-SEG-ID PIC X.',
    '   05 CUST-NAME PIC X(10).',
    '01 ACCOUNT-REC.',
    '   05 ACCT-SEG-ID PIC X.',
    '   05 ACCT-NO PIC X(4).',
    '   05 ACCT-BAL PIC S9(5)V99 COMP-3.',
  ),
);
const SEGMENTS = { field: 'CUST-SEG-ID', segments: { C: 'CUSTOMER-REC', A: 'ACCOUNT-REC' } };
writeFileSync(at('flat.json'), JSON.stringify(SEGMENTS));
writeFileSync(at('nested.json'), JSON.stringify({ ...SEGMENTS, children: { 'ACCOUNT-REC': 'CUSTOMER-REC' } }));
const customer = (name: string) => rdw(Buffer.concat([text('C', 1), text(name, 10)]));
const account = (no: string, packed: number[]) => rdw(Buffer.concat([text('A', 1), text(no, 4), Buffer.from(packed)]));
const BANK = Buffer.concat([
  customer('ANNA'),
  account('0001', [0x00, 0x12, 0x34, 0x5c]),
  account('0002', [0x00, 0x00, 0x10, 0x0d]),
  customer('BOB'),
]);
writeFileSync(at('bank.dat'), BANK);
const GNU = ['--profile', 'gnucobol', '--recfm', 'V', '--quiet'];

function pythonReads(csv: string): string[][] {
  const script = 'import csv,sys,json; print(json.dumps(list(csv.reader(sys.stdin, strict=True))))';
  const r = spawnSync('python3', ['-c', script], { input: csv });
  assert.equal(r.status, 0, r.stderr.toString());
  return JSON.parse(r.stdout.toString()) as string[][];
}

test('decode --format csv writes a header from the layout and a quoted line a record', () => {
  const r = run(['decode', at('item.cpy'), '--input', at('items.dat'), '--format', 'csv', ...GNU]);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(pythonReads(r.stdout), [
    ['itName', 'itPrice', 'itN', 'itTag_1', 'itTag_2'],
    ['a,"b"', '12.5', '2', 'X', 'Y,Z'],
    ['plain', '-0.99', '0', '', ''],
  ]);
  assert.equal(r.stdout.split('\r\n')[1], '"a,""b""",12.5,2,X,"Y,Z"');
});

test('--segments: decode keyed by record, to JSON Lines and CSV; encode gives the file back', () => {
  const out = at('bank.jsonl');
  const r = run([
    'decode',
    at('bank.cpy'),
    '--segments',
    at('flat.json'),
    '--input',
    at('bank.dat'),
    '--output',
    out,
    ...GNU,
  ]);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(
    readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l)),
    [
      { customerRec: { custSegId: 'C', custName: 'ANNA' } },
      { accountRec: { acctSegId: 'A', acctNo: '0001', acctBal: 123.45 } },
      { accountRec: { acctSegId: 'A', acctNo: '0002', acctBal: -1 } },
      { customerRec: { custSegId: 'C', custName: 'BOB' } },
    ],
  );
  const back = at('bank-flat.dat');
  const e = run(['encode', at('bank.cpy'), '--segments', at('flat.json'), '--input', out, '--output', back, ...GNU]);
  assert.equal(e.code, 0, e.stderr);
  assert.deepEqual(readFileSync(back), BANK);
  const csv = run([
    'decode',
    at('bank.cpy'),
    '--segments',
    at('flat.json'),
    '--input',
    at('bank.dat'),
    '--format',
    'csv',
    ...GNU,
  ]);
  assert.equal(csv.code, 0, csv.stderr);
  assert.deepEqual(pythonReads(csv.stdout).slice(0, 3), [
    [
      'customerRec_custSegId',
      'customerRec_custName',
      'accountRec_acctSegId',
      'accountRec_acctNo',
      'accountRec_acctBal',
    ],
    ['C', 'ANNA', '', '', ''],
    ['', '', 'A', '0001', '123.45'],
  ]);
});

test('--segments with children: each customer with its accounts on one line, and back to the same bytes', () => {
  const out = at('bank-nested.jsonl');
  const r = run([
    'decode',
    at('bank.cpy'),
    '--segments',
    at('nested.json'),
    '--input',
    at('bank.dat'),
    '--output',
    out,
    ...GNU,
  ]);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(
    readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l)),
    [
      {
        customerRec: {
          custSegId: 'C',
          custName: 'ANNA',
          accountRec: [
            { acctSegId: 'A', acctNo: '0001', acctBal: 123.45 },
            { acctSegId: 'A', acctNo: '0002', acctBal: -1 },
          ],
        },
      },
      { customerRec: { custSegId: 'C', custName: 'BOB' } },
    ],
  );
  const back = at('bank-nested.dat');
  const e = run(['encode', at('bank.cpy'), '--segments', at('nested.json'), '--input', out, '--output', back, ...GNU]);
  assert.equal(e.code, 0, e.stderr);
  assert.deepEqual(readFileSync(back), BANK);
  const csv = run([
    'decode',
    at('bank.cpy'),
    '--segments',
    at('nested.json'),
    '--input',
    at('bank.dat'),
    '--format',
    'csv',
    ...GNU,
  ]);
  assert.equal(csv.code, 2);
  assert.equal(csv.stderr, 'corebridge: --format csv takes flat records: a segments file without "children"\n');
});

test('--segments: an unknown id stops decode naming record, offset, field and value; a bad file names its key', () => {
  writeFileSync(at('unknown.dat'), Buffer.concat([customer('ANNA'), rdw(text('Q', 8))]));
  const r = run(['decode', at('bank.cpy'), '--segments', at('flat.json'), '--input', at('unknown.dat'), ...GNU]);
  assert.equal(r.code, 1);
  assert.match(
    r.stderr,
    /^corebridge: record 2 at byte 15 \(CUST-SEG-ID\): segment id "Q" is not in the segments file \("C", "A"\)/,
  );
  writeFileSync(at('bad.json'), JSON.stringify({ ...SEGMENTS, children: { 'ACCOUNT-REC': 'BRANCH-REC' } }));
  const b = run(['decode', at('bank.cpy'), '--segments', at('bad.json'), '--input', at('bank.dat'), ...GNU]);
  assert.equal(b.code, 1);
  assert.equal(
    b.stderr,
    `corebridge: ${at('bad.json')}: segments "children.ACCOUNT-REC": the parent BRANCH-REC is not a record named in "segments"\n`,
  );
});
