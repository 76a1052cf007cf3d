/**
 * `verifyDataset`: whether a file matches its layout and record format, where it stops matching, and the hints
 * that say what would match, on files the library's own writer frames.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { compileCopybook, type Charset } from '../src/index.ts';
import {
  formatVerifyReport,
  RecordWriter,
  verifyDataset,
  type FramingOptions,
  type VerifyReport,
} from '../src/dataset/index.ts';

const COPYBOOK = [
  '       01  CUST-REC.',
  '           05  CUST-ID      PIC 9(6).',
  '           05  CUST-NAME    PIC X(20).',
  '           05  CUST-CITY    PIC X(14).',
  '           05  CUST-BAL     PIC S9(7)V99 COMP-3.',
].join('\n');
const LENGTH = 45;

const compile = (encoding?: Charset) => compileCopybook(COPYBOOK, encoding === undefined ? {} : { encoding });
const layout = compile();
const CITIES = ['BERLIN', 'HAMBURG', 'MUENCHEN', 'KOELN', 'FRANKFURT'];

function records(n: number, encoding?: Charset): Uint8Array[] {
  const l = compile(encoding);
  return Array.from({ length: n }, (_, i) =>
    l.encode({
      custId: 1000 + i,
      custName: `CUSTOMER NUMBER ${i}`,
      custCity: CITIES[i % CITIES.length],
      custBal: (i * 37.5).toFixed(2),
    }),
  );
}

function file(framing: FramingOptions, recs: Uint8Array[]): Buffer {
  const writer = new RecordWriter(framing);
  const parts: Uint8Array[] = [];
  for (const r of recs) {
    writer.write(r);
    parts.push(writer.take());
  }
  parts.push(writer.end());
  return Buffer.concat(parts);
}

/** The file as a stream of small chunks, so records straddle them. */
function opener(bytes: Uint8Array) {
  return async function* () {
    for (let i = 0; i < bytes.length; i += 100) yield bytes.subarray(i, i + 100);
  };
}

function verify(
  bytes: Uint8Array,
  framing: FramingOptions,
  options: { sampleBytes?: number; layout?: typeof layout } = {},
) {
  return verifyDataset(opener(bytes), options.layout ?? layout, { framing, compile, sampleBytes: options.sampleBytes });
}

function hintWith(report: VerifyReport, flags: string[]) {
  return report.hints.find((h) => h.flags.join(' ') === flags.join(' '));
}

test('an F file that matches: its record count and size', async () => {
  const bytes = file({ recfm: 'F', lrecl: LENGTH }, records(20));
  const report = await verify(bytes, { recfm: 'F', lrecl: LENGTH });
  assert.equal(report.matches, true);
  assert.equal(report.records, 20);
  assert.equal(report.bytes, 900);
  assert.deepEqual(report.hints, []);
  assert.equal(formatVerifyReport(report), 'OK: 20 records, 900 bytes, F lrecl 45\n');
});

test('a V file checked as F: where it stops matching, and a sure hint that it is V', async () => {
  const bytes = file({ recfm: 'V' }, records(10));
  const report = await verify(bytes, { recfm: 'F', lrecl: LENGTH });
  assert.equal(report.matches, false);
  assert.equal(report.failure?.record, 1);
  assert.equal(report.failure?.offset, 0);
  assert.equal(report.failure?.field, 'CUST-ID');
  assert.equal(report.records, 0);
  const hint = hintWith(report, ['--recfm', 'V']);
  assert.equal(hint?.confidence, 'certain', formatVerifyReport(report));
  assert.equal(report.hints[0], hint);
  const text = formatVerifyReport(report);
  assert.match(text, /^does not match at record 1 \(byte 0, CUST-ID\): /);
  assert.match(text, /\n {2}certain: --recfm V: the whole file reads as V: 10 records \(RDW\)/);
});

test('a V file larger than the sample: the hint is likely, not certain', async () => {
  const bytes = file({ recfm: 'V' }, records(200));
  const report = await verify(bytes, { recfm: 'F', lrecl: LENGTH }, { sampleBytes: 1000 });
  assert.equal(report.bytes, 200 * (LENGTH + 4));
  assert.equal(hintWith(report, ['--recfm', 'V'])?.confidence, 'likely', formatVerifyReport(report));
});

test('a VB file checked as V: the hint is VB', async () => {
  const bytes = file({ recfm: 'VB', blksize: 400 }, records(30));
  const report = await verify(bytes, { recfm: 'V' });
  assert.equal(report.matches, false);
  assert.equal(report.failure?.record, 1);
  const hint = hintWith(report, ['--recfm', 'VB']);
  assert.equal(hint?.confidence, 'certain', formatVerifyReport(report));
  assert.equal(report.hints[0], hint);
});

test('RDWs written little-endian: the hint is --rdw little', async () => {
  const bytes = file({ recfm: 'V', rdw: 'little' }, records(12));
  const report = await verify(bytes, { recfm: 'V' });
  assert.equal(report.matches, false);
  assert.match(report.failure!.reason, /ends inside the record: its RDW says 12544 bytes/);
  const hint = hintWith(report, ['--recfm', 'V', '--rdw', 'little']);
  assert.equal(hint?.confidence, 'certain', formatVerifyReport(report));
  assert.equal(report.hints[0], hint);
  assert.equal(await verify(bytes, { recfm: 'V', rdw: 'little' }).then((r) => r.matches), true);
});

test('a text file with a line end after each record: it says so, and how to read it', async () => {
  const lines = records(15, 'ascii').map((r) => Buffer.concat([r, Buffer.from('\n')]));
  const bytes = Buffer.concat(lines);
  const report = await verify(bytes, { recfm: 'F', lrecl: LENGTH });
  assert.equal(report.matches, false);
  const hint = report.hints.find((h) => h.kind === 'file');
  assert.match(hint?.reason ?? '', /text file with line ends \(LF\).*transferred in text mode/);
  assert.deepEqual(hint?.flags, ['--lrecl', '46', '--encoding', 'ascii']);
  assert.equal(hint?.confidence, 'likely');
  const fixed = await verifyDataset(opener(bytes), compile('ascii'), { framing: { recfm: 'F', lrecl: 46 } });
  assert.equal(fixed.matches, true);
});

test('lines of different lengths: a text file no record length reads', async () => {
  const text = CITIES.map((c, i) => `${String(i).padStart(6, '0')}${c}\r\n`).join('');
  const report = await verify(Buffer.from(text, 'latin1'), { recfm: 'F', lrecl: LENGTH });
  const hint = report.hints.find((h) => h.kind === 'file');
  assert.match(hint?.reason ?? '', /\(CR LF\).*lines are 13 to 17 bytes long.*transfer it again in binary/);
  assert.deepEqual(hint?.flags, []);
});

test('an ASCII file read as cp037: the hint is the ascii code page', async () => {
  const bytes = file({ recfm: 'F', lrecl: LENGTH }, records(20, 'ascii'));
  const report = await verify(bytes, { recfm: 'F', lrecl: LENGTH }, { layout: compile('cp037') });
  assert.equal(report.matches, false);
  assert.equal(report.failure?.field, 'CUST-ID');
  const hint = report.hints.find((h) => h.kind === 'encoding');
  assert.deepEqual(hint?.flags, ['--encoding', 'ascii'], formatVerifyReport(report));
  assert.equal(hint?.confidence, 'likely');
  assert.match(hint!.reason, /printable text in ascii \(as do latin1\), against \d+% in cp037, and the records decode/);
  // no other length or format: the file is F at its length
  assert.deepEqual(
    report.hints.map((h) => h.kind),
    ['encoding'],
  );
});

test('an F file cut short: the offset of the partial record and the bytes left over', async () => {
  const whole = file({ recfm: 'F', lrecl: LENGTH }, records(10));
  const bytes = whole.subarray(0, 9 * LENGTH + 30);
  const report = await verify(bytes, { recfm: 'F', lrecl: LENGTH });
  assert.equal(report.matches, false);
  assert.equal(report.records, 9);
  assert.equal(report.failure?.record, 10);
  assert.equal(report.failure?.offset, 405);
  assert.equal(report.rest, 30);
  assert.match(report.failure!.reason, /ends 30 bytes into a 45-byte record/);
  assert.ok(
    report.hints.every((h) => h.confidence === 'possible'),
    formatVerifyReport(report),
  );
  assert.match(formatVerifyReport(report), /9 records match before it; 30 of the file's 435 bytes are from there on/);
});

test('records longer than the layout: the length that divides the file and lines them up', async () => {
  const padded = records(40).map((r) => Buffer.concat([r, Buffer.alloc(15, 0x40)]));
  const bytes = file({ recfm: 'F', lrecl: 60 }, padded);
  const report = await verify(bytes, { recfm: 'F', lrecl: LENGTH });
  assert.equal(report.matches, false);
  const hint = hintWith(report, ['--lrecl', '60']);
  assert.equal(hint?.confidence, 'certain', formatVerifyReport(report));
  assert.equal(report.hints[0], hint);
});

test('a bad record in the middle: the records before it match, and what that may mean', async () => {
  const bytes = file({ recfm: 'F', lrecl: LENGTH }, records(12));
  bytes[4 * LENGTH + 2] = 0x00;
  const report = await verify(bytes, { recfm: 'F', lrecl: LENGTH });
  assert.equal(report.records, 4);
  assert.equal(report.failure?.record, 5);
  assert.equal(report.failure?.offset, 180);
  assert.equal(report.failure?.field, 'CUST-ID');
  assert.match(report.failure!.reason, /invalid digit 0x00 in a zoned decimal, at byte 182/);
  assert.deepEqual(
    report.hints.map((h) => [h.confidence, h.flags]),
    [['possible', []]],
  );
  assert.match(report.hints[0]!.reason, /^the 4 records before byte 180 match: record 5 holds data the layout/);
});

const NOTES = [
  '       01  NOTE-REC.',
  '           05  NOTE-ID    PIC X(8).',
  '           05  NOTE-TEXT  PIC X(32).',
].join('\n');
const NOTE_TEXT = Array.from(
  { length: 12 },
  (_, i) => `N${String(i).padStart(7, '0')}${`Delivery note ${i}, gate B`.padEnd(32)}`,
).join('');

test('EBCDIC text (iconv made it) read as ASCII: text decodes either way, so the file matches with a hint', async () => {
  const ebcdic = execFileSync('iconv', ['-f', 'ASCII', '-t', 'IBM037'], { input: NOTE_TEXT });
  assert.equal(ebcdic.length, 12 * 40);
  const notes = (encoding: Charset) => compileCopybook(NOTES, { encoding });
  const report = await verifyDataset(opener(ebcdic), notes('ascii'), {
    framing: { recfm: 'F', lrecl: 40 },
    compile: notes,
  });
  assert.equal(report.matches, true);
  assert.equal(report.records, 12);
  assert.equal(report.hints.length, 1, formatVerifyReport(report));
  assert.equal(report.hints[0]!.confidence, 'likely');
  assert.deepEqual(report.hints[0]!.flags, ['--encoding', 'cp037']);
  assert.match(
    formatVerifyReport(report),
    /^OK: 12 records, 480 bytes, F lrecl 40\nbut its text reads better in another code page:\n {2}likely: --encoding cp037: /,
  );
  // and the same text in ASCII, read as ASCII: nothing to say
  const plain = await verifyDataset(opener(Buffer.from(NOTE_TEXT)), notes('ascii'), {
    framing: { recfm: 'F', lrecl: 40 },
    compile: notes,
  });
  assert.deepEqual([plain.matches, plain.hints], [true, []]);
});

test("a V file as GnuCOBOL writes it (lengths of the data alone), read as z/OS's: the hint is --rdw-adjust 4", async () => {
  const dir = new URL('./fixtures/datasets/', import.meta.url);
  const fixture = JSON.parse(readFileSync(new URL('variable-gnucobol.json', dir), 'utf8'));
  const bytes = readFileSync(new URL('variable-gnucobol.dat', dir));
  const gnucobol = compileCopybook(fixture.copybook.join('\n'), fixture.options);
  const report = await verifyDataset(opener(bytes), gnucobol, { framing: { recfm: 'V' } });
  assert.equal(report.matches, false);
  const hint = hintWith(report, ['--recfm', 'V', '--rdw-adjust', '4']);
  assert.ok(hint, formatVerifyReport(report));
  assert.equal(hint.confidence, 'certain');
  assert.match(hint.reason, /lengths that count the data only \(as GnuCOBOL writes them\)/);
  const adjusted = await verifyDataset(opener(bytes), gnucobol, { framing: { recfm: 'V', rdwAdjust: 4 } });
  assert.equal(adjusted.matches, true);
  assert.equal(adjusted.records, fixture.records.length);
});
