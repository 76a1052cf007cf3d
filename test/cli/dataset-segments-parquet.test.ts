/**
 * `corebridge dataset decode|encode --segments` where the segments are REDEFINES views of one record (a common
 * header, a body per segment type), and `--format parquet` of segmented files, read back by DuckDB's own reader.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { DuckDBInstance } from '@duckdb/node-api';

const BIN = join(import.meta.dirname, '../../bin/corebridge.ts');

function run(args: string[]) {
  const r = spawnSync(process.execPath, [BIN, 'dataset', ...args]);
  return { code: r.status, stdout: r.stdout.toString('utf8'), stderr: r.stderr.toString('utf8') };
}

const dir = mkdtempSync(join(tmpdir(), 'corebridge-segments-'));
const duck = await (await DuckDBInstance.create(':memory:')).connect();
test.after(() => {
  duck.closeSync();
  rmSync(dir, { recursive: true, force: true });
});
const at = (name: string) => join(dir, name);
const fixed = (...lines: string[]) => `${lines.map((l) => `       ${l}`).join('\n')}\n`;
const text = (s: string, n: number) => Buffer.from(s.padEnd(n, ' '), 'latin1');
const rdw = (body: Buffer) => Buffer.concat([Buffer.from([0, body.length + 4, 0, 0]), body]);

async function query(sql: string) {
  return (await duck.runAndReadAll(sql)).getRowObjectsJson();
}

writeFileSync(
  at('policy.cpy'),
  fixed(
    '01 POLICY-REC.',
    '   05 PS-HEADER.',
    '      10 PS-SEG-ID PIC X.',
    '      10 PS-POLICY PIC 9(6).',
    '   05 PS-BODY PIC X(20).',
    '   05 PS-HOLDER REDEFINES PS-BODY.',
    '      10 HOLDER-NAME PIC X(12).',
    '      10 HOLDER-BORN PIC 9(8).',
    '   05 PS-COVER REDEFINES PS-BODY.',
    '      10 COVER-CODE PIC X(4).',
    '      10 COVER-SUM PIC S9(13)V99 COMP-3.',
    '      10 COVER-RATE PIC S9(3)V9(4).',
    '      10 FILLER PIC X.',
  ),
);
const SEGMENTS = { field: 'PS-SEG-ID', segments: { H: 'PS-HOLDER', C: 'PS-COVER' } };
writeFileSync(at('views.json'), JSON.stringify(SEGMENTS));
writeFileSync(at('nested.json'), JSON.stringify({ ...SEGMENTS, children: { 'PS-COVER': 'PS-HOLDER' } }));
const holder = (policy: string, name: string, born: string) =>
  rdw(Buffer.concat([text('H', 1), text(policy, 6), text(name, 12), text(born, 8)]));
// COVER-SUM is packed by hand (15 digits, 8 bytes); COVER-RATE is ASCII zoned, a negative last digit p..y
const cover = (policy: string, code: string, packed: number[], rate: string) =>
  rdw(Buffer.concat([text('C', 1), text(policy, 6), text(code, 4), Buffer.from(packed), text(rate, 7), text('', 1)]));
const FILE = Buffer.concat([
  holder('000101', 'ANNA KARLSEN', '19800214'),
  cover('000101', 'FIRE', [0x00, 0x00, 0x01, 0x23, 0x45, 0x67, 0x89, 0x0c], '0012500'),
  cover('000101', 'THFT', [0x99, 0x99, 0x99, 0x99, 0x99, 0x99, 0x99, 0x9d], '000000q'),
  holder('000102', 'BO', '20010101'),
]);
writeFileSync(at('policies.dat'), FILE);
const GNU = ['--profile', 'gnucobol', '--recfm', 'V', '--quiet'];

const HOLDER_1 = {
  psHeader: { psSegId: 'H', psPolicy: 101 },
  psHolder: { holderName: 'ANNA KARLSEN', holderBorn: 19800214 },
};
const COVER_1 = {
  psHeader: { psSegId: 'C', psPolicy: 101 },
  psCover: { coverCode: 'FIRE', coverSum: 12345678.9, coverRate: 1.25 },
};
const COVER_2 = {
  psHeader: { psSegId: 'C', psPolicy: 101 },
  psCover: { coverCode: 'THFT', coverSum: -9999999999999.99, coverRate: -0.0001 },
};
const HOLDER_2 = { psHeader: { psSegId: 'H', psPolicy: 102 }, psHolder: { holderName: 'BO', holderBorn: 20010101 } };

test('views as segments: decode shows the header and the chosen view; encode gives the same bytes', () => {
  const r = run(['decode', at('policy.cpy'), '--input', at('policies.dat'), '--segments', at('views.json'), ...GNU]);
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stdout
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as unknown);
  assert.deepEqual(lines, [{ psHolder: HOLDER_1 }, { psCover: COVER_1 }, { psCover: COVER_2 }, { psHolder: HOLDER_2 }]);
  writeFileSync(at('policies.jsonl'), r.stdout);
  const e = run([
    'encode',
    at('policy.cpy'),
    '--input',
    at('policies.jsonl'),
    '--output',
    at('back.dat'),
    '--segments',
    at('views.json'),
    ...GNU,
  ]);
  assert.equal(e.code, 0, e.stderr);
  assert.deepEqual(readFileSync(at('back.dat')), FILE);
});

test('parquet of a segmented file: the segment id and a struct per segment, null in the others; DuckDB reads it', async () => {
  const out = at('policies.parquet');
  const r = run([
    'decode',
    at('policy.cpy'),
    '--input',
    at('policies.dat'),
    '--segments',
    at('views.json'),
    '--format',
    'parquet',
    '--output',
    out,
    ...GNU,
  ]);
  assert.equal(r.code, 0, r.stderr);
  const schema = await query(`SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM '${out}')`);
  assert.deepEqual(schema, [
    { column_name: 'segment_id', column_type: 'VARCHAR' },
    {
      column_name: 'psHolder',
      column_type:
        'STRUCT(psHeader STRUCT(psSegId VARCHAR, psPolicy INTEGER), psHolder STRUCT(holderName VARCHAR, holderBorn INTEGER))',
    },
    {
      column_name: 'psCover',
      column_type:
        'STRUCT(psHeader STRUCT(psSegId VARCHAR, psPolicy INTEGER), psCover STRUCT(coverCode VARCHAR, coverSum DECIMAL(15,2), coverRate DECIMAL(7,4)))',
    },
  ]);
  // decimals as DuckDB prints them: exact, never through a float
  const rows = await query(
    `SELECT segment_id, psHolder.psHeader.psPolicy AS policy, psHolder.psHolder.holderName AS name,
            psHolder.psHolder.holderBorn AS born, psCover.psCover.coverCode AS code,
            CAST(psCover.psCover.coverSum AS VARCHAR) AS sum, CAST(psCover.psCover.coverRate AS VARCHAR) AS rate,
            psCover IS NULL AS no_cover, psHolder IS NULL AS no_holder
       FROM '${out}'`,
  );
  assert.deepEqual(rows, [
    {
      segment_id: 'H',
      policy: 101,
      name: 'ANNA KARLSEN',
      born: 19800214,
      code: null,
      sum: null,
      rate: null,
      no_cover: true,
      no_holder: false,
    },
    {
      segment_id: 'C',
      policy: null,
      name: null,
      born: null,
      code: 'FIRE',
      sum: '12345678.90',
      rate: '1.2500',
      no_cover: false,
      no_holder: true,
    },
    {
      segment_id: 'C',
      policy: null,
      name: null,
      born: null,
      code: 'THFT',
      sum: '-9999999999999.99',
      rate: '-0.0001',
      no_cover: false,
      no_holder: true,
    },
    {
      segment_id: 'H',
      policy: 102,
      name: 'BO',
      born: 20010101,
      code: null,
      sum: null,
      rate: null,
      no_cover: true,
      no_holder: false,
    },
  ]);
});

test('parquet of nested segments: a row per root record, its children a list of structs in its struct', async () => {
  const out = at('nested.parquet');
  const r = run([
    'decode',
    at('policy.cpy'),
    '--input',
    at('policies.dat'),
    '--segments',
    at('nested.json'),
    '--format',
    'parquet',
    '--output',
    out,
    ...GNU,
  ]);
  assert.equal(r.code, 0, r.stderr);
  const schema = await query(`SELECT column_name FROM (DESCRIBE SELECT * FROM '${out}')`);
  assert.deepEqual(schema, [{ column_name: 'segment_id' }, { column_name: 'psHolder' }]);
  const rows = await query(
    `SELECT segment_id, psHolder.psHolder.holderName AS name, len(psHolder.psCover) AS covers,
            list_transform(psHolder.psCover, c -> c.psCover.coverCode) AS codes,
            list_transform(psHolder.psCover, c -> CAST(c.psCover.coverSum AS VARCHAR)) AS sums
       FROM '${out}'`,
  );
  assert.deepEqual(rows, [
    {
      segment_id: 'H',
      name: 'ANNA KARLSEN',
      covers: '2',
      codes: ['FIRE', 'THFT'],
      sums: ['12345678.90', '-9999999999999.99'],
    },
    { segment_id: 'H', name: 'BO', covers: null, codes: null, sums: null },
  ]);
});

test('a segment that is neither a 01 record nor a view: a one-line error naming the key', () => {
  writeFileSync(at('bad.json'), JSON.stringify({ field: 'PS-SEG-ID', segments: { H: 'HOLDER-NAME' } }));
  const r = run(['decode', at('policy.cpy'), '--input', at('policies.dat'), '--segments', at('bad.json'), ...GNU]);
  assert.equal(r.code, 1);
  assert.match(
    r.stderr,
    /bad\.json: segments "segments\.H": HOLDER-NAME is neither a 01 record nor an item that REDEFINES/,
  );
  assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
});

test('parquet: a segment several ids name takes each row its id from the record', async () => {
  writeFileSync(
    at('two-ids.json'),
    JSON.stringify({ field: 'PS-SEG-ID', segments: { H: 'PS-HOLDER', J: 'PS-HOLDER', C: 'PS-COVER' } }),
  );
  const joint = Buffer.from(holder('000103', 'JO', '19990909'));
  joint[4] = 0x4a; // J
  writeFileSync(at('two-ids.dat'), Buffer.concat([FILE, joint]));
  const out = at('two-ids.parquet');
  const args = ['--input', at('two-ids.dat'), '--segments', at('two-ids.json'), '--format', 'parquet', '--output', out];
  const r = run(['decode', at('policy.cpy'), ...args, ...GNU]);
  assert.equal(r.code, 0, r.stderr);
  const rows = await query(`SELECT segment_id, psHolder.psHolder.holderName AS name FROM '${out}'`);
  assert.deepEqual(
    rows.map((row) => [row.segment_id, row.name]),
    [
      ['H', 'ANNA KARLSEN'],
      ['C', null],
      ['C', null],
      ['H', 'BO'],
      ['J', 'JO'],
    ],
  );
});
