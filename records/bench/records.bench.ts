/**
 * Records per second of the generated codec beside a hand-written Buffer decoder (and encoder) of the same
 * record, in the same run: a realistic ~30-field record (strings, zoned, packed, binary, an OCCURS group), one of
 * packed decimals and one of EBCDIC text (`records/extra-records.ts`); and the mixed record's decode once more
 * beside a hand-written decoder that makes short strings as the generated one does. Prints figures; asserts
 * nothing about speed.
 */
import assert from 'node:assert/strict';
import { compileCopybook } from '../src/index.ts';
import { EXTRA_RECORDS } from './records/extra-records.ts';

const COPYBOOK = `
       01  CUSTOMER-ORDER.
           05  CO-ORDER-ID         PIC X(12).
           05  CO-CUSTOMER-ID      PIC 9(10).
           05  CO-CUSTOMER-NAME    PIC X(30).
           05  CO-STATUS           PIC X(2).
           05  CO-CHANNEL          PIC X(4).
           05  CO-CREATED-DATE     PIC 9(8).
           05  CO-CREATED-TIME     PIC 9(6).
           05  CO-CURRENCY         PIC X(3).
           05  CO-TOTAL-AMOUNT     PIC S9(11)V99 COMP-3.
           05  CO-TAX-AMOUNT       PIC S9(9)V99 COMP-3.
           05  CO-DISCOUNT-PCT     PIC 9(3)V99.
           05  CO-ITEM-COUNT       PIC 9(4) COMP.
           05  CO-PRIORITY         PIC S9(4) COMP.
           05  CO-RISK-SCORE       PIC S9(3).
           05  CO-BRANCH           PIC 9(5) COMP-3.
           05  CO-SHIP-TO.
               10  CO-STREET       PIC X(30).
               10  CO-CITY         PIC X(20).
               10  CO-POSTCODE     PIC X(10).
               10  CO-COUNTRY      PIC X(2).
           05  CO-LINES OCCURS 5 TIMES.
               10  CO-LINE-NO      PIC 9(3).
               10  CO-SKU          PIC X(10).
               10  CO-QTY          PIC S9(5) COMP-3.
               10  CO-UNIT-PRICE   PIC S9(7)V99 COMP-3.
               10  CO-LINE-AMOUNT  PIC S9(9)V99.
           05  CO-NOTES            PIC X(40).
           05  CO-AGENT-ID         PIC 9(9) COMP.
           05  CO-VERSION          PIC S9(9) COMP-5.
`;

interface Line {
  coLineNo: number;
  coSku: string;
  coQty: number;
  coUnitPrice: number;
  coLineAmount: number;
}
interface Order {
  coOrderId: string;
  coCustomerId: number;
  coCustomerName: string;
  coStatus: string;
  coChannel: string;
  coCreatedDate: number;
  coCreatedTime: number;
  coCurrency: string;
  coTotalAmount: number;
  coTaxAmount: number;
  coDiscountPct: number;
  coItemCount: number;
  coPriority: number;
  coRiskScore: number;
  coBranch: number;
  coShipTo: { coStreet: string; coCity: string; coPostcode: string; coCountry: string };
  coLines: Line[];
  coNotes: string;
  coAgentId: number;
  coVersion: number;
}

const order: Order = {
  coOrderId: 'ORD-00012345',
  coCustomerId: 1001,
  coCustomerName: 'Ada Lovelace',
  coStatus: 'OK',
  coChannel: 'WEB',
  coCreatedDate: 20261122,
  coCreatedTime: 235959,
  coCurrency: 'EUR',
  coTotalAmount: 1949.8,
  coTaxAmount: -311.32,
  coDiscountPct: 12.5,
  coItemCount: 5,
  coPriority: -3,
  coRiskScore: -42,
  coBranch: 12345,
  coShipTo: { coStreet: '12 St James Square', coCity: 'London', coPostcode: 'SW1Y 4JH', coCountry: 'GB' },
  coLines: [1, 2, 3, 4, 5].map((n) => ({
    coLineNo: n,
    coSku: `SKU-${n}00`,
    coQty: n * 2,
    coUnitPrice: [19.99, 39.98, 59.97, 79.96, 99.95][n - 1]!,
    coLineAmount: [-1234.56, -2469.12, -3703.68, -4938.24, -6172.8][n - 1]!,
  })),
  coNotes: 'Leave at the door',
  coAgentId: 987654321,
  coVersion: -7,
};

// ── the hand-written codec: what an engineer writes for this one record with Buffer calls ──
const SPACE = 0x20;
function putStr(b: Buffer, off: number, len: number, s: string) {
  if (s.length > len) throw new RangeError('too long');
  b.write(s, off, 'latin1');
  b.fill(SPACE, off + s.length, off + len);
}
function putZoned(b: Buffer, off: number, len: number, n: number, signed: boolean) {
  let m = Math.abs(n);
  for (let i = off + len - 1; i >= off; i--) {
    const d = m % 10;
    b[i] = 0x30 + d;
    m = (m - d) / 10;
  }
  if (signed && n < 0) b[off + len - 1]! += 0x40;
}
function putPacked(b: Buffer, off: number, len: number, n: number, signed: boolean) {
  let m = Math.abs(n);
  const d0 = m % 10;
  m = (m - d0) / 10;
  b[off + len - 1] = (d0 << 4) | (signed ? (n < 0 ? 0x0d : 0x0c) : 0x0f);
  for (let i = off + len - 2; i >= off; i--) {
    const lo = m % 10;
    m = (m - lo) / 10;
    const hi = m % 10;
    m = (m - hi) / 10;
    b[i] = (hi << 4) | lo;
  }
}
const cents = (v: number) => Math.round(v * 100);
function getStr(b: Buffer, off: number, len: number) {
  let end = off + len;
  while (end > off && b[end - 1] === SPACE) end--;
  return b.toString('latin1', off, end);
}
function getZoned(b: Buffer, off: number, len: number) {
  let n = 0;
  for (let i = off; i < off + len - 1; i++) n = n * 10 + (b[i]! - 0x30);
  const last = b[off + len - 1]!;
  return last >= 0x70 ? -(n * 10 + last - 0x70) : n * 10 + last - 0x30;
}
function getPacked(b: Buffer, off: number, len: number) {
  let n = 0;
  for (let i = off; i < off + len - 1; i++) n = n * 100 + (b[i]! >> 4) * 10 + (b[i]! & 15);
  const last = b[off + len - 1]!;
  n = n * 10 + (last >> 4);
  return (last & 15) === 0x0d ? -n : n;
}

function handEncode(o: Order): Buffer {
  const b = Buffer.allocUnsafe(LENGTH);
  putStr(b, 0, 12, o.coOrderId);
  putZoned(b, 12, 10, o.coCustomerId, false);
  putStr(b, 22, 30, o.coCustomerName);
  putStr(b, 52, 2, o.coStatus);
  putStr(b, 54, 4, o.coChannel);
  putZoned(b, 58, 8, o.coCreatedDate, false);
  putZoned(b, 66, 6, o.coCreatedTime, false);
  putStr(b, 72, 3, o.coCurrency);
  putPacked(b, 75, 7, cents(o.coTotalAmount), true);
  putPacked(b, 82, 6, cents(o.coTaxAmount), true);
  putZoned(b, 88, 5, cents(o.coDiscountPct), false);
  b.writeUInt16BE(o.coItemCount, 93);
  b.writeInt16BE(o.coPriority, 95);
  putZoned(b, 97, 3, o.coRiskScore, true);
  putPacked(b, 100, 3, o.coBranch, false);
  putStr(b, 103, 30, o.coShipTo.coStreet);
  putStr(b, 133, 20, o.coShipTo.coCity);
  putStr(b, 153, 10, o.coShipTo.coPostcode);
  putStr(b, 163, 2, o.coShipTo.coCountry);
  for (let i = 0; i < 5; i++) {
    const l = o.coLines[i]!;
    const at = 165 + i * 32;
    putZoned(b, at, 3, l.coLineNo, false);
    putStr(b, at + 3, 10, l.coSku);
    putPacked(b, at + 13, 3, l.coQty, true);
    putPacked(b, at + 16, 5, cents(l.coUnitPrice), true);
    putZoned(b, at + 21, 11, cents(l.coLineAmount), true);
  }
  putStr(b, 325, 40, o.coNotes);
  b.writeUInt32BE(o.coAgentId, 365);
  b.writeInt32LE(o.coVersion, 369);
  return b;
}

function handDecode(b: Buffer): Order {
  const coLines: Line[] = new Array(5);
  for (let i = 0; i < 5; i++) {
    const at = 165 + i * 32;
    coLines[i] = {
      coLineNo: getZoned(b, at, 3),
      coSku: getStr(b, at + 3, 10),
      coQty: getPacked(b, at + 13, 3),
      coUnitPrice: getPacked(b, at + 16, 5) / 100,
      coLineAmount: getZoned(b, at + 21, 11) / 100,
    };
  }
  return {
    coOrderId: getStr(b, 0, 12),
    coCustomerId: getZoned(b, 12, 10),
    coCustomerName: getStr(b, 22, 30),
    coStatus: getStr(b, 52, 2),
    coChannel: getStr(b, 54, 4),
    coCreatedDate: getZoned(b, 58, 8),
    coCreatedTime: getZoned(b, 66, 6),
    coCurrency: getStr(b, 72, 3),
    coTotalAmount: getPacked(b, 75, 7) / 100,
    coTaxAmount: getPacked(b, 82, 6) / 100,
    coDiscountPct: getZoned(b, 88, 5) / 100,
    coItemCount: b.readUInt16BE(93),
    coPriority: b.readInt16BE(95),
    coRiskScore: getZoned(b, 97, 3),
    coBranch: getPacked(b, 100, 3),
    coShipTo: {
      coStreet: getStr(b, 103, 30),
      coCity: getStr(b, 133, 20),
      coPostcode: getStr(b, 153, 10),
      coCountry: getStr(b, 163, 2),
    },
    coLines,
    coNotes: getStr(b, 325, 40),
    coAgentId: b.readUInt32BE(365),
    coVersion: b.readInt32LE(369),
  };
}

/**
 * A second yardstick, not the baseline: handDecode with its strings made as the generated decoder makes short
 * ones (String.fromCharCode over a reused array, no call into C++), to show what that technique alone is worth.
 */
const CODES: number[][] = Array.from({ length: 25 }, (_, n) => new Array<number>(n).fill(0));
function getStrCodes(b: Buffer, off: number, len: number) {
  let end = off + len;
  while (end > off && b[end - 1] === SPACE) end--;
  const n = end - off;
  if (n > 24) return b.toString('latin1', off, end);
  const codes = CODES[n]!;
  for (let i = 0; i < n; i++) codes[i] = b[off + i]!;
  return String.fromCharCode.apply(null, codes);
}
function handDecodeCodes(b: Buffer): Order {
  const coLines: Line[] = new Array(5);
  for (let i = 0; i < 5; i++) {
    const at = 165 + i * 32;
    coLines[i] = {
      coLineNo: getZoned(b, at, 3),
      coSku: getStrCodes(b, at + 3, 10),
      coQty: getPacked(b, at + 13, 3),
      coUnitPrice: getPacked(b, at + 16, 5) / 100,
      coLineAmount: getZoned(b, at + 21, 11) / 100,
    };
  }
  return {
    coOrderId: getStrCodes(b, 0, 12),
    coCustomerId: getZoned(b, 12, 10),
    coCustomerName: getStrCodes(b, 22, 30),
    coStatus: getStrCodes(b, 52, 2),
    coChannel: getStrCodes(b, 54, 4),
    coCreatedDate: getZoned(b, 58, 8),
    coCreatedTime: getZoned(b, 66, 6),
    coCurrency: getStrCodes(b, 72, 3),
    coTotalAmount: getPacked(b, 75, 7) / 100,
    coTaxAmount: getPacked(b, 82, 6) / 100,
    coDiscountPct: getZoned(b, 88, 5) / 100,
    coItemCount: b.readUInt16BE(93),
    coPriority: b.readInt16BE(95),
    coRiskScore: getZoned(b, 97, 3),
    coBranch: getPacked(b, 100, 3),
    coShipTo: {
      coStreet: getStrCodes(b, 103, 30),
      coCity: getStrCodes(b, 133, 20),
      coPostcode: getStrCodes(b, 153, 10),
      coCountry: getStrCodes(b, 163, 2),
    },
    coLines,
    coNotes: getStrCodes(b, 325, 40),
    coAgentId: b.readUInt32BE(365),
    coVersion: b.readInt32LE(369),
  };
}

const layout = compileCopybook(COPYBOOK, { profile: 'gnucobol' });
const LENGTH = layout.maxLength;
// both codecs must agree on every byte and every value before they are timed
assert.equal(layout.encode(order).toString('hex'), handEncode(order).toString('hex'));
assert.deepEqual(layout.decode(handEncode(order)), order);
assert.deepEqual(handDecode(layout.encode(order)), order);
assert.deepEqual(handDecodeCodes(layout.encode(order)), order);

/** Operations per second of this process's CPU time (other processes on the machine do not count). */
function rate(fn: () => unknown, ms: number): number {
  let sink: unknown;
  for (let i = 0; i < 20_000; i++) sink = fn(); // warm up
  let count = 0;
  const cpu = () => {
    const u = process.cpuUsage();
    return u.user + u.system;
  };
  const start = cpu();
  let elapsed = 0;
  while (elapsed < ms * 1000) {
    for (let i = 0; i < 2_000; i++) sink = fn();
    count += 2_000;
    elapsed = cpu() - start;
  }
  if (sink === undefined) throw new Error('unreachable');
  return (count * 1e6) / elapsed;
}

/** Median of alternating rounds, so both sides see the same machine state. */
function compare(name: string, generated: () => unknown, hand: () => unknown) {
  const g: number[] = [];
  const h: number[] = [];
  for (let round = 0; round < 9; round++) {
    g.push(rate(generated, 200));
    h.push(rate(hand, 200));
  }
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const gm = median(g);
  const hm = median(h);
  const fmt = (n: number) => Math.round(n).toLocaleString('en-US').padStart(12);
  console.log(`${name.padEnd(40)} ${fmt(gm)} ${fmt(hm)}    ${((gm / hm) * 100).toFixed(0).padStart(4)}%`);
}

const bytes = layout.encode(order);
console.log(`Node ${process.version}; records/s of this process's CPU time, median of 9 interleaved rounds`);
console.log(`${'record'.padEnd(40)} ${'generated'.padStart(12)} ${'hand-written'.padStart(12)}    ratio`);
const mixed = `mixed: ${LENGTH} B, ${COPYBOOK.match(/PIC/g)!.length} items, gnucobol`;
compare(
  `${mixed} encode`,
  () => layout.encode(order),
  () => handEncode(order),
);
compare(
  `${mixed} decode`,
  () => layout.decode(bytes),
  () => handDecode(bytes),
);
compare(
  `  the same, hand-written strings by codes`,
  () => layout.decode(bytes),
  () => handDecodeCodes(bytes),
);
for (const extra of EXTRA_RECORDS) {
  const compiled = compileCopybook(extra.copybook, extra.options);
  const record = compiled.encode(extra.value);
  // the two decoders must agree on every value before they are timed
  assert.deepEqual(extra.handDecode(record), compiled.decode(record));
  compare(
    `${extra.name}: ${compiled.maxLength} B, ${extra.copybook.match(/PIC/g)!.length} items, ${extra.label} decode`,
    () => compiled.decode(record),
    () => extra.handDecode(record),
  );
}
