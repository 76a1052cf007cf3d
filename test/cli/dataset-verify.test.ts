/**
 * `corebridge dataset verify`: the report on stdout and the exit code a script can test, run in-process with
 * the streams a user would see.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { test } from 'node:test';
import { compileCopybook } from '@corebridge/records';
import { RecordWriter, type FramingOptions } from '@corebridge/records/dataset';
import { main } from '../../src/cli/main.ts';

const COPYBOOK = [
  '       01  ITEM-REC.',
  '           05  ITEM-SKU     PIC X(10).',
  '           05  ITEM-QTY     PIC 9(5).',
  '           05  ITEM-PRICE   PIC S9(5)V99 COMP-3.',
  '           05  ITEM-TEXT    PIC X(30).',
].join('\n');
const LENGTH = 49;

const dir = mkdtempSync(join(tmpdir(), 'corebridge-verify-'));
const cpy = join(dir, 'item.cpy');
writeFileSync(cpy, COPYBOOK);
test.after(() => rmSync(dir, { recursive: true, force: true }));

function dataset(name: string, framing: FramingOptions, n: number, encoding?: 'ascii'): string {
  const layout = compileCopybook(COPYBOOK, encoding === undefined ? {} : { encoding });
  const writer = new RecordWriter(framing);
  for (let i = 0; i < n; i++) {
    writer.write(layout.encode({ itemSku: `SKU-${i}`, itemQty: i, itemPrice: '9.99', itemText: `ITEM NUMBER ${i}` }));
  }
  const path = join(dir, name);
  writeFileSync(path, writer.end());
  return path;
}

/** A stream that keeps what is written to it, as a terminal would show it. */
function sink() {
  const chunks: Buffer[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk);
      done();
    },
  });
  return { stream, text: () => Buffer.concat(chunks).toString('utf8') };
}

async function run(args: string[], stdin: Uint8Array = new Uint8Array(0), tty = false) {
  const stdout = sink();
  const stderr = sink();
  if (tty) Object.assign(stderr.stream, { isTTY: true, columns: 120 });
  const code = await main(['dataset', 'verify', ...args], {
    stdin: Readable.from([stdin]),
    stdout: stdout.stream,
    stderr: stderr.stream,
  });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

test('a file that matches: exit 0 and its record count, size and format', async () => {
  const file = dataset('items.dat', { recfm: 'F', lrecl: LENGTH }, 30);
  const r = await run([cpy, '--input', file]);
  assert.deepEqual(r, { code: 0, stdout: `OK: 30 records, ${30 * LENGTH} bytes, F lrecl 49\n`, stderr: '' });
});

test('a V file checked as F: exit 1, where it stops matching and the flags that would match', async () => {
  const file = dataset('items.v', { recfm: 'V' }, 25);
  const r = await run([cpy, '--input', file]);
  assert.equal(r.code, 1, r.stderr);
  const lines = r.stdout.split('\n');
  assert.match(lines[0]!, /^does not match at record 1 \(byte 0/);
  assert.equal(
    lines[1],
    `  read as F lrecl 49: 0 records match before it; ${25 * 53} of the file's ${25 * 53} bytes are from there on`,
  );
  assert.equal(lines[2], 'hints:');
  assert.match(lines[3]!, /^ {2}certain: --recfm V: the whole file reads as V: 25 records/);
  // the flags the hint gives make it match
  assert.equal((await run([cpy, '--input', file, '--recfm', 'V'])).code, 0);
});

test('an ASCII file read as EBCDIC, from standard input: the hint is --encoding ascii, and it works', async () => {
  const file = dataset('items.ascii', { recfm: 'F', lrecl: LENGTH }, 10, 'ascii');
  const r = await run([cpy], readFileSync(file));
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stdout, /\n {2}likely: --encoding ascii: the text fields read as 100% printable text in ascii/);
  assert.equal((await run([cpy, '--input', file, '--encoding', 'ascii'])).code, 0);
});

test('a file cut short: the record, its offset and the bytes left', async () => {
  const whole = dataset('items.cut', { recfm: 'F', lrecl: LENGTH }, 8);
  writeFileSync(whole, readFileSync(whole).subarray(0, 7 * LENGTH + 20));
  const r = await run([cpy, '--input', whole]);
  assert.equal(r.code, 1);
  assert.match(r.stdout, /^does not match at record 8 \(byte 343\): the file ends 20 bytes into a 49-byte record/);
  assert.match(r.stdout, /7 records match before it; 20 of the file's 363 bytes are from there on/);
});

test('usage errors: a missing file, a bad option', async () => {
  const missing = await run([cpy, '--input', join(dir, 'nothing.dat')]);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /cannot read .*nothing\.dat: no such file/);
  const bad = await run([cpy, '--recfm', 'U']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--recfm must be one of F, FB, V, VB/);
});

test('the usage names verify', async () => {
  const out = sink();
  const code = await main(['dataset', '--help'], {
    stdin: Readable.from([]),
    stdout: out.stream,
    stderr: sink().stream,
  });
  assert.equal(code, 0);
  assert.match(
    out.text(),
    /corebridge dataset verify LAYOUT\.cpy \[--input FILE\] +does the file match\? exit 0 if so, else 1/,
  );
});

test('on a terminal, a progress bar on stderr (bytes, records per second), cleared at the end; none with --quiet', async () => {
  const file = dataset('items.bar', { recfm: 'F', lrecl: LENGTH }, 40);
  const r = await run([cpy, '--input', file], undefined, true);
  assert.equal(r.code, 0);
  assert.equal(r.stdout, `OK: 40 records, ${40 * LENGTH} bytes, F lrecl 49\n`);
  assert.match(r.stderr, /\d+% \| 0\.0 MB of 0\.0 MB \| \d+ records\/s \| ETA/);
  const quiet = await run([cpy, '--input', file, '--quiet'], undefined, true);
  assert.deepEqual([quiet.code, quiet.stderr], [0, '']);
});

test('German text in cp273 read as cp1140: OK, but a hint naming cp273 first among the pages it cannot tell apart (iconv made the file)', async () => {
  const notes = join(dir, 'notes.cpy');
  writeFileSync(
    notes,
    ['       01  NOTE-REC.', '           05  NOTE-ID    PIC 9(4).', '           05  NOTE-TEXT  PIC X(36).'].join('\n'),
  );
  const lines = [
    'Lieferung nach München',
    'Größe 42, Farbe grün',
    'Übergabe an Frau Schäfer',
    'Straße gesperrt, Rückruf',
  ];
  const text = Array.from({ length: 12 }, (_, i) => `${String(i).padStart(4, '0')}${lines[i % 4]!.padEnd(36)}`).join(
    '',
  );
  const path = join(dir, 'notes.273');
  writeFileSync(path, execFileSync('iconv', ['-f', 'UTF-8', '-t', 'IBM273'], { input: text }));
  const r = await run([notes, '--input', path]);
  assert.equal(r.code, 0, r.stderr);
  const lines2 = r.stdout.split('\n');
  assert.equal(lines2[0], 'OK: 12 records, 480 bytes, F lrecl 40');
  assert.equal(lines2[1], 'but its text reads better in another code page:');
  // Italian cp280 reads ü as è, Danish cp1142 as å: letters too, so named, with their readings, and none claimed
  assert.match(
    lines2[2]!,
    /^ {2}likely: --encoding cp273, cp1141, [^:]+… \(\d+ code pages\): the words of the text fields /,
  );
  assert.match(lines2[2]!, /\("München", not "M}nchen"\)/);
  assert.match(lines2[2]!, /they read its national letters differently \("München" in cp273, "Mènchen" in cp280/);
  const right = await run([notes, '--input', path, '--encoding', 'cp273']);
  assert.deepEqual([right.code, right.stdout], [0, 'OK: 12 records, 480 bytes, F lrecl 40\n']);
});

test('--segments: each record checked with its segment; unknown segment ids named with record and offset', async () => {
  const seg = join(dir, 'seg.cpy');
  writeFileSync(
    seg,
    [
      '       01  CUSTOMER-REC.',
      '           05  CUST-SEG-ID  PIC X.',
      '           05  CUST-ID      PIC 9(4).',
      '           05  CUST-NAME    PIC X(10).',
      '       01  ACCOUNT-REC.',
      '           05  ACCT-SEG-ID  PIC X.',
      '           05  ACCT-NO      PIC X(6).',
      '           05  ACCT-BAL     PIC S9(7)V99 COMP-3.',
    ].join('\n'),
  );
  const spec = join(dir, 'seg.json');
  writeFileSync(spec, JSON.stringify({ field: 'CUST-SEG-ID', segments: { C: 'CUSTOMER-REC', A: 'ACCOUNT-REC' } }));
  const customer = compileCopybook(readFileSync(seg, 'utf8'), { record: 'CUSTOMER-REC' });
  const account = compileCopybook(readFileSync(seg, 'utf8'), { record: 'ACCOUNT-REC' });
  const writer = new RecordWriter({ recfm: 'V' });
  for (let i = 0; i < 5; i++) {
    writer.write(customer.encode({ custSegId: i === 3 ? 'Q' : 'C', custId: i, custName: `CUST ${i}` }));
    writer.write(account.encode({ acctSegId: 'A', acctNo: `AC${i}`, acctBal: '1.25' }));
  }
  const path = join(dir, 'seg.v');
  writeFileSync(path, writer.end());
  // customers are 19 bytes with their RDW, accounts 16: record 7 (the fourth customer) starts at 3 × 35
  const r = await run([seg, '--input', path, '--recfm', 'V', '--segments', spec]);
  assert.equal(r.code, 1, r.stderr);
  const lines = r.stdout.split('\n');
  assert.match(
    lines[0]!,
    /^does not match at record 7 \(byte 105, CUST-SEG-ID\): segment id "Q" is not in the segments file \("C", "A"\)/,
  );
  assert.equal(
    lines[1],
    "  read as V, big-endian RDWs: 6 records match before it; 70 of the file's 175 bytes are from there on",
  );
  assert.equal(lines[2], '  segment ids not in the segments file: "Q" at record 7 (byte 105), 1 record');
  assert.match(r.stdout, /possible: record 7 has a segment id the segments file does not name/);
  writeFileSync(
    spec,
    JSON.stringify({ field: 'CUST-SEG-ID', segments: { C: 'CUSTOMER-REC', Q: 'CUSTOMER-REC', A: 'ACCOUNT-REC' } }),
  );
  const ok = await run([seg, '--input', path, '--recfm', 'V', '--segments', spec]);
  assert.deepEqual([ok.code, ok.stdout], [0, 'OK: 10 records, 175 bytes, V, big-endian RDWs\n']);
});

test('EBCDIC records of plain text read as ascii: exit 1, and a hint naming the pages that read it alike, none claimed', async () => {
  const path = dataset('items.037', { recfm: 'F', lrecl: LENGTH }, 10);
  // the text is what iconv makes of it in cp037 (and in cp1140, the layout's default)
  const first = readFileSync(path).subarray(0, LENGTH);
  const judge = execFileSync('iconv', ['-f', 'ASCII', '-t', 'IBM037'], { input: `${'SKU-0'.padEnd(10)}00000` });
  assert.deepEqual(first.subarray(0, 15), judge);
  assert.equal((await run([cpy, '--input', path])).code, 0);
  const r = await run([cpy, '--input', path, '--encoding', 'ascii']);
  assert.equal(r.code, 1, r.stderr);
  const lines = r.stdout.split('\n');
  assert.match(lines[0]!, /^does not match at record 1 \(byte 0, ITEM-QTY\): invalid digit 0xf0 in a zoned decimal/);
  assert.equal(lines[2], 'hints:');
  assert.match(
    lines[3]!,
    /^ {2}possible: --encoding cp037, cp1140, cp500, cp1148, cp1047… \(\d+ code pages\): the text fields read as \d+% printable text in each of the \d+ code pages, against \d+% in ascii, and the records decode with them; they differ only in letters and symbols this text does not use, so it cannot tell which one wrote it: use the code page of the system that wrote the file$/,
  );
  assert.equal((await run([cpy, '--input', path, '--encoding', 'cp037'])).code, 0);
});
