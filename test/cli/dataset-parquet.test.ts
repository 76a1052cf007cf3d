import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { compileCopybook, type CompiledLayout } from '@corebridge/records';
import { openParquet } from '../../src/cli/dataset/parquet.ts';

// DuckDB judges what was written: it reads the files with its own Parquet reader.
const dir = mkdtempSync(join(tmpdir(), 'corebridge-parquet-'));
const duck = await (await DuckDBInstance.create(':memory:')).connect();
test.after(() => {
  duck.closeSync();
  rmSync(dir, { recursive: true, force: true });
});

async function query(c: DuckDBConnection, sql: string) {
  return (await c.runAndReadAll(sql)).getRowObjectsJson();
}

const ACCOUNT = compileCopybook(
  `
       01  ACCT-REC.
           05  ACCT-ID          PIC X(10).
           05  ACCT-NAME        PIC X(20).
           05  ACCT-BALANCE     PIC S9(7)V99.
           05  ACCT-LIMIT       PIC S9(13)V99 COMP-3.
           05  ACCT-TOTAL       PIC S9(21)V9(4) COMP-3.
           05  ACCT-COUNT       PIC 9(5).
           05  ACCT-BIG-ID      PIC 9(18) COMP-3.
           05  ACCT-RATE        COMP-2.
           05  ACCT-SCORE       PIC S9(4) COMP-5.
           05  ACCT-OWNER.
               10  OWNER-CITY   PIC X(12).
               10  OWNER-ADDR.
                   15  ADDR-ZIP  PIC 9(5).
                   15  FILLER    PIC X(3).
                   15  ADDR-LINE PIC X(15).
           05  ACCT-MONTH OCCURS 3.
               10  MONTH-DEBIT  PIC S9(7)V99 COMP-3.
               10  MONTH-CODE   PIC X(2).
           05  ACCT-TAG         PIC X(4) OCCURS 2.
           05  ACCT-TX-COUNT    PIC 9(2).
           05  ACCT-TX OCCURS 0 TO 5 DEPENDING ON ACCT-TX-COUNT.
               10  TX-AMOUNT    PIC S9(19)V99 COMP-3.
               10  TX-MEMO      PIC X(8).
`,
  { fileName: 'ACCOUNT.cpy', emptyNumeric: 'null' },
);

/** Records as decode gives them: encoded from varied values, then decoded. */
function accounts(n: number): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (let i = 0; i < n; i++) {
    const sign = i % 2 === 0 ? '' : '-';
    const json = {
      acctId: `A${String(i).padStart(6, '0')}`,
      acctName: i % 3 === 0 ? 'Müller & Söhne' : `name ${i}`,
      acctBalance: (((i * 7919) % 1e9) - 5e8) / 100,
      acctLimit: `${sign}${(i * 123456789013) % 1e15}`.replace(/(\d\d)$/, '.$1'),
      acctTotal: `${sign}${'9'.repeat(21 - String(i).length)}${i}.${String((i * 37) % 10000).padStart(4, '0')}`,
      acctCount: i % 7 === 0 ? null : (i * 31) % 100000,
      acctBigId: String(999999999999999999n - BigInt(i * 1000003)),
      acctRate: i / 4 - 10,
      acctScore: ((i * 4099) % 65536) - 32768,
      acctOwner: { ownerCity: i % 2 ? 'Köln' : 'Paris', ownerAddr: { addrZip: i % 100000, addrLine: `${i} Rue` } },
      acctMonth: [0, 1, 2].map((m) => ({ monthDebit: `${sign}${i * 3 + m}.0${m}`, monthCode: `M${m}` })),
      acctTag: ['ab', i % 2 ? '' : 'cd'],
      acctTxCount: i % 6,
      acctTx: Array.from({ length: i % 6 }, (_, t) => ({
        txAmount: `${t % 2 ? '-' : ''}${'8'.repeat(19)}.${String(i % 100).padStart(2, '0')}`,
        txMemo: `tx ${t}`,
      })),
    };
    out.push(ACCOUNT.decode(ACCOUNT.encode(json)));
  }
  return out;
}

/**
 * `actual` (DuckDB's JSON form: DECIMAL and BIGINT as text, DECIMAL padded to its scale) holds the same values as
 * `expected` (decode's JSON: numbers, and decimal strings for wide fields).
 */
function assertSame(actual: unknown, expected: unknown, path: string): void {
  if (expected === null || expected === undefined) return assert.equal(actual, null, path);
  if (Array.isArray(expected)) {
    assert.ok(Array.isArray(actual), `${path}: ${JSON.stringify(actual)} is not a list`);
    assert.equal(actual.length, expected.length, `${path}: list length`);
    expected.forEach((e, i) => assertSame(actual[i], e, `${path}[${i}]`));
    return;
  }
  if (typeof expected === 'object') {
    assert.ok(actual !== null && typeof actual === 'object', `${path}: not a struct`);
    const a = actual as Record<string, unknown>;
    assert.deepEqual(Object.keys(a), Object.keys(expected), `${path}: fields`);
    for (const [k, e] of Object.entries(expected)) assertSame(a[k], e, `${path}.${k}`);
    return;
  }
  if (actual === expected) return;
  // an exact decimal: DuckDB writes DECIMAL(9,2) 1.5 as "1.50"
  const decimal = typeof expected === 'number' ? exactText(expected) : String(expected);
  assert.match(decimal, /^-?\d+(\.\d+)?$/, `${path}: ${JSON.stringify(actual)} ≠ ${JSON.stringify(expected)}`);
  assert.equal(
    String(actual)
      .replace(/(\.\d*?)0+$/, '$1')
      .replace(/\.$/, ''),
    decimal,
    path,
  );
}

/** A decode number as its exact decimal text (at most 15 digits, so String() is exact), never in e-notation. */
function exactText(n: number): string {
  return Math.abs(n) < 1e-6 && n !== 0 ? n.toFixed(20).replace(/0+$/, '') : String(n);
}

async function writeParquet(
  path: string,
  layout: CompiledLayout,
  rows: (Record<string, unknown> | null)[],
  size?: number,
) {
  const sink = await openParquet(path, layout, size === undefined ? {} : { rowGroupSize: size });
  // in batches, as decodeDataset hands them over
  for (let i = 0; i < rows.length; i += 100) await sink.write(rows.slice(i, i + 100));
  await sink.close();
  return sink.rows;
}

test('DuckDB reads back every value, with structs, lists and exact DECIMAL types from the copybook', async () => {
  const rows = accounts(240);
  const file = join(dir, 'accounts.parquet');
  assert.equal(await writeParquet(file, ACCOUNT, [...rows, null], 64), 241);

  const types = await query(duck, `DESCRIBE SELECT * FROM read_parquet('${file}')`);
  assert.deepEqual(
    types.map((t) => [t.column_name, t.column_type, t.null]),
    [
      ['acctId', 'VARCHAR', 'YES'],
      ['acctName', 'VARCHAR', 'YES'],
      ['acctBalance', 'DECIMAL(9,2)', 'YES'],
      ['acctLimit', 'DECIMAL(15,2)', 'YES'],
      ['acctTotal', 'DECIMAL(25,4)', 'YES'],
      ['acctCount', 'INTEGER', 'YES'],
      ['acctBigId', 'BIGINT', 'YES'],
      ['acctRate', 'DOUBLE', 'YES'],
      ['acctScore', 'INTEGER', 'YES'],
      ['acctOwner', 'STRUCT(ownerCity VARCHAR, ownerAddr STRUCT(addrZip INTEGER, addrLine VARCHAR))', 'YES'],
      ['acctMonth', 'STRUCT(monthDebit DECIMAL(9,2), monthCode VARCHAR)[]', 'YES'],
      ['acctTag', 'VARCHAR[]', 'YES'],
      ['acctTxCount', 'INTEGER', 'YES'],
      ['acctTx', 'STRUCT(txAmount DECIMAL(21,2), txMemo VARCHAR)[]', 'YES'],
    ],
  );

  const read = await query(duck, `SELECT * FROM read_parquet('${file}')`);
  assert.equal(read.length, 241);
  rows.forEach((row, i) => assertSame(read[i], row, `row ${i}`));
  // the record decode could not read: a row of nulls
  assert.ok(Object.values(read[240]!).every((v) => v === null));

  // what the comparison leans on is really there: nulls, a wide decimal to its last digit, an empty ODO table
  assert.equal(read[7]!.acctCount, null);
  assert.equal(read[1]!.acctTotal, '-999999999999999999991.0037');
  assert.equal(read[1]!.acctBigId, '999999999998999996');
  assert.deepEqual(read[6]!.acctTx, []);
  assert.deepEqual((read[5]!.acctTx as unknown[]).length, 5);
  // DuckDB sums the DECIMAL(25,4) column exactly, as it would a column read from any other writer
  const [sum] = await query(duck, `SELECT sum(acctTotal)::VARCHAR s FROM read_parquet('${file}')`);
  const units = rows.reduce((acc, r) => {
    const [int, frac = ''] = String(r.acctTotal).split('.') as [string, string?];
    const n = BigInt(int.replace('-', '') + frac.padEnd(4, '0'));
    return acc + (int.startsWith('-') ? -n : n);
  }, 0n);
  assert.equal(sum!.s, `${units < 0n ? '-' : ''}${String(units < 0n ? -units : units).replace(/(\d{4})$/, '.$1')}`);
});

test('rows are written in row groups as they come', async () => {
  const layout = compileCopybook(
    `
       01  PAY.
           05  PAY-NO      PIC 9(9) COMP.
           05  PAY-AMOUNT  PIC S9(9)V99 COMP-3.
           05  PAY-NOTE    PIC X(12).
`,
    { fileName: 'PAY.cpy' },
  );
  const file = join(dir, 'many.parquet');
  const sink = await openParquet(file, layout, { rowGroupSize: 8192 });
  for (let start = 0; start < 100_000; start += 1000) {
    const batch = Array.from({ length: 1000 }, (_, k) => {
      const no = start + k;
      return { payNo: no, payAmount: (no % 2 ? -no : no) / 100, payNote: `note ${no % 10}` };
    });
    await sink.write(batch);
  }
  await sink.close();

  const groups = await query(
    duck,
    `SELECT row_group_id, any_value(row_group_num_rows) n FROM parquet_metadata('${file}') GROUP BY ALL ORDER BY 1`,
  );
  assert.equal(groups.length, 13);
  assert.deepEqual(
    groups.map((g) => Number(g.n)),
    [...Array.from({ length: 12 }, () => 8192), 100_000 - 12 * 8192],
  );
  const [stats] = await query(
    duck,
    `SELECT count(*) n, sum(payNo) s, sum(payAmount)::VARCHAR a, min(payNo) lo, max(payNo) hi,
            bool_and(payNote = 'note ' || (payNo % 10)) notes
       FROM read_parquet('${file}')`,
  );
  assert.deepEqual(stats, { n: '100000', s: '4999950000', a: '-500.00', lo: 0, hi: 99999, notes: true });
});

test('a stream gets the same file, and a failed write leaves no broken file', async () => {
  const rows = accounts(20);
  const out = new PassThrough();
  const chunks: Buffer[] = [];
  out.on('data', (c: Buffer) => chunks.push(c));
  const sink = await openParquet(out, ACCOUNT, { rowGroupSize: 7 });
  await sink.write(rows);
  await sink.close();
  const file = join(dir, 'streamed.parquet');
  writeFileSync(file, Buffer.concat(chunks));
  const read = await query(duck, `SELECT * FROM read_parquet('${file}')`);
  rows.forEach((row, i) => assertSame(read[i], row, `row ${i}`));

  const broken = join(dir, 'broken.parquet');
  const bad = await openParquet(broken, ACCOUNT);
  await assert.rejects(bad.write([{ ...rows[0], acctTotal: 'twelve' }]), /acctTotal: "twelve" is not a decimal/);
  await bad.abort();
  assert.equal(existsSync(broken), false);
});
