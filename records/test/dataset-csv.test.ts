/**
 * CSV of decoded records: the columns a layout gives (flattened names, tables up to their OCCURS maximum, only
 * what decode shows), RFC 4180 quoting, and the text read back by Python's csv module, an outside reader.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { compileCopybook } from '../src/index.ts';
import { csvCell, csvTable, decodeDataset, encodeDataset, toCsvRows } from '../src/dataset/index.ts';

const fixed = (...lines: string[]) => lines.map((l) => `       ${l}`).join('\n');

const ORDER = fixed(
  '01 ORDER-REC.',
  '   05 ORD-ID PIC X(6).',
  '   05 ORD-NOTE PIC X(12).',
  '   05 FILLER PIC X(2).',
  '   05 ORD-AMT PIC S9(5)V99 COMP-3.',
  '   05 ORD-BIG PIC S9(17)V99 COMP-3.',
  '   05 ORD-WHEN PIC 9(8).',
  '   05 ORD-WHEN-PARTS REDEFINES ORD-WHEN.',
  '      10 ORD-YEAR PIC 9(4).',
  '      10 FILLER PIC 9(4).',
  '   05 ORD-N PIC 9.',
  '   05 ORD-LINE OCCURS 1 TO 3 DEPENDING ON ORD-N.',
  '      10 LN-SKU PIC X(4).',
  '      10 LN-QTY PIC 9(3) OCCURS 2.',
);

const layout = compileCopybook(ORDER, { profile: 'gnucobol', emptyNumeric: { spaces: 'null' } });

const COLUMNS = [
  'ordId',
  'ordNote',
  'ordAmt',
  'ordBig',
  'ordWhen',
  'ordN',
  ...[1, 2, 3].flatMap((i) => [`ordLine_${i}_lnSku`, `ordLine_${i}_lnQty_1`, `ordLine_${i}_lnQty_2`]),
];

const VALUES = [
  {
    ordId: 'A1',
    ordNote: 'plain',
    ordAmt: -12.5,
    ordBig: '12345678901234567.89',
    ordWhen: 20261128,
    ordN: 3,
    ordLine: [
      { lnSku: 'X1', lnQty: [1, 2] },
      { lnSku: 'X2', lnQty: [3, 4] },
      { lnSku: 'X3', lnQty: [5, 6] },
    ],
  },
  {
    ordId: 'A,2',
    ordNote: 'say "hi"',
    ordAmt: 0,
    ordBig: '-0.01',
    ordWhen: 1,
    ordN: 1,
    ordLine: [{ lnSku: 'a\nb', lnQty: [7, 0] }],
  },
  { ordId: '', ordNote: 'x\r\ny,"', ordAmt: 1, ordBig: '0', ordWhen: 0, ordN: 2, ordLine: [{}, { lnSku: 'Q' }] },
];

/** A JSON value as its cell's text is meant to read: numbers as the JSON shows them, null as nothing. */
function expectedCells(value: Record<string, unknown>): string[] {
  const out: string[] = [];
  const s = (v: unknown) => (v === null || v === undefined ? '' : String(v));
  for (const k of ['ordId', 'ordNote', 'ordAmt', 'ordBig', 'ordWhen', 'ordN']) out.push(s(value[k]));
  const lines = value.ordLine as Array<{ lnSku: string; lnQty: number[] }>;
  for (let i = 0; i < 3; i++) out.push(s(lines[i]?.lnSku), s(lines[i]?.lnQty[0]), s(lines[i]?.lnQty[1]));
  return out;
}

/** Python's csv module reads the text: the judge of quoting that is not ours. */
function pythonReads(csv: string): string[][] {
  const r = spawnSync(
    'python3',
    ['-c', 'import csv,sys,json; print(json.dumps(list(csv.reader(sys.stdin, strict=True))))'],
    {
      input: csv,
    },
  );
  assert.equal(r.status, 0, r.stderr.toString());
  return JSON.parse(r.stdout.toString()) as string[][];
}

test('columns: flattened JSON names, tables up to their maximum, no FILLER, no view decode does not show', () => {
  assert.deepEqual(csvTable(layout).columns, COLUMNS);
  const schemaKeys = Object.keys(layout.jsonSchema().properties as object);
  assert.deepEqual(schemaKeys, ['ordId', 'ordNote', 'ordAmt', 'ordBig', 'ordWhen', 'ordN', 'ordLine']);
});

test('a file decoded to CSV reads back, through Python csv, as the JSON values', async () => {
  const file = Buffer.concat(await collect(encodeDataset(VALUES, layout, { framing: { recfm: 'V' } })));
  const table = csvTable(layout);
  let csv = table.header;
  const decoded: Array<Record<string, unknown>> = [];
  for await (const batch of decodeDataset(asAsync([file]), layout, { framing: { recfm: 'V' } })) {
    const values = batch.map((r) => r.value);
    decoded.push(...(values as Array<Record<string, unknown>>));
    csv += toCsvRows(table, values);
  }
  assert.equal(decoded.length, 3);
  const rows = pythonReads(csv);
  assert.deepEqual(rows[0], COLUMNS);
  assert.deepEqual(rows.slice(1), decoded.map(expectedCells));
  // what the cells hold, spelled out: quotes, commas and line breaks inside, decimals exact, missing elements empty
  assert.deepEqual(rows[2]!.slice(0, 4), ['A,2', 'say "hi"', '0', '-0.01']);
  assert.equal(rows[2]![6], 'a\nb');
  assert.deepEqual(rows[2]!.slice(9), ['', '', '', '', '', '']);
  assert.deepEqual(rows[1]!.slice(2, 4), ['-12.5', '12345678901234567.89']);
  assert.equal(rows[3]![1], 'x\r\ny,"');
  assert.equal(csv.split('\r\n')[3]!.startsWith('"",'), true, 'an empty string is a quoted empty cell');
});

test('null: a null field is an empty cell, a record that did not decode a row of empty cells', async () => {
  const bytes = Buffer.from(layout.encode(VALUES[0]));
  bytes.fill(0x20, 20, 24); // ORD-AMT all spaces: null under the policy
  const bad = Buffer.from(bytes);
  bad[42] = 0x39; // ORD-N 9: beyond the table's 3
  const table = csvTable(layout);
  const got: Array<Record<string, unknown> | null> = [];
  for await (const batch of decodeDataset(asAsync([Buffer.concat([bytes, bad])]), layout, {
    framing: { recfm: 'F', lrecl: bytes.length },
    onError: 'null',
  })) {
    got.push(...batch.map((r) => r.value));
  }
  assert.equal(got[0]!.ordAmt, null);
  const rows = pythonReads(table.header + toCsvRows(table, got));
  assert.equal(rows[1]![2], '');
  assert.equal(rows[1]![0], 'A1');
  assert.deepEqual(
    rows[2],
    COLUMNS.map(() => ''),
  );
});

test('views a discriminator chooses each have their columns, empty where another view was chosen', () => {
  const l = compileCopybook(
    fixed(
      '01 PAY.',
      '   05 PAY-METHOD PIC X.',
      '   05 PAY-DETAILS PIC X(6).',
      '   05 PAY-CARD REDEFINES PAY-DETAILS.',
      '      10 CARD-NO PIC 9(6).',
      '   05 PAY-ACH REDEFINES PAY-DETAILS.',
      '      10 ACH-BANK PIC X(3).',
      '      10 ACH-ACCT PIC X(3).',
    ),
    {
      profile: 'gnucobol',
      mapping: {
        redefines: { 'PAY-DETAILS': { discriminator: 'PAY-METHOD', views: { C: 'PAY-CARD', A: 'PAY-ACH' } } },
      },
    },
  );
  const table = csvTable(l);
  assert.deepEqual(table.columns, ['payMethod', 'payCard_cardNo', 'payAch_achBank', 'payAch_achAcct']);
  const card = l.decode(Buffer.from('C123456'));
  const ach = l.decode(Buffer.from('AB1,X9 '));
  assert.deepEqual(pythonReads(toCsvRows(table, [card, ach])), [
    ['C', '123456', '', ''],
    ['A', '', 'B1,', 'X9'],
  ]);
});

test('cells: RFC 4180 quoting of comma, quote, CR and LF only', () => {
  assert.deepEqual(['a', 'a,b', 'a"b', 'a\rb', 'a\nb', ' a ', '', null, 1.5, '-0.10'].map(csvCell), [
    'a',
    '"a,b"',
    '"a""b"',
    '"a\rb"',
    '"a\nb"',
    ' a ',
    '""',
    '',
    '1.5',
    '-0.10',
  ]);
});

test('two columns of one name are refused', () => {
  const l = compileCopybook(fixed('01 R.', '   05 A.', '      10 B PIC X.', '   05 C PIC X.'), {
    mapping: { fields: { C: 'a_b' } },
  });
  assert.throws(() => csvTable(l), /two CSV columns are named a_b/);
});

async function collect<T>(source: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of source) out.push(x);
  return out;
}

async function* asAsync<T>(items: Iterable<T>): AsyncGenerator<T> {
  yield* items;
}
