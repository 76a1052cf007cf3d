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
  compileSegments,
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

test('EBCDIC text (iconv made it) read as ASCII: the file matches, with a hint naming the EBCDIC pages it cannot choose among', async () => {
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
  const hint = report.hints[0]!;
  assert.equal(hint.confidence, 'likely');
  // plain letters and digits: every EBCDIC page with the same letters reads it alike, so no flag is claimed
  assert.deepEqual(hint.flags, []);
  assert.deepEqual(hint.encodings?.slice(0, 5), ['cp037', 'cp1140', 'cp500', 'cp1148', 'cp1047']);
  assert.ok(hint.encodings!.includes('cp273') && hint.encodings!.includes('cp277'));
  assert.match(
    formatVerifyReport(report),
    new RegExp(
      `^OK: 12 records, 480 bytes, F lrecl 40\\nbut its text reads better in another code page:\\n {2}likely: --encoding cp037, cp1140, cp500, cp1148, cp1047… \\(${hint.encodings!.length} code pages\\): `,
    ),
  );
  assert.match(
    hint.reason,
    /they differ only in letters and symbols this text does not use, so it cannot tell which one wrote it/,
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

/** Records of `LENGTH` bytes, each with a line end after it (the docs' `many-nl.fb`). */
function withLineEnds(recs: Uint8Array[]): Buffer {
  return Buffer.concat(recs.map((r) => Buffer.concat([r, Buffer.from('\n')])));
}

test('identical records with a line end after each: the shortest length, and not certain since its multiples fit', async () => {
  // 999 × 46 bytes: 138 (3 records) and others divide the file as well, and decode
  const one = records(1)[0]!;
  const bytes = withLineEnds(Array.from({ length: 999 }, () => one));
  const report = await verify(bytes, { recfm: 'F', lrecl: LENGTH });
  assert.equal(report.matches, false);
  const lengths = report.hints.filter((h) => h.kind === 'length');
  assert.equal(lengths.length, 1, formatVerifyReport(report));
  assert.deepEqual(lengths[0]!.flags, ['--lrecl', '46']);
  assert.equal(lengths[0]!.confidence, 'likely');
  assert.match(lengths[0]!.reason, /every record is the same, so 138, 414, 1242-byte records read it as well/);
});

test('records that repeat every three, with a line end after each: 46, not 138, and not certain', async () => {
  const three = records(3);
  const bytes = withLineEnds(Array.from({ length: 999 }, (_, i) => three[i % 3]!));
  const report = await verify(bytes, { recfm: 'F', lrecl: LENGTH });
  const hint = report.hints.find((h) => h.kind === 'length');
  assert.deepEqual(hint?.flags, ['--lrecl', '46'], formatVerifyReport(report));
  assert.equal(hint?.confidence, 'likely');
  assert.match(hint!.reason, /the records repeat every 3, so 138, 414, 1242-byte records read it as well/);
});

test('varied records with a line end after each: certain, the record length and no other', async () => {
  const bytes = withLineEnds(records(999));
  const report = await verify(bytes, { recfm: 'F', lrecl: LENGTH });
  const hint = report.hints.find((h) => h.kind === 'length');
  assert.deepEqual(hint?.flags, ['--lrecl', '46'], formatVerifyReport(report));
  assert.equal(hint?.confidence, 'certain');
  assert.doesNotMatch(hint!.reason, /as well/);
  assert.equal((await verify(bytes, { recfm: 'F', lrecl: 46 })).matches, true);
});

const ADDRESSES = [
  '       01  ADDR-REC.',
  '           05  ADDR-ID      PIC 9(6).',
  '           05  ADDR-NAME    PIC X(24).',
  '           05  ADDR-STREET  PIC X(24).',
  '           05  ADDR-CITY    PIC X(16).',
].join('\n');
const addresses = (encoding: Charset) => compileCopybook(ADDRESSES, { encoding });

const GERMAN = [
  ['Bäckerei Schön GmbH', 'Hauptstraße 12', 'München'],
  ['Müller & Söhne KG', 'Königsallee 3', 'Düsseldorf'],
  ['Jürgen Weiß', 'Große Bleiche 7', 'Mainz'],
  ['Gärtnerei Fröhlich', 'Schloßstraße 44', 'Würzburg'],
  ['Hans Groß', 'Lübecker Straße 9', 'Lübeck'],
  ['STRASSENBAU SÜD AG', 'ÄUSSERE RINGSTRASSE 2', 'NÜRNBERG'],
  ['Anna Fuchs', 'Bahnhofstraße 8', 'Göttingen'],
  ['Peter Schäfer', 'Gartenweg 15', 'Gießen'],
];
const FRENCH = [
  ['Boulangerie Lefèvre', '12 rue de la Paix', 'Besançon'],
  ['Hélène Dupré', "3 place de l'Église", 'Nîmes'],
  ['Café du Marché', '8 bd Sébastopol', 'Orléans'],
  ['François Garçon', '5 allée des Pêcheurs', 'Sète'],
  ['Crèmerie Noël', '22 rue Émile Zola', 'Sceaux'],
  ['Pâtisserie Côté', '14 avenue Foch', 'Genève'],
];
const ENGLISH = [
  ['ANNA SMITH', 'ANNA@EXAMPLE.COM', 'LONDON'],
  ['ACME CORP #12', 'PO BOX 44', 'BOSTON'],
  ['B. JONES & SONS', 'INFO@JONES.CO.UK', 'DALLAS'],
  ["PETER O'HARA", 'SALES@OHARA.COM', 'CHICAGO'],
];

/** Address records as text, converted by glibc iconv to `iconvName` (the judge of what each code page holds). */
function addressFile(rows: string[][], iconvName: string, n = 24): Buffer {
  const text = Array.from({ length: n }, (_, i) => {
    const [name, street, city] = rows[i % rows.length]!;
    return `${String(i + 1).padStart(6, '0')}${name!.padEnd(24)}${street!.padEnd(24)}${city!.padEnd(16)}`;
  }).join('');
  const bytes = execFileSync('iconv', ['-f', 'UTF-8', '-t', iconvName], { input: text });
  assert.equal(bytes.length, n * 70);
  return bytes;
}

function verifyAddresses(bytes: Uint8Array, encoding: Charset) {
  return verifyDataset(opener(bytes), addresses(encoding), { framing: { recfm: 'F', lrecl: 70 }, compile: addresses });
}

test('German text in cp273 read as cp1140: it matches, the words read as words in cp273 first, or its euro twin', async () => {
  const bytes = addressFile(GERMAN, 'IBM273');
  const report = await verifyAddresses(bytes, 'cp1140');
  assert.equal(report.matches, true);
  assert.equal(report.hints.length, 1, formatVerifyReport(report));
  const hint = report.hints[0]!;
  // cp1141 is cp273 with € for ¤: text without either reads the same in both, so neither is claimed
  assert.deepEqual(hint.flags, []);
  assert.deepEqual(hint.encodings, ['cp273', 'cp1141']);
  assert.equal(hint.confidence, 'likely');
  assert.match(hint.reason, /read as words in both code pages: 100% of \d+, against \d+% in cp1140/);
  assert.match(
    hint.reason,
    /\("Bäckerei", not "B\{ckerei"\); the records decode with them; they differ only in letters/,
  );
  assert.match(
    formatVerifyReport(report),
    /^OK: 24 records, 1680 bytes, F lrecl 70\nbut its text reads better in another code page:\n {2}likely: --encoding cp273 or cp1141: the words/,
  );
  // the hint's code page gives the text iconv gives, and then verify has nothing to say
  const decoded = addresses('cp273').decode(bytes.subarray(70, 140));
  const judge = execFileSync('iconv', ['-f', 'IBM273', '-t', 'UTF-8'], { input: bytes.subarray(70, 140) }).toString();
  assert.equal(decoded.addrName, judge.slice(6, 30).trimEnd());
  assert.equal(decoded.addrName, 'Müller & Söhne KG');
  const right = await verifyAddresses(bytes, 'cp273');
  assert.deepEqual([right.matches, right.hints], [true, []]);
});

test('German text read as cp037 or cp500: the same hint; French text in cp297 read as cp1140: cp297 first', async () => {
  const german = addressFile(GERMAN, 'IBM273');
  for (const wrong of ['cp037', 'cp500'] as const) {
    const report = await verifyAddresses(german, wrong);
    assert.deepEqual(report.hints[0]?.encodings, ['cp273', 'cp1141'], formatVerifyReport(report));
  }
  const french = addressFile(FRENCH, 'IBM297');
  const report = await verifyAddresses(french, 'cp1140');
  assert.equal(report.matches, true);
  const hint = report.hints[0]!;
  assert.equal(hint.confidence, 'likely', formatVerifyReport(report));
  // Italian cp280 gives letters at the same bytes (é → à): a tie, named, with the readings that differ
  assert.deepEqual(hint.encodings, ['cp297', 'cp1147', 'cp280', 'cp1144']);
  assert.match(
    hint.reason,
    /they read its national letters differently \("Hélène" in cp297, "Hàlène" in cp280\), and the text cannot tell/,
  );
  assert.deepEqual((await verifyAddresses(french, 'cp297')).hints, []);
});

test('English text with @ and # in cp037: no hint in cp1140; read as cp273, the @ rules cp273 out, not the pages with a letter there', async () => {
  const english = addressFile(ENGLISH, 'IBM037');
  assert.deepEqual((await verifyAddresses(english, 'cp1140')).hints, []);
  assert.deepEqual((await verifyAddresses(english, 'cp037')).hints, []);
  const report = await verifyAddresses(english, 'cp273');
  assert.equal(report.matches, true);
  const hint = report.hints[0]!;
  assert.deepEqual(hint.flags, [], formatVerifyReport(report));
  assert.deepEqual(hint.encodings?.slice(0, 3), ['cp037', 'cp1140', 'cp500']);
  assert.ok(!hint.encodings!.includes('cp273') && !hint.encodings!.includes('cp1141'));
  assert.match(hint.reason, /\("ANNA@EXAMPLE\.COM", not "ANNA§EXAMPLE\.COM"\)/);
  // Danish cp277 has Ø where cp037 has @: a word either way, so it is named, with its reading
  assert.match(hint.reason, /differently \("ANNA@EXAMPLE\.COM" in cp037, "ANNAØEXAMPLE\.COM" in cp277/);
});

const DANISH = [
  ['Søren Kierkegaard', 'Nørregade 12', 'København'],
  ['Bæk & Sønner ApS', 'Åboulevarden 3', 'Århus'],
  ['Jørgen Æbelø', 'Fælledvej 7', 'Ålborg'],
  ['Mette Frølund', 'Østergade 44', 'Odense'],
  ['Blåbær Grønt', 'Strandvejen 9', 'Hellerup'],
  ['ØSTERBRO BAGERI', 'ÆBLEHAVEN 2', 'KØGE'],
];

test('Danish text in cp277 read as cp1140: not cp273 (Ø is § there), cp277 first, the Nordic pages named alike', async () => {
  const bytes = addressFile(DANISH, 'IBM277');
  const report = await verifyAddresses(bytes, 'cp1140');
  assert.equal(report.matches, true);
  assert.equal(report.hints.length, 1, formatVerifyReport(report));
  const hint = report.hints[0]!;
  assert.deepEqual(hint.flags, []);
  // Swedish cp278 puts ä ö å Ä Ö Å at the bytes of æ ø å Æ Ø Å: its words are words too
  assert.deepEqual(hint.encodings?.slice(0, 4), ['cp277', 'cp1142', 'cp278', 'cp1143'], formatVerifyReport(report));
  for (const out of ['cp273', 'cp1141', 'cp280', 'cp1026'] as const) assert.ok(!hint.encodings!.includes(out), out);
  assert.match(hint.reason, /differently \("Søren" in cp277, "Sören" in cp278/);
  assert.match(
    formatVerifyReport(report),
    /\n {2}likely: --encoding cp277, cp1142, cp278, cp1143, \S+… \(\d+ code pages\): /,
  );
  // the first reading is iconv's
  const judge = execFileSync('iconv', ['-f', 'IBM277', '-t', 'UTF-8'], { input: bytes.subarray(0, 70) }).toString();
  assert.equal(addresses('cp277').decode(bytes.subarray(0, 70)).addrName, judge.slice(6, 30).trimEnd());
  assert.deepEqual((await verifyAddresses(bytes, 'cp277')).hints, []);
});

test('Danish words in lower case only (æ ø å): the German page reads them as words too, so the hint names both and claims neither', async () => {
  const lower = DANISH.slice(0, 5).map((row) => row.map((text) => text.replace(/[ÆØÅ]/g, 'E').replace(/&/g, 'og')));
  const report = await verifyAddresses(addressFile(lower, 'IBM277'), 'cp1140');
  const hint = report.hints[0]!;
  assert.deepEqual(hint.flags, [], formatVerifyReport(report));
  assert.ok(hint.encodings!.includes('cp273') && hint.encodings!.includes('cp277'), formatVerifyReport(report));
  assert.match(hint.reason, /"Søren" in cp277/);
  assert.match(
    hint.reason,
    /the text cannot tell which is right: use the code page of the system that wrote the file$/,
  );
});

test('EBCDIC records read as ascii do not match: German text ranks cp273 first, plain text names the pages alike', async () => {
  const german = await verifyAddresses(addressFile(GERMAN, 'IBM273'), 'ascii');
  assert.equal(german.matches, false);
  const hint = german.hints.find((h) => h.kind === 'encoding');
  assert.deepEqual(hint?.encodings, ['cp273', 'cp1141'], formatVerifyReport(german));
  assert.match(
    hint!.reason,
    /^the text fields read as \d+% printable text in both code pages, against \d+% in ascii, and the records decode with them; their words with national letters or symbols read as words in each \(100% of \d+\)/,
  );
  const plain = await verifyAddresses(
    addressFile(
      ENGLISH.map((row) => row.map((text) => text.replace(/[^A-Z0-9 ]/g, ' '))),
      'IBM037',
    ),
    'ascii',
  );
  assert.equal(plain.matches, false);
  const tie = plain.hints.find((h) => h.kind === 'encoding')!;
  assert.deepEqual(tie.flags, []);
  assert.deepEqual(tie.encodings?.slice(0, 8), [
    'cp037',
    'cp1140',
    'cp500',
    'cp1148',
    'cp1047',
    'cp273',
    'cp1141',
    'cp297',
  ]);
  assert.match(
    tie.reason,
    /they differ only in letters and symbols this text does not use, so it cannot tell which one wrote it/,
  );
});

test('the progress callback: the bytes read and records checked, to the end of the file', async () => {
  const bytes = file({ recfm: 'F', lrecl: LENGTH }, records(20));
  const seen: [number, number][] = [];
  await verifyDataset(opener(bytes), layout, {
    framing: { recfm: 'F', lrecl: LENGTH },
    onProgress: (b, r) => seen.push([b, r]),
  });
  assert.equal(seen.length, 9);
  assert.deepEqual(seen[0], [100, 2]);
  assert.deepEqual(seen.at(-1), [900, 20]);
});

const SEGMENTS = [
  '       01  CUSTOMER-REC.',
  '           05  CUST-SEG-ID  PIC X.',
  '           05  CUST-ID      PIC 9(4).',
  '           05  CUST-NAME    PIC X(10).',
  '       01  ACCOUNT-REC.',
  '           05  ACCT-SEG-ID  PIC X.',
  '           05  ACCT-NO      PIC X(6).',
  '           05  ACCT-BAL     PIC S9(7)V99 COMP-3.',
].join('\n');
const SPEC = { field: 'CUST-SEG-ID', segments: { C: 'CUSTOMER-REC', A: 'ACCOUNT-REC' } };

test('a multi-segment V file: each record checked with its segment, and the unknown segment ids listed', async () => {
  const segmented = (encoding: Charset = 'cp1140') => compileSegments(SEGMENTS, SPEC, { encoding });
  const layout = segmented();
  const recs: Uint8Array[] = [];
  for (let i = 0; i < 6; i++) {
    recs.push(layout.encode({ customerRec: { custSegId: 'C', custId: i, custName: `CUST ${i}` } }));
    recs.push(layout.encode({ accountRec: { acctSegId: 'A', acctNo: `AC${i}`, acctBal: '12.50' } }));
  }
  const good = file({ recfm: 'V' }, recs);
  const ok = await verifyDataset(opener(good), layout, { framing: { recfm: 'V' }, compile: segmented });
  assert.deepEqual([ok.matches, ok.records, ok.unknownSegments, ok.hints], [true, 12, [], []]);
  assert.equal(formatVerifyReport(ok), `OK: 12 records, ${good.length} bytes, V, big-endian RDWs\n`);

  // records 4 and 9 have ids X and Z, record 11 X again; an account's bad packed decimal is not an unknown id
  const ebcdic = (ch: string) => execFileSync('iconv', ['-f', 'ASCII', '-t', 'IBM1140'], { input: ch })[0]!;
  const bad = recs.map((r) => Buffer.from(r));
  bad[3]![0] = ebcdic('X');
  bad[8]![0] = ebcdic('Z');
  bad[10]![0] = ebcdic('X');
  const bytes = file({ recfm: 'V' }, bad);
  const report = await verifyDataset(opener(bytes), layout, { framing: { recfm: 'V' }, compile: segmented });
  assert.equal(report.matches, false);
  assert.equal(report.failure?.record, 4);
  assert.equal(report.failure?.field, 'CUST-SEG-ID');
  const offset4 = bad.slice(0, 3).reduce((n, r) => n + r.length + 4, 0);
  const offset9 = bad.slice(0, 8).reduce((n, r) => n + r.length + 4, 0);
  assert.equal(report.failure?.offset, offset4);
  assert.deepEqual(report.unknownSegments, [
    { id: 'X', record: 4, offset: offset4, count: 2 },
    { id: 'Z', record: 9, offset: offset9, count: 1 },
  ]);
  const text = formatVerifyReport(report);
  assert.match(
    text,
    /^does not match at record 4 \(byte \d+, CUST-SEG-ID\): segment id "X" is not in the segments file/,
  );
  assert.match(
    text,
    new RegExp(
      `\\n {2}segment ids not in the segments file: "X" at record 4 \\(byte ${offset4}\\), 2 records; "Z" at record 9 \\(byte ${offset9}\\), 1 record\\n`,
    ),
  );
  assert.match(text, /possible: record 4 has a segment id the segments file does not name: add it to "segments"/);
});

test('a V file of German text read as F in ascii: the format hint takes cp273, the first of the pages alike, and says so', async () => {
  const bytes = addressFile(GERMAN, 'IBM273');
  const recs = Array.from({ length: 24 }, (_, i) => bytes.subarray(i * 70, i * 70 + 70));
  const report = await verifyAddresses(file({ recfm: 'V' }, recs), 'ascii');
  assert.equal(report.matches, false);
  const format = hintWith(report, ['--recfm', 'V', '--encoding', 'cp273']);
  assert.equal(format?.confidence, 'certain', formatVerifyReport(report));
  assert.match(
    format!.reason,
    /with code page cp273 \(or another that reads its text alike: see the code-page hint\)$/,
  );
  assert.deepEqual(report.hints.find((h) => h.kind === 'encoding')?.encodings, ['cp273', 'cp1141']);
});

test('German records longer than the layout read in ascii: the length hint takes cp273 and says others read alike', async () => {
  const bytes = addressFile(GERMAN, 'IBM273');
  const padded = Array.from({ length: 24 }, (_, i) =>
    Buffer.concat([bytes.subarray(i * 70, i * 70 + 70), Buffer.alloc(6, 0x40)]),
  );
  const report = await verifyAddresses(Buffer.concat(padded), 'ascii');
  const length = hintWith(report, ['--lrecl', '76', '--encoding', 'cp273']);
  assert.ok(length, formatVerifyReport(report));
  assert.match(length.reason, /; code page cp273, or another that reads its text alike: see the code-page hint$/);
});

test('German text with € in cp1141: the euro tells it from cp273 (¤ there), so the hint names cp1141 alone', async () => {
  const prices = GERMAN.map(([name, street, city], i) => [name!, street!, `${city!.slice(0, 10)} ${i + 5} €`]);
  const bytes = addressFile(prices, 'IBM1141');
  const report = await verifyAddresses(bytes, 'cp1140');
  assert.equal(report.hints.length, 1, formatVerifyReport(report));
  const hint = report.hints[0]!;
  assert.deepEqual([hint.flags, hint.encodings], [['--encoding', 'cp1141'], undefined]);
  assert.equal(hint.confidence, 'likely');
  assert.match(
    hint.reason,
    /read as words in cp1141: 100% of \d+, against \d+% in cp1140 \("Bäckerei", not "B\{ckerei"\); the records decode with it$/,
  );
  assert.match(formatVerifyReport(report), /\n {2}likely: --encoding cp1141: the words/);
});
