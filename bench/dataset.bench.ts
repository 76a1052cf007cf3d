/**
 * npm run bench:dataset: how fast `corebridge dataset decode|encode` converts a file of fixed-length EBCDIC
 * records to JSON Lines and back, beside the file's read speed and a hand-written decoder of the same record.
 *
 * Two records (z/OS profile, cp037): a DISPLAY-heavy customer record (names, addresses, dates as PIC 9, zoned
 * amounts) and a COMP-3-heavy account record (packed decimals, three texts). For each, a file of BENCH_MB of
 * varied records (written with RecordWriter and layout.encode from a seeded generator, no record repeated) in
 * os.tmpdir(). Measured, wall time, MB/s of the binary file (input for decode, output for encode):
 *   - `cat FILE > /dev/null`: what reading the file costs here (it is in the page cache);
 *   - the CLI as a user runs it, standard output to /dev/null: `node bin/corebridge.ts dataset decode LAYOUT.cpy
 *     --input FILE --encoding cp037 --quiet > /dev/null` (process start and copybook compile included), then with
 *     `--threads 1` and `--threads 2` when the CLI has that flag (the row says so when it has not);
 *   - in-process: decodeDatasetJsonLines (the CLI's path: each record's JSON written as bytes) and decodeDataset +
 *     toJsonLines (JSON values, then text) written to /dev/null, and two decoders written by hand for the one
 *     record (Buffer reads, a cp037 → Latin-1 table from iconv, zoned and packed digits) over the same 1 MiB
 *     chunks to the same sink: one builds each line as a string from numbers, the other writes the line's UTF-8
 *     bytes straight from the digits and characters; before any timing both must give the codec's JSON Lines for
 *     the first 1000 records, and a CLI encode of the codec's JSON Lines must give the file back byte for byte;
 *   - encode: the CLI (`dataset encode … --input FILE.jsonl > /dev/null`) and encodeBatches(readJsonLines(…)).
 * Rounds interleave every measurement of both records (reversed order every other round); it prints min, median
 * and max over BENCH_ROUNDS of MB/s by wall time and by CPU time (user + system: /usr/bin/time for a process,
 * process.cpuUsage() in-process), since on a shared machine the wall time is partly other processes' (the CPU
 * figure of --threads 2 adds both threads, so its gain shows in the wall figure only). The CLI's start-up
 * (`--limit 1`) is printed apart: every CLI row includes it. Then, unless BENCH_BIG=0, the peak resident memory
 * (/usr/bin/time's maximum RSS, else VmHWM polled from /proc) and the speed of CLI decodes of a BENCH_BIG_MB file
 * made by repeating the DISPLAY-heavy file's records, deleted afterwards: default options, then `--threads 1` and
 * `--threads 2` in turns for BENCH_BIG_ROUNDS rounds (the ratio by round and its median), then CSV and Parquet.
 * Prints figures; asserts no speed.
 *
 * Environment: BENCH_MB (300, per record), BENCH_ROUNDS (3), BENCH_BIG (1; 0 skips the big file), BENCH_BIG_MB
 * (2048), BENCH_BIG_ROUNDS (3), BENCH_KEEP=1 keeps the temporary directory (for a profile: its path is printed).
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  closeSync,
  createReadStream,
  mkdtempSync,
  openSync,
  existsSync,
  readFileSync,
  readSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileCopybook, type CompiledLayout } from '@corebridge/records';
import {
  decodeDataset,
  decodeDatasetJsonLines,
  encodeBatches,
  readJsonLines,
  RecordWriter,
  toJsonLines,
  type FramingOptions,
} from '@corebridge/records/dataset';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(ROOT, 'bin/corebridge.ts');
const MB = 1e6;
const BENCH_MB = Number(process.env.BENCH_MB ?? 300);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const BIG = process.env.BENCH_BIG !== '0';
const BIG_MB = Number(process.env.BENCH_BIG_MB ?? 2048);
const BIG_ROUNDS = Number(process.env.BENCH_BIG_ROUNDS ?? 3);
const KEEP = process.env.BENCH_KEEP === '1';
const ENCODING = 'cp037';

// ── a seeded generator, so every run writes the same files ──
function generator(seed: number) {
  let s = seed >>> 0;
  const next = (): number => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  return {
    int,
    pick: <T>(xs: readonly T[]): T => xs[int(xs.length)]!,
    date: (from: number, to: number) => (from + int(to - from)) * 10000 + (1 + int(12)) * 100 + 1 + int(28),
    digits: (n: number) => String(int(10 ** n)).padStart(n, '0'),
    /** A signed amount of `digits` digits with 2 decimals, as its JSON number. */
    cents: (digits: number, signed: boolean) => (signed && next() < 0.3 ? -1 : 1) * (int(10 ** digits) / 100),
  };
}
type Gen = ReturnType<typeof generator>;

const FIRST = [
  'Ada',
  'Grace',
  'Alan',
  'Zoë',
  'José',
  'Björn',
  'Amélie',
  'Katherine',
  'Dennis',
  'Margaret',
  'Edsger',
  'Frances',
  'John',
  'Barbara',
  'Niklaus',
  'Radia',
  'Tim',
  'Hedy',
  'Ken',
  'Sophie',
  'Ömer',
  'Chloé',
  'Liam',
  'Mia',
];
const LAST = [
  'Lovelace',
  'Hopper',
  'Turing',
  'Müller',
  'García',
  "O'Neil",
  'Hamilton',
  'Ritchie',
  'Dijkstra',
  'Allen',
  'Liskov',
  'Wirth',
  'Perlman',
  'Berners-Lee',
  'Lamarr',
  'Thompson',
  'Wilson',
  'Núñez',
  'Johansson',
  'Dubois',
  'Kowalski',
  'Rossi',
];
const STREETS = [
  'High',
  'Station',
  'Church',
  'Mill',
  'Victoria',
  'Queen',
  'King',
  'Park',
  'Bahnhof',
  'Rue de la Paix',
  'Calle Mayor',
  'Elm',
  'Maple',
  'Oak',
];
const KINDS = ['Street', 'Road', 'Avenue', 'Lane', 'Way', 'Close'];
const CITIES = [
  ['London', 'Greater London', 'GB'],
  ['Zürich', 'Zürich', 'CH'],
  ['Lyon', 'Auvergne-Rhône-Alpes', 'FR'],
  ['München', 'Bayern', 'DE'],
  ['Sevilla', 'Andalucía', 'ES'],
  ['Boston', 'Massachusetts', 'US'],
  ['Kraków', 'Małopolskie', 'PL'],
  ['Göteborg', 'Västra Götaland', 'SE'],
  ['Milano', 'Lombardia', 'IT'],
  ['Leeds', 'West Yorkshire', 'GB'],
] as const;
const NOTES = [
  '',
  '',
  '',
  'Prefers contact by letter',
  'Statements quarterly',
  'Prefers "paperless" statements',
  'Joint account holder deceased; see file',
  'VIP \\ relationship manager assigned',
  'Address verified by branch',
  'Do not call before 10:00',
];

/** cp037 has no Ł or ł; the generator keeps to what the code page can hold. */
const cp037Safe = (s: string) => s.replace(/ł/g, 'l').replace(/Ł/g, 'L');

interface Case {
  name: string;
  copybook: string;
  value(g: Gen, i: number): Record<string, unknown>;
  /** One record at `o` as its JSON line, written by hand for this record. */
  hand(b: Buffer, o: number): string;
  /** The same line as UTF-8 bytes appended to `out`, no string made but the keys'. */
  handBytes(b: Buffer, o: number): void;
}

// ── the hand-written decoder's parts: what an engineer writes for one known record ──
const CP037_TO_LATIN1 = Uint8Array.from(
  execFileSync('iconv', ['-f', 'IBM037', '-t', 'LATIN1'], {
    input: Buffer.from(Array.from({ length: 256 }, (_, i) => i)),
  }),
);
/** Latin-1 characters JSON escapes inside a string: controls, `"` and `\`. */
const ESCAPED = Uint8Array.from({ length: 256 }, (_, c) => (c < 0x20 || c === 0x22 || c === 0x5c ? 1 : 0));
const scratch = Buffer.allocUnsafe(256);
function text(b: Buffer, o: number, n: number): string {
  let end = o + n;
  while (end > o && b[end - 1] === 0x40) end--;
  let escape = 0;
  for (let i = o; i < end; i++) {
    const c = CP037_TO_LATIN1[b[i]!]!;
    scratch[i - o] = c;
    escape |= ESCAPED[c]!;
  }
  const s = scratch.toString('latin1', 0, end - o);
  return escape === 0 ? `"${s}"` : JSON.stringify(s);
}
function zoned(b: Buffer, o: number, n: number): number {
  let v = 0;
  for (let i = o; i < o + n; i++) v = v * 10 + (b[i]! & 15);
  return b[o + n - 1]! >> 4 === 0x0d ? -v : v;
}
function packed(b: Buffer, o: number, n: number): number {
  let v = 0;
  for (let i = o; i < o + n - 1; i++) v = v * 100 + (b[i]! >> 4) * 10 + (b[i]! & 15);
  const last = b[o + n - 1]!;
  v = v * 10 + (last >> 4);
  return (last & 15) === 0x0d ? -v : v;
}

// ── the second hand-written decoder: JSON Lines as bytes, straight from the record's digits and characters ──
const out = { b: Buffer.allocUnsafe(1 << 21), at: 0 };
const key = (s: string) => Buffer.from(s, 'latin1');
/** Each Latin-1 character inside a JSON string as its UTF-8 bytes, escaped as JSON.stringify escapes it. */
const JSON_CHAR = Array.from({ length: 256 }, (_, c) =>
  Buffer.from(JSON.stringify(String.fromCharCode(c)).slice(1, -1)),
);
function lit(k: Buffer): void {
  const o = out.b;
  let at = out.at;
  for (let i = 0; i < k.length; i++) o[at++] = k[i]!;
  out.at = at;
}
function textBytes(b: Buffer, o: number, n: number): void {
  let end = o + n;
  while (end > o && b[end - 1] === 0x40) end--;
  const ob = out.b;
  let at = out.at;
  ob[at++] = 0x22;
  for (let i = o; i < end; i++) {
    const c = CP037_TO_LATIN1[b[i]!]!;
    if (c >= 0x20 && c < 0x80 && c !== 0x22 && c !== 0x5c) ob[at++] = c;
    else for (const x of JSON_CHAR[c]!) ob[at++] = x;
  }
  ob[at++] = 0x22;
  out.at = at;
}
/** Ends a number written at `start`: no trailing zeros after the point, and -0 as 0, as JSON.stringify shows it. */
function endNumber(start: number, at: number, scale: number, negative: boolean): void {
  const ob = out.b;
  if (scale > 0) {
    while (ob[at - 1] === 0x30) at--;
    if (ob[at - 1] === 0x2e) at--;
  }
  if (negative && at === start + 2 && ob[start + 1] === 0x30) {
    ob[start] = 0x30;
    at = start + 1;
  }
  out.at = at;
}
/** A zoned decimal of `n` bytes with `scale` decimals (at least one integer digit). */
function zonedBytes(b: Buffer, o: number, n: number, scale: number): void {
  const ob = out.b;
  const start = out.at;
  let at = start;
  const negative = b[o + n - 1]! >> 4 === 0x0d;
  if (negative) ob[at++] = 0x2d;
  const point = o + n - scale;
  let i = o;
  while (i < point - 1 && (b[i]! & 15) === 0) i++;
  for (; i < point; i++) ob[at++] = 0x30 | (b[i]! & 15);
  if (scale > 0) {
    ob[at++] = 0x2e;
    for (; i < o + n; i++) ob[at++] = 0x30 | (b[i]! & 15);
  }
  endNumber(start, at, scale, negative);
}
/** A packed decimal of `n` bytes (2n - 1 digits) with `scale` decimals. */
function packedBytes(b: Buffer, o: number, n: number, scale: number): void {
  const ob = out.b;
  const start = out.at;
  let at = start;
  const negative = (b[o + n - 1]! & 15) === 0x0d;
  if (negative) ob[at++] = 0x2d;
  const digits = 2 * n - 1;
  const point = digits - scale;
  let k = 0;
  while (k < point - 1 && (k & 1 ? b[o + (k >> 1)]! & 15 : b[o + (k >> 1)]! >> 4) === 0) k++;
  for (; k < point; k++) ob[at++] = 0x30 | (k & 1 ? b[o + (k >> 1)]! & 15 : b[o + (k >> 1)]! >> 4);
  if (scale > 0) {
    ob[at++] = 0x2e;
    for (; k < digits; k++) ob[at++] = 0x30 | (k & 1 ? b[o + (k >> 1)]! & 15 : b[o + (k >> 1)]! >> 4);
  }
  endNumber(start, at, scale, negative);
}
const fields = (names: string) =>
  names.split(' ').map((n, i) => key(`${i === 0 ? '{' : ','}"${n.replace(/^[{}]+/, '')}":`));
const CM = fields(
  'cmCustomerId cmStatus cmTitle cmFirstName cmLastName cmBirthDate cmAddress cmStreet cmCity cmRegion cmPostcode ' +
    'cmCountry cmPhone cmEmail cmOpenDate cmLastActivity cmBranch cmSegment cmCreditLimit cmBalance cmAvailable ' +
    'cmYtdInterest cmRiskScore cmLastPayment cmPayDate cmPayAmount cmNotes',
);
const AP = fields('apAccountNo apCurrency apProduct apBranch apOpenDate apLimit apRate apMonth apHolderName');
const APM = fields('apOpening apClosing apInterest apFees apTxnCount');
const [OPEN, CLOSE, OPEN_LIST, CLOSE_LIST, COMMA, CLOSE_LINE] = ['{', '}', '[', ']', ',', '}\n'].map(key);

const DISPLAY: Case = {
  name: 'DISPLAY-heavy',
  copybook: `
       01  CUSTOMER-MASTER.
           05  CM-CUSTOMER-ID      PIC 9(10).
           05  CM-STATUS           PIC X(1).
           05  CM-TITLE            PIC X(4).
           05  CM-FIRST-NAME       PIC X(20).
           05  CM-LAST-NAME        PIC X(30).
           05  CM-BIRTH-DATE       PIC 9(8).
           05  CM-ADDRESS.
               10  CM-STREET       PIC X(40).
               10  CM-CITY         PIC X(25).
               10  CM-REGION       PIC X(20).
               10  CM-POSTCODE     PIC X(10).
               10  CM-COUNTRY      PIC X(2).
           05  CM-PHONE            PIC X(20).
           05  CM-EMAIL            PIC X(50).
           05  CM-OPEN-DATE        PIC 9(8).
           05  CM-LAST-ACTIVITY    PIC 9(8).
           05  CM-BRANCH           PIC 9(5).
           05  CM-SEGMENT          PIC X(10).
           05  CM-CREDIT-LIMIT     PIC S9(9)V99.
           05  CM-BALANCE          PIC S9(11)V99.
           05  CM-AVAILABLE        PIC S9(11)V99.
           05  CM-YTD-INTEREST     PIC S9(7)V99.
           05  CM-RISK-SCORE       PIC 9(3).
           05  CM-LAST-PAYMENT.
               10  CM-PAY-DATE     PIC 9(8).
               10  CM-PAY-AMOUNT   PIC S9(9)V99.
           05  CM-NOTES            PIC X(60).
           05  FILLER              PIC X(20).
`,
  value(g, i) {
    const first = g.pick(FIRST);
    const last = g.int(8) === 0 ? `${g.pick(LAST)}-${g.pick(LAST)}` : g.pick(LAST);
    const [city, region, country] = g.pick(CITIES);
    return {
      cmCustomerId: 1_000_000_000 + i,
      cmStatus: g.pick(['A', 'A', 'A', 'C', 'S']),
      cmTitle: g.pick(['Mr', 'Mrs', 'Ms', 'Dr', '', 'Prof']),
      cmFirstName: first,
      cmLastName: last,
      cmBirthDate: g.date(1940, 2006),
      cmAddress: {
        cmStreet: `${1 + g.int(250)} ${g.pick(STREETS)} ${g.pick(KINDS)}`,
        cmCity: city,
        cmRegion: cp037Safe(region),
        cmPostcode: `${g.digits(2)}${g.pick(['', 'AB', 'X'])}${g.digits(3)}`,
        cmCountry: country,
      },
      cmPhone: `+${1 + g.int(98)} ${g.digits(3)} ${g.digits(7)}`,
      cmEmail: `${first}.${last}${g.int(1000)}@example.com`
        .toLowerCase()
        .replace(/[^a-z0-9.@-]/g, 'x')
        .slice(0, 50),
      cmOpenDate: g.date(1985, 2026),
      cmLastActivity: g.date(2024, 2027),
      cmBranch: g.int(100_000),
      cmSegment: g.pick(['RETAIL', 'PREMIER', 'PRIVATE', 'BUSINESS', 'STUDENT']),
      cmCreditLimit: g.cents(9, false),
      cmBalance: g.cents(11, true),
      cmAvailable: g.cents(10, true),
      cmYtdInterest: g.cents(7, true),
      cmRiskScore: g.int(1000),
      cmLastPayment: { cmPayDate: g.date(2024, 2027), cmPayAmount: g.cents(8, true) },
      cmNotes: g.pick(NOTES),
    };
  },
  hand(b, o) {
    return (
      `{"cmCustomerId":${zoned(b, o, 10)},"cmStatus":${text(b, o + 10, 1)},"cmTitle":${text(b, o + 11, 4)}` +
      `,"cmFirstName":${text(b, o + 15, 20)},"cmLastName":${text(b, o + 35, 30)}` +
      `,"cmBirthDate":${zoned(b, o + 65, 8)},"cmAddress":{"cmStreet":${text(b, o + 73, 40)}` +
      `,"cmCity":${text(b, o + 113, 25)},"cmRegion":${text(b, o + 138, 20)},"cmPostcode":${text(b, o + 158, 10)}` +
      `,"cmCountry":${text(b, o + 168, 2)}},"cmPhone":${text(b, o + 170, 20)},"cmEmail":${text(b, o + 190, 50)}` +
      `,"cmOpenDate":${zoned(b, o + 240, 8)},"cmLastActivity":${zoned(b, o + 248, 8)}` +
      `,"cmBranch":${zoned(b, o + 256, 5)},"cmSegment":${text(b, o + 261, 10)}` +
      `,"cmCreditLimit":${zoned(b, o + 271, 11) / 100},"cmBalance":${zoned(b, o + 282, 13) / 100}` +
      `,"cmAvailable":${zoned(b, o + 295, 13) / 100},"cmYtdInterest":${zoned(b, o + 308, 9) / 100}` +
      `,"cmRiskScore":${zoned(b, o + 317, 3)},"cmLastPayment":{"cmPayDate":${zoned(b, o + 320, 8)}` +
      `,"cmPayAmount":${zoned(b, o + 328, 11) / 100}},"cmNotes":${text(b, o + 339, 60)}}\n`
    );
  },
  handBytes(b, o) {
    const [id, status, title, first, last, birth, address, street, city, region, postcode, country] = CM;
    lit(id!);
    zonedBytes(b, o, 10, 0);
    lit(status!);
    textBytes(b, o + 10, 1);
    lit(title!);
    textBytes(b, o + 11, 4);
    lit(first!);
    textBytes(b, o + 15, 20);
    lit(last!);
    textBytes(b, o + 35, 30);
    lit(birth!);
    zonedBytes(b, o + 65, 8, 0);
    lit(address!);
    lit(OPEN!);
    lit(street!.subarray(1));
    textBytes(b, o + 73, 40);
    lit(city!);
    textBytes(b, o + 113, 25);
    lit(region!);
    textBytes(b, o + 138, 20);
    lit(postcode!);
    textBytes(b, o + 158, 10);
    lit(country!);
    textBytes(b, o + 168, 2);
    lit(CLOSE!);
    const [phone, email, open, activity, branch, segment, limit, balance, available, interest, risk] = CM.slice(12);
    lit(phone!);
    textBytes(b, o + 170, 20);
    lit(email!);
    textBytes(b, o + 190, 50);
    lit(open!);
    zonedBytes(b, o + 240, 8, 0);
    lit(activity!);
    zonedBytes(b, o + 248, 8, 0);
    lit(branch!);
    zonedBytes(b, o + 256, 5, 0);
    lit(segment!);
    textBytes(b, o + 261, 10);
    lit(limit!);
    zonedBytes(b, o + 271, 11, 2);
    lit(balance!);
    zonedBytes(b, o + 282, 13, 2);
    lit(available!);
    zonedBytes(b, o + 295, 13, 2);
    lit(interest!);
    zonedBytes(b, o + 308, 9, 2);
    lit(risk!);
    zonedBytes(b, o + 317, 3, 0);
    const [payment, payDate, payAmount, notes] = CM.slice(23);
    lit(payment!);
    lit(OPEN!);
    lit(payDate!.subarray(1));
    zonedBytes(b, o + 320, 8, 0);
    lit(payAmount!);
    zonedBytes(b, o + 328, 11, 2);
    lit(CLOSE!);
    lit(notes!);
    textBytes(b, o + 339, 60);
    lit(CLOSE_LINE!);
  },
};

const PACKED: Case = {
  name: 'COMP-3-heavy',
  copybook: `
       01  ACCOUNT-POSITION.
           05  AP-ACCOUNT-NO       PIC S9(15) COMP-3.
           05  AP-CURRENCY         PIC X(3).
           05  AP-PRODUCT          PIC X(8).
           05  AP-BRANCH           PIC S9(5) COMP-3.
           05  AP-OPEN-DATE        PIC S9(8) COMP-3.
           05  AP-LIMIT            PIC S9(11)V99 COMP-3.
           05  AP-RATE             PIC S9(3)V9(6) COMP-3.
           05  AP-MONTH OCCURS 12 TIMES.
               10  AP-OPENING      PIC S9(13)V99 COMP-3.
               10  AP-CLOSING      PIC S9(13)V99 COMP-3.
               10  AP-INTEREST     PIC S9(7)V99 COMP-3.
               10  AP-FEES         PIC S9(7)V99 COMP-3.
               10  AP-TXN-COUNT    PIC S9(5) COMP-3.
           05  AP-HOLDER-NAME      PIC X(30).
`,
  value(g, i) {
    return {
      apAccountNo: 100_000_000_000_000 + i * 7919,
      apCurrency: g.pick(['EUR', 'EUR', 'GBP', 'USD', 'CHF', 'SEK']),
      apProduct: g.pick(['CURRENT', 'SAVINGS', 'LOAN', 'MORTGAGE', 'CARD']),
      apBranch: g.int(100_000),
      apOpenDate: g.date(1985, 2026),
      apLimit: g.cents(11, false),
      apRate: g.int(100_000_000) / 1_000_000,
      apMonth: Array.from({ length: 12 }, () => ({
        apOpening: g.cents(13, true),
        apClosing: g.cents(13, true),
        apInterest: g.cents(7, false),
        apFees: -g.cents(5, false),
        apTxnCount: g.int(5000),
      })),
      apHolderName: `${g.pick(FIRST)} ${g.pick(LAST)}`,
    };
  },
  hand(b, o) {
    let months = '';
    for (let m = 0; m < 12; m++) {
      const at = o + 39 + m * 29;
      months +=
        `${m === 0 ? '' : ','}{"apOpening":${packed(b, at, 8) / 100},"apClosing":${packed(b, at + 8, 8) / 100}` +
        `,"apInterest":${packed(b, at + 16, 5) / 100},"apFees":${packed(b, at + 21, 5) / 100}` +
        `,"apTxnCount":${packed(b, at + 26, 3)}}`;
    }
    return (
      `{"apAccountNo":${packed(b, o, 8)},"apCurrency":${text(b, o + 8, 3)},"apProduct":${text(b, o + 11, 8)}` +
      `,"apBranch":${packed(b, o + 19, 3)},"apOpenDate":${packed(b, o + 22, 5)},"apLimit":${packed(b, o + 27, 7) / 100}` +
      `,"apRate":${packed(b, o + 34, 5) / 1_000_000},"apMonth":[${months}],"apHolderName":${text(b, o + 387, 30)}}\n`
    );
  },
  handBytes(b, o) {
    const [account, currency, product, branch, opened, limit, rate, month, holder] = AP;
    lit(account!);
    packedBytes(b, o, 8, 0);
    lit(currency!);
    textBytes(b, o + 8, 3);
    lit(product!);
    textBytes(b, o + 11, 8);
    lit(branch!);
    packedBytes(b, o + 19, 3, 0);
    lit(opened!);
    packedBytes(b, o + 22, 5, 0);
    lit(limit!);
    packedBytes(b, o + 27, 7, 2);
    lit(rate!);
    packedBytes(b, o + 34, 5, 6);
    lit(month!);
    lit(OPEN_LIST!);
    const [opening, closing, interest, fees, count] = APM;
    for (let m = 0; m < 12; m++) {
      const at = o + 39 + m * 29;
      if (m > 0) lit(COMMA!);
      lit(opening!);
      packedBytes(b, at, 8, 2);
      lit(closing!);
      packedBytes(b, at + 8, 8, 2);
      lit(interest!);
      packedBytes(b, at + 16, 5, 2);
      lit(fees!);
      packedBytes(b, at + 21, 5, 2);
      lit(count!);
      packedBytes(b, at + 26, 3, 0);
      lit(CLOSE!);
    }
    lit(CLOSE_LIST!);
    lit(holder!);
    textBytes(b, o + 387, 30);
    lit(CLOSE_LINE!);
  },
};

const CASES = [DISPLAY, PACKED];

// ── the files ──
const dir = mkdtempSync(join(tmpdir(), 'corebridge-bench-dataset-'));
const devNull = openSync('/dev/null', 'w');

interface Prepared {
  c: Case;
  layout: CompiledLayout;
  framing: FramingOptions;
  cpy: string;
  file: string;
  jsonl: string;
  bytes: number;
  records: number;
}

function writeFile(c: Case, layout: CompiledLayout, file: string): number {
  const g = generator(c.name.length * 7919);
  const writer = new RecordWriter({ recfm: 'F', lrecl: layout.maxLength });
  const records = Math.ceil((BENCH_MB * MB) / layout.maxLength);
  const fd = openSync(file, 'w');
  for (let i = 0; i < records; i++) {
    writer.write(layout.encode(c.value(g, i)));
    if (i % 2048 === 2047) writeSync(fd, writer.take());
  }
  writeSync(fd, writer.end());
  closeSync(fd);
  return records;
}

/** The codec's JSON Lines of the file, for the encode measurements. */
async function writeJsonLines(p: Omit<Prepared, 'jsonl'>, jsonl: string): Promise<void> {
  const fd = openSync(jsonl, 'w');
  const source = createReadStream(p.file, { highWaterMark: 1 << 20 });
  for await (const batch of decodeDataset(source, p.layout, { framing: p.framing })) {
    writeSync(fd, toJsonLines(batch.map((r) => r.value)));
  }
  closeSync(fd);
}

/** The hand-written decoder must write exactly the codec's text, or the comparison means nothing. */
function checkHand(p: Prepared): void {
  const n = Math.min(1000, p.records);
  const fd = openSync(p.file, 'r');
  const b = Buffer.alloc(n * p.layout.maxLength);
  readSync(fd, b, 0, b.length, 0);
  closeSync(fd);
  for (let i = 0; i < n; i++) {
    const o = i * p.layout.maxLength;
    const codec = toJsonLines([p.layout.decode(b.subarray(o, o + p.layout.maxLength))]);
    assert.equal(p.c.hand(b, o), codec, `${p.c.name} record ${i + 1}: the hand-written decoder differs`);
    out.at = 0;
    p.c.handBytes(b, o);
    assert.equal(out.b.toString('utf8', 0, out.at), codec, `${p.c.name} record ${i + 1}: the bytes decoder differs`);
  }
}

function sha256(file: string): string {
  const hash = createHash('sha256');
  const fd = openSync(file, 'r');
  const b = Buffer.allocUnsafe(1 << 22);
  for (let n; (n = readSync(fd, b, 0, b.length, null)) > 0;) hash.update(b.subarray(0, n));
  closeSync(fd);
  return hash.digest('hex');
}

// ── the measurements ──
interface Run {
  code: number | null;
  stderr: string;
  stdout: string;
  /** Wall and CPU (user + system) seconds; CPU only where /usr/bin/time reports it. */
  wall: number;
  cpu?: number;
  /** Peak resident memory: /usr/bin/time's maximum RSS, or VmHWM polled from /proc. */
  peakKiB?: number;
}

const TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;

/** Runs a command, standard output to /dev/null unless captured, under /usr/bin/time when it exists. */
function run(command: string, args: string[], options: { stdout?: boolean } = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const [file, argv] = TIME === undefined ? [command, args] : [TIME, ['-f', '@time %U %S %M', command, ...args]];
    const child = spawn(file, argv, { cwd: ROOT, stdio: ['ignore', options.stdout ? 'pipe' : 'ignore', 'pipe'] });
    let stderr = '';
    let stdout = '';
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
    let peakKiB: number | undefined;
    const poll = () => {
      try {
        const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
        if (m) peakKiB = Math.max(peakKiB ?? 0, Number(m[1]));
      } catch {
        // the process has just ended
      }
    };
    const timer = TIME === undefined ? setInterval(poll, 20) : undefined;
    child.on('error', reject);
    child.on('close', (code) => {
      const wall = (performance.now() - started) / 1000;
      clearInterval(timer);
      const m = /^@time ([\d.]+) ([\d.]+) (\d+)$/m.exec(stderr);
      if (m === null) return resolve({ code, stderr, stdout, wall, peakKiB });
      stderr = stderr.replace(m[0], '').trim();
      const cpu = Number(m[1]) + Number(m[2]);
      resolve({
        code: /exited with non-zero status/.test(stderr) ? 1 : code,
        stderr,
        stdout,
        wall,
        cpu,
        peakKiB: Number(m[3]),
      });
    });
  });
}

const NODE_ARGS = ['--conditions=corebridge-source', CLI, 'dataset'];

async function cli(action: 'decode' | 'encode', p: Prepared, extra: string[] = []): Promise<Run> {
  const input = action === 'decode' ? p.file : p.jsonl;
  const args = [...NODE_ARGS, action, p.cpy, '--input', input, '--encoding', ENCODING, '--quiet', ...extra];
  const r = await run(process.execPath, args);
  if (r.code !== 0) throw new Error(`corebridge dataset ${action} ${extra.join(' ')} exited ${r.code}: ${r.stderr}`);
  return r;
}

/** Wall and CPU seconds of this process (all its threads) for `fn`. */
async function timed(fn: () => Promise<unknown>): Promise<Time> {
  const started = performance.now();
  const cpu = process.cpuUsage();
  await fn();
  const used = process.cpuUsage(cpu);
  return { wall: (performance.now() - started) / 1000, cpu: (used.user + used.system) / 1e6 };
}

interface Time {
  wall: number;
  cpu?: number | undefined;
}

/** `end`: the last byte to read (inclusive), at a record's end. */
async function libraryDecode(p: Prepared, end?: number): Promise<void> {
  const source = createReadStream(p.file, { highWaterMark: 1 << 20, end });
  for await (const batch of decodeDataset(source, p.layout, { framing: p.framing })) {
    writeSync(devNull, toJsonLines(batch.map((r) => r.value)));
  }
}

/** The library's JSON Lines path, as the CLI's one thread runs it: each record's JSON written as bytes. */
async function libraryJsonLines(p: Prepared): Promise<void> {
  const source = createReadStream(p.file, { highWaterMark: 1 << 20 });
  for await (const batch of decodeDatasetJsonLines(source, p.layout, { framing: p.framing })) {
    writeSync(devNull, batch.lines);
  }
}

async function handDecode(p: Prepared, end?: number): Promise<void> {
  const lrecl = p.layout.maxLength;
  let rest: Buffer | undefined;
  for await (const chunk of createReadStream(p.file, { highWaterMark: 1 << 20, end })) {
    const b: Buffer = rest === undefined ? (chunk as Buffer) : Buffer.concat([rest, chunk as Buffer]);
    let out = '';
    let o = 0;
    for (; o + lrecl <= b.length; o += lrecl) out += p.c.hand(b, o);
    rest = o < b.length ? b.subarray(o) : undefined;
    if (out !== '') writeSync(devNull, out);
  }
}

async function handBytesDecode(p: Prepared, end?: number): Promise<void> {
  const lrecl = p.layout.maxLength;
  // room for the longest line: every character escaped as \u00XX, with the keys
  const room = lrecl * 6 + 4096;
  let rest: Buffer | undefined;
  for await (const chunk of createReadStream(p.file, { highWaterMark: 1 << 20, end })) {
    const b: Buffer = rest === undefined ? (chunk as Buffer) : Buffer.concat([rest, chunk as Buffer]);
    let o = 0;
    for (; o + lrecl <= b.length; o += lrecl) {
      if (out.at + room > out.b.length) {
        writeSync(devNull, out.b, 0, out.at);
        out.at = 0;
      }
      p.c.handBytes(b, o);
    }
    rest = o < b.length ? b.subarray(o) : undefined;
  }
  writeSync(devNull, out.b, 0, out.at);
  out.at = 0;
}

async function libraryEncode(p: Prepared): Promise<void> {
  const source = createReadStream(p.jsonl, { highWaterMark: 1 << 20 });
  for await (const chunk of encodeBatches(readJsonLines(source), p.layout, { framing: p.framing })) {
    writeSync(devNull, chunk);
  }
}

// ── main ──
const nf = (n: number, digits = 1) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const median = (xs: number[]) => sorted(xs)[Math.floor(xs.length / 2)]!;

console.log(
  `Node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model.trim()}), load ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}; ${new Date().toISOString()}`,
);
console.log(`files in ${dir}${KEEP ? ' (kept)' : ''}; BENCH_MB=${BENCH_MB}, BENCH_ROUNDS=${ROUNDS}`);

const threads = (await run(process.execPath, [...NODE_ARGS, '--help'], { stdout: true })).stdout.includes('--threads');

const prepared: Prepared[] = [];
try {
  for (const c of CASES) {
    const started = performance.now();
    const layout = compileCopybook(c.copybook, { profile: 'zos', encoding: ENCODING });
    const name = c.name.toLowerCase().replace(/[^a-z0-9]+/g, '-');
    const cpy = join(dir, `${name}.cpy`);
    writeFileSync(cpy, c.copybook);
    const file = join(dir, `${name}.dat`);
    const records = writeFile(c, layout, file);
    const base = { c, layout, framing: { recfm: 'F', lrecl: layout.maxLength } as FramingOptions, cpy, file };
    const p: Prepared = { ...base, jsonl: join(dir, `${name}.jsonl`), bytes: statSync(file).size, records };
    await writeJsonLines(p, p.jsonl);
    checkHand(p);
    // encode must give the file back byte for byte before its speed means anything
    const again = join(dir, `${name}.again.dat`);
    const r = await run(process.execPath, [
      ...NODE_ARGS,
      'encode',
      cpy,
      '--input',
      p.jsonl,
      '--output',
      again,
      '--encoding',
      ENCODING,
      '--quiet',
    ]);
    if (r.code !== 0) throw new Error(`encode exited ${r.code}: ${r.stderr}`);
    assert.equal(sha256(again), sha256(file), `${c.name}: encode did not give the file back`);
    rmSync(again);
    // warm the in-process decoders on the file's first 16 MB
    const warm = Math.min(p.bytes, Math.floor((16 * MB) / layout.maxLength) * layout.maxLength) - 1;
    await libraryDecode(p, warm);
    await handDecode(p, warm);
    await handBytesDecode(p, warm);
    prepared.push(p);
    console.log(
      `${c.name}: ${layout.maxLength}-byte records, ${nf(records, 0)} of them, ${nf(p.bytes / MB)} MB ` +
        `(JSON Lines ${nf(statSync(p.jsonl).size / MB)} MB); written and checked in ${nf((performance.now() - started) / 1000)} s`,
    );
  }
  if (!threads) console.log('two threads: skipped, `corebridge dataset decode` has no --threads option yet');

  type Row = { label: string; goal: string; measure: (p: Prepared) => Promise<Time> };
  const decodeRow = (label: string, goal: string, extra: string[]): Row => ({
    label,
    goal,
    measure: (p) => cli('decode', p, extra),
  });
  const rows: Row[] = [
    { label: 'cat FILE > /dev/null', goal: '', measure: (p) => run('sh', ['-c', `cat '${p.file}' > /dev/null`]) },
    decodeRow('CLI decode → JSON Lines', threads ? '' : 'DISPLAY ≥ 100, COMP-3 ≥ 40', []),
    ...(threads
      ? [
          decodeRow('CLI decode --threads 1', 'DISPLAY ≥ 100, COMP-3 ≥ 40', ['--threads', '1']),
          decodeRow('CLI decode --threads 2', 'see the big file', ['--threads', '2']),
        ]
      : []),
    { label: 'library decodeDatasetJsonLines', goal: '', measure: (p) => timed(() => libraryJsonLines(p)) },
    { label: 'library decodeDataset + toJsonLines', goal: '', measure: (p) => timed(() => libraryDecode(p)) },
    { label: 'hand-written, JSON text as strings', goal: '', measure: (p) => timed(() => handDecode(p)) },
    { label: 'hand-written, JSON text as bytes', goal: '', measure: (p) => timed(() => handBytesDecode(p)) },
    { label: 'CLI encode JSON Lines → file', goal: '≥ 50 (MB of output)', measure: (p) => cli('encode', p) },
    { label: 'library encodeBatches(readJsonLines)', goal: '', measure: (p) => timed(() => libraryEncode(p)) },
  ];
  const times = new Map<string, Time[]>();
  const startup: Time[] = [];
  // the start-up of one and of two threads (workers compile the copybook too), to compare decoding apart from it
  const startupBy = new Map<string, Time[]>([
    ['1', []],
    ['2', []],
  ]);
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? rows : [...rows].reverse();
    for (const p of round % 2 === 0 ? prepared : [...prepared].reverse()) {
      for (const row of order) {
        const key = `${p.c.name}\0${row.label}`;
        times.set(key, [...(times.get(key) ?? []), await row.measure(p)]);
      }
    }
    startup.push(await cli('decode', prepared[0]!, ['--limit', '1']));
    if (threads) {
      for (const n of ['1', '2'])
        startupBy.get(n)!.push(await cli('decode', prepared[0]!, ['--limit', '1', '--threads', n]));
    }
    console.log(`round ${round + 1} of ${ROUNDS} done, load ${loadavg()[0]!.toFixed(2)}`);
  }

  const pad = (s: string, n: number) => s.padStart(n);
  const spread = (xs: number[]) =>
    xs.length === 0
      ? pad('–', 27)
      : [sorted(xs)[0]!, median(xs), sorted(xs).at(-1)!].map((x) => pad(nf(x), 9)).join('');
  for (const p of ROUNDS > 0 ? prepared : []) {
    console.log(
      `\n${p.c.name}, ${p.layout.maxLength} B × ${nf(p.records, 0)} = ${nf(p.bytes / MB)} MB, ${ROUNDS} rounds; ` +
        'MB of the binary file per second of wall time, and per second of CPU time (user + system)',
    );
    console.log(
      `${''.padEnd(40)}${pad('wall: min', 9)}${pad('median', 9)}${pad('max', 9)}${pad('CPU: min', 11)}${pad('median', 9)}${pad('max', 9)}   goal`,
    );
    for (const row of rows) {
      const ts = times.get(`${p.c.name}\0${row.label}`) ?? [];
      const wall = ts.map((t) => p.bytes / MB / t.wall);
      const cpu = ts.flatMap((t) => (t.cpu === undefined || t.cpu === 0 ? [] : [p.bytes / MB / t.cpu]));
      console.log(`${row.label.padEnd(40)}${spread(wall)}  ${spread(cpu)}   ${row.goal}`);
    }
    if (threads) {
      const one = times.get(`${p.c.name}\0CLI decode --threads 1`)!;
      const two = times.get(`${p.c.name}\0CLI decode --threads 2`)!;
      const ratios = one.map((t, i) => t.wall / two[i]!.wall);
      console.log(
        `${'  --threads 2 ÷ --threads 1 (wall), by round'.padEnd(40)}${ratios.map((r) => pad(`${r.toFixed(2)}×`, 9)).join('')}`,
      );
      const s1 = startupBy.get('1')!;
      const s2 = startupBy.get('2')!;
      const apart = one.map((t, i) => (t.wall - s1[i]!.wall) / (two[i]!.wall - s2[i]!.wall));
      console.log(
        `${'  the same, each start-up taken off'.padEnd(40)}${apart.map((r) => pad(`${r.toFixed(2)}×`, 9)).join('')}   (a worker's start weighs here)`,
      );
    }
  }
  if (startup.length > 0) {
    const wall = startup.map((t) => t.wall);
    const cpu = startup.flatMap((t) => (t.cpu === undefined ? [] : [t.cpu]));
    console.log(
      `\nCLI start-up in every CLI row (decode --limit 1, ${DISPLAY.name}), seconds: wall ${spread(wall).trim().replace(/ +/g, ' / ')}` +
        (cpu.length > 0 ? `, CPU ${spread(cpu).trim().replace(/ +/g, ' / ')}` : '') +
        ' (min / median / max)',
    );
  }

  if (BIG) {
    const p = prepared[0]!;
    const big = join(dir, 'big.dat');
    // whole records of the DISPLAY-heavy file, repeated until the file is BENCH_BIG_MB
    const block = Buffer.alloc(Math.min(p.bytes, Math.floor((64 * MB) / p.layout.maxLength) * p.layout.maxLength));
    const fd = openSync(p.file, 'r');
    readSync(fd, block, 0, block.length, 0);
    closeSync(fd);
    const out = openSync(big, 'w');
    let size = 0;
    while (size < BIG_MB * MB) size += writeSync(out, block);
    closeSync(out);
    try {
      console.log(
        `\none CLI decode of ${nf(size / MB, 0)} MB (${p.c.name}): peak resident memory (goal ≤ 256 MB), MB/s of wall time`,
      );
      const once = async (label: string, extra: string[]) => {
        const r = await cli('decode', { ...p, file: big }, extra);
        console.log(
          `  ${label.padEnd(22)}${pad(nf(((r.peakKiB ?? 0) * 1024) / MB), 9)} MB${pad(nf(size / MB / r.wall), 9)} MB/s`,
        );
        return r.wall;
      };
      await once('default options', []);
      if (threads) {
        // one and two threads in turns, so that what else the machine does weighs on both alike
        const ratios: number[] = [];
        for (let round = 0; round < BIG_ROUNDS; round++) {
          const one = await once(`--threads 1 (round ${round + 1})`, ['--threads', '1']);
          const two = await once(`--threads 2 (round ${round + 1})`, ['--threads', '2']);
          ratios.push(one / two);
        }
        console.log(
          `  --threads 2 ÷ --threads 1 (wall), by round: ${ratios.map((r) => `${r.toFixed(2)}×`).join(' ')}; ` +
            `median ${median(ratios).toFixed(2)}×, goal ≥ 1.7×`,
        );
      }
      for (const format of ['csv', 'parquet']) {
        const output = join(dir, `big.${format}`);
        await once(`--format ${format}`, ['--format', format, '--output', output]);
        rmSync(output, { force: true });
      }
    } finally {
      rmSync(big, { force: true });
    }
  }
} finally {
  closeSync(devNull);
  if (!KEEP) rmSync(dir, { recursive: true, force: true });
}
