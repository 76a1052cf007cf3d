/**
 * `corebridge dataset decode|encode|verify --segments FILE.json` where each segment names a copybook file of its
 * own (`{"copybook": "account.cpy"}`, beside the segments file), run as a user runs them: the file written here
 * byte by byte, decoded, encoded back to the same bytes, verified; and each way a segment's file fails.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { DuckDBInstance } from '@duckdb/node-api';

const BIN = join(import.meta.dirname, '../../bin/corebridge.ts');

function run(args: string[]) {
  const r = spawnSync(process.execPath, [BIN, 'dataset', ...args]);
  return { code: r.status, stdout: r.stdout.toString('utf8'), stderr: r.stderr.toString('utf8') };
}

const dir = mkdtempSync(join(tmpdir(), 'corebridge-segment-files-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));
const at = (name: string) => join(dir, name);
const fixed = (...lines: string[]) => `${lines.map((l) => `       ${l}`).join('\n')}\n`;
const text = (s: string, n: number) => Buffer.from(s.padEnd(n, ' '), 'latin1');
const rdw = (body: Buffer) => Buffer.concat([Buffer.from([0, body.length + 4, 0, 0]), body]);

// the copybooks sit in a folder of their own, with the segments files; the data and the command run elsewhere
mkdirSync(at('layouts'));
writeFileSync(
  at('layouts/customer.cpy'),
  fixed('01 CUSTOMER-SEG.', '   05 SEG-ID PIC X.', '   05 CUST-ID PIC 9(6).', '   05 CUST-NAME PIC X(12).'),
);
writeFileSync(
  at('layouts/account.cpy'),
  fixed(
    '01 ACCOUNT-SEG.',
    '   05 SEG-ID PIC X.',
    '   05 ACCT-NO PIC X(10).',
    '   05 ACCT-BALANCE PIC S9(9)V99 COMP-3.',
  ),
);
const SEGMENTS = {
  field: 'SEG-ID',
  segments: { C: { copybook: 'customer.cpy' }, A: { copybook: 'account.cpy', record: 'ACCOUNT-SEG' } },
};
writeFileSync(at('layouts/flat.json'), JSON.stringify(SEGMENTS));
writeFileSync(at('layouts/nested.json'), JSON.stringify({ ...SEGMENTS, children: { 'ACCOUNT-SEG': 'CUSTOMER-SEG' } }));

const customer = (id: string, name: string) => rdw(Buffer.concat([text('C', 1), text(id, 6), text(name, 12)]));
// ACCT-BALANCE is 11 digits packed in 6 bytes, by hand
const account = (no: string, packed: number[]) => rdw(Buffer.concat([text('A', 1), text(no, 10), Buffer.from(packed)]));
const FILE = Buffer.concat([
  customer('000001', 'ANNA'),
  account('PL00000001', [0x00, 0x00, 0x01, 0x25, 0x07, 0x5c]),
  account('PL00000002', [0x00, 0x00, 0x00, 0x00, 0x35, 0x0d]),
  customer('000002', 'JEAN'),
]);
writeFileSync(at('bank.v'), FILE);
const GNU = ['--profile', 'gnucobol', '--recfm', 'V', '--quiet'];

const ANNA = { segId: 'C', custId: 1, custName: 'ANNA' };
const JEAN = { segId: 'C', custId: 2, custName: 'JEAN' };
const ACCOUNTS = [
  { segId: 'A', acctNo: 'PL00000001', acctBalance: 1250.75 },
  { segId: 'A', acctNo: 'PL00000002', acctBalance: -3.5 },
];
const lines = (s: string) =>
  s
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as unknown);

test('two copybook files and no copybook argument: decode, encode back to the same bytes, verify', () => {
  const nested = run(['decode', '--segments', at('layouts/nested.json'), '--input', at('bank.v'), ...GNU]);
  assert.equal(nested.stderr, '');
  assert.equal(nested.code, 0);
  assert.deepEqual(lines(nested.stdout), [{ customerSeg: { ...ANNA, accountSeg: ACCOUNTS } }, { customerSeg: JEAN }]);
  writeFileSync(at('nested.jsonl'), nested.stdout);
  const back = ['--input', at('nested.jsonl'), '--output', at('nested.v'), ...GNU];
  const encoded = run(['encode', '--segments', at('layouts/nested.json'), ...back]);
  assert.equal(encoded.stderr, '');
  assert.equal(encoded.code, 0);
  assert.deepEqual(readFileSync(at('nested.v')), FILE);

  const flat = run(['decode', '--segments', at('layouts/flat.json'), '--input', at('bank.v'), ...GNU]);
  assert.equal(flat.code, 0);
  assert.deepEqual(lines(flat.stdout), [
    { customerSeg: ANNA },
    { accountSeg: ACCOUNTS[0] },
    { accountSeg: ACCOUNTS[1] },
    { customerSeg: JEAN },
  ]);
  writeFileSync(at('flat.jsonl'), flat.stdout);
  run(['encode', '--segments', at('layouts/flat.json'), '--input', at('flat.jsonl'), '--output', at('flat.v'), ...GNU]);
  assert.deepEqual(readFileSync(at('flat.v')), FILE);

  const verified = run(['verify', '--segments', at('layouts/flat.json'), '--input', at('bank.v'), ...GNU]);
  assert.equal(verified.code, 0);
  assert.equal(verified.stdout, 'OK: 4 records, 88 bytes, V, big-endian RDWs\n');
});

test('a copybook argument for the segments named by record, a file for the other; CSV and Parquet', async () => {
  writeFileSync(
    at('layouts/mixed.json'),
    JSON.stringify({ field: 'SEG-ID', segments: { C: 'CUSTOMER-SEG', A: { copybook: 'account.cpy' } } }),
  );
  const args = [at('layouts/customer.cpy'), '--segments', at('layouts/mixed.json'), '--input', at('bank.v'), ...GNU];
  const json = run(['decode', ...args]);
  assert.equal(json.code, 0);
  assert.deepEqual(lines(json.stdout)[1], { accountSeg: ACCOUNTS[0] });
  const csv = run(['decode', ...args, '--format', 'csv']);
  assert.equal(csv.code, 0);
  assert.deepEqual(csv.stdout.split('\r\n').slice(0, 3), [
    'customerSeg_segId,customerSeg_custId,customerSeg_custName,accountSeg_segId,accountSeg_acctNo,accountSeg_acctBalance',
    'C,1,ANNA,,,',
    ',,,A,PL00000001,1250.75',
  ]);
  const parquet = run(['decode', ...args, '--format', 'parquet', '--output', at('bank.parquet')]);
  assert.equal(parquet.code, 0);
  const duck = await (await DuckDBInstance.create(':memory:')).connect();
  try {
    const sql = `SELECT segment_id, customerSeg.custName AS name, accountSeg.acctBalance AS balance FROM '${at('bank.parquet')}'`;
    assert.deepEqual((await duck.runAndReadAll(sql)).getRowObjectsJson(), [
      { segment_id: 'C', name: 'ANNA', balance: null },
      { segment_id: 'A', name: null, balance: '1250.75' },
      { segment_id: 'A', name: null, balance: '-3.50' },
      { segment_id: 'C', name: 'JEAN', balance: null },
    ]);
  } finally {
    duck.closeSync();
  }
  const verified = run(['verify', ...args]);
  assert.equal(verified.code, 0);
});

test("a segment's copybook file that does not fit: one line naming the segments file and the key, exit 1", () => {
  writeFileSync(at('layouts/bad.cpy'), fixed('01 BAD-SEG.', '   05 SEG-ID PIC QQ.'));
  writeFileSync(at('layouts/moved.cpy'), fixed('01 MOVED-SEG.', '   05 FILLER PIC X.', '   05 SEG-ID PIC X.'));
  const cases: Array<[string, unknown, string]> = [
    [
      'missing',
      { copybook: 'nope.cpy' },
      `segments "segments.A": copybook nope.cpy: cannot read ${at('layouts/nope.cpy')}: no such file`,
    ],
    ['bad', { copybook: 'bad.cpy' }, `segments "segments.A": copybook bad.cpy: ${at('layouts/bad.cpy')}:2:`],
    [
      'norecord',
      { copybook: 'account.cpy', record: 'ACCT-SEG' },
      'segments "segments.A": account.cpy has no record named ACCT-SEG (records: ACCOUNT-SEG)',
    ],
    [
      'moved',
      { copybook: 'moved.cpy' },
      'segments "segments.A": SEG-ID is at bytes 1–1 of MOVED-SEG (moved.cpy), not at bytes 0–0 as in CUSTOMER-SEG',
    ],
    [
      'shape',
      { copybook: 'account.cpy', recrod: 'ACCOUNT-SEG' },
      `segments "segments.A": "recrod" is not a key of a segment's copybook (copybook, record, view)`,
    ],
  ];
  for (const [name, value, message] of cases) {
    const file = at(`layouts/${name}.json`);
    writeFileSync(file, JSON.stringify({ field: 'SEG-ID', segments: { C: { copybook: 'customer.cpy' }, A: value } }));
    for (const action of ['decode', 'encode', 'verify']) {
      const input = action === 'encode' ? at('flat.jsonl') : at('bank.v');
      const r = run([action, '--segments', file, '--input', input, '--output', at('out.v'), ...GNU]);
      assert.equal(r.code, 1, `${name} ${action}`);
      assert.equal(r.stderr.split('\n').length, 2, r.stderr);
      assert.ok(r.stderr.startsWith(`corebridge: ${file}: ${message}`), `${name} ${action}: ${r.stderr}`);
    }
  }
  // a segment named by record needs the copybook argument
  writeFileSync(at('layouts/byname.json'), JSON.stringify({ field: 'SEG-ID', segments: { C: 'CUSTOMER-SEG' } }));
  const r = run(['decode', '--segments', at('layouts/byname.json'), '--input', at('bank.v'), ...GNU]);
  assert.equal(r.code, 1);
  assert.equal(
    r.stderr,
    `corebridge: ${at('layouts/byname.json')}: segments "segments.C": names a record of the command's copybook, and none is given: give it, or name this segment's own {"copybook": FILE}\n`,
  );
  // without --segments the copybook argument is required, as before
  const none = run(['decode', '--input', at('bank.v'), ...GNU]);
  assert.equal(none.code, 2);
  assert.match(none.stderr, /^corebridge: dataset decode needs a copybook file/);
});
