/**
 * MB/s of record bytes decoded to JSON Lines on one thread: `JSON.stringify(layout.decode(bytes))` per record
 * beside `layout.decodeJson` into one buffer, on a DISPLAY-heavy and a COMP-3-heavy fixed EBCDIC record of
 * many varied values. Checks that both give the same bytes; prints figures, asserts nothing about speed.
 */
import assert from 'node:assert/strict';
import { compileCopybook, type CompiledLayout } from '../src/index.ts';

const DISPLAY = `
       01  CUSTOMER.
           05  CU-ID               PIC 9(10).
           05  CU-FIRST-NAME       PIC X(20).
           05  CU-LAST-NAME        PIC X(30).
           05  CU-STREET           PIC X(40).
           05  CU-CITY             PIC X(25).
           05  CU-STATE            PIC X(2).
           05  CU-POSTCODE         PIC X(10).
           05  CU-COUNTRY          PIC X(3).
           05  CU-PHONE            PIC X(15).
           05  CU-EMAIL            PIC X(40).
           05  CU-BIRTH-DATE       PIC 9(8).
           05  CU-OPEN-DATE        PIC 9(8).
           05  CU-LAST-ACTIVE      PIC 9(8).
           05  CU-STATUS           PIC X(1).
           05  CU-SEGMENT          PIC X(4).
           05  CU-BALANCE          PIC S9(11)V99.
           05  CU-CREDIT-LIMIT     PIC 9(9)V99.
           05  CU-YTD-PURCHASES    PIC S9(9)V99.
           05  CU-YTD-RETURNS      PIC S9(7)V99.
           05  CU-ORDERS           PIC 9(6).
           05  CU-SCORE            PIC S9(3).
           05  CU-BRANCH           PIC 9(5).
           05  CU-NOTES            PIC X(30).
`;

const COMP3 = `
       01  LEDGER.
           05  LG-ACCOUNT          PIC 9(12).
           05  LG-CURRENCY         PIC X(3).
           05  LG-POSTED           PIC 9(8) COMP-3.
           05  LG-OPENING          PIC S9(13)V99 COMP-3.
           05  LG-CLOSING          PIC S9(13)V99 COMP-3.
           05  LG-DEBITS           PIC S9(11)V99 COMP-3.
           05  LG-CREDITS          PIC S9(11)V99 COMP-3.
           05  LG-INTEREST-RATE    PIC S9(3)V9(6) COMP-3.
           05  LG-FEES             PIC S9(7)V99 COMP-3.
           05  LG-MONTHS OCCURS 12 TIMES.
               10  LG-M-DEBIT      PIC S9(11)V99 COMP-3.
               10  LG-M-CREDIT     PIC S9(11)V99 COMP-3.
               10  LG-M-COUNT      PIC S9(7) COMP-3.
               10  LG-M-AVERAGE    PIC S9(9)V99 COMP-3.
`;

/** A small deterministic generator, so that runs compare. */
let seed = 12345;
const random = (): number => {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return seed / 0x80000000;
};
const WORDS = [
  'MAIN',
  'HIGH',
  'OAK',
  'PARK',
  'SMITH',
  'JONES',
  'MÜLLER',
  'O"BRIEN',
  'LEE',
  'STREET',
  'AVENUE',
  'NORTH',
];
const word = (max: number): string => {
  let s = '';
  while (s.length < max / 2) s += `${WORDS[Math.floor(random() * WORDS.length)]} `;
  return s.trim().slice(0, max);
};
const digits = (n: number, scale: number, signed: boolean): number => {
  const v = Math.floor(random() * 10 ** Math.min(n, 15)) / 10 ** scale;
  return signed && random() < 0.3 ? -v : v;
};

const keyOf = (item: CompiledLayout['root']): string => item.jsonPath!.split('.').at(-1)!.replace(/\[\]$/, '');

/** A value for every field, from the layout's items. */
function valueOf(item: CompiledLayout['root'], element = false): unknown {
  if (item.occurs && !element) return Array.from({ length: item.occurs.max }, () => valueOf(item, true));
  if (item.children) return Object.fromEntries(item.children.map((c) => [keyOf(c), valueOf(c)]));
  if (item.kind === 'numeric') return digits(item.digits! - 1, item.scale!, item.signed!);
  return word(item.length);
}

function recordsOf(layout: CompiledLayout, count: number): Buffer[] {
  return Array.from({ length: count }, () => layout.encode(valueOf(layout.root)));
}

/**
 * MB/s of record bytes over `seconds` of this thread's CPU time (on a shared machine wall time counts the
 * others' work): each pass decodes every record once.
 */
function measure(records: Buffer[], seconds: number, pass: () => void): number {
  const bytes = records.reduce((n, r) => n + r.length, 0);
  pass();
  let done = 0;
  const start = process.cpuUsage();
  let elapsed = 0;
  while (elapsed < seconds) {
    pass();
    done += bytes;
    const used = process.cpuUsage(start);
    elapsed = (used.user + used.system) / 1e6;
  }
  return done / elapsed / 1e6;
}

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);

for (const [label, cpy] of [
  ['DISPLAY-heavy', DISPLAY],
  ['COMP-3-heavy', COMP3],
] as const) {
  const layout = compileCopybook(cpy, { profile: 'zos', encoding: 'cp037' });
  const records = recordsOf(layout, 4000);
  const out = Buffer.allocUnsafe(records.length * (layout.jsonMaxLength + 1));
  const stringify = (): Buffer => {
    let text = '';
    for (const r of records) text += JSON.stringify(layout.decode(r)) + '\n';
    return Buffer.from(text);
  };
  const direct = (): number => {
    let p = 0;
    for (const r of records) {
      p = layout.decodeJson(r, out, p);
      out[p++] = 0x0a;
    }
    return p;
  };
  const end = direct();
  assert.ok(out.subarray(0, end).equals(stringify()), `${label}: decodeJson differs from JSON.stringify(decode)`);
  const before = measure(records, SECONDS, () => void stringify());
  const after = measure(records, SECONDS, () => void direct());
  console.log(
    `${label} (${layout.maxLength} bytes): JSON.stringify(decode) ${before.toFixed(1)} MB/s, decodeJson ${after.toFixed(1)} MB/s`,
  );
}
