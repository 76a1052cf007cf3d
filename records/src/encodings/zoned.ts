/** Zoned decimal (USAGE DISPLAY numerics): a character per digit, the sign overpunched or separate. */
import { fromEbcdic, type CharTable } from '../charsets.ts';
import { RecordDecodeError } from '../errors.ts';
import { POW10, scaledToJson } from '../decimal.ts';
import type { PlatformProfile } from '../types.ts';
import { checkedScaled, hex, type NumberSpec } from './numeric.ts';

/** The bytes of digits and overpunched signs in one code page, under one sign convention. */
export interface ZonedBytes {
  /** byte of digit d for unsigned/positive (non-sign) positions */
  digit: Uint8Array;
  /** overpunched sign byte of digit d, positive and negative */
  pos: Uint8Array;
  neg: Uint8Array;
  /** byte → digit (0–9) for plain digit bytes, -1 otherwise */
  digitOf: Int8Array;
  /** overpunched byte → digit + 10 × (negative ? 1 : 0) + 100 when valid, -1 otherwise */
  punchOf: Int16Array;
  /**
   * The last byte of a trailing-sign field: its digit (NaN when it is not one) and its sign (-1 or 1). Bytes
   * 0–255 for signed fields (a plain digit is positive), 256–511 for unsigned ones (plain digits only).
   */
  lastDigit: Float64Array;
  lastSign: Float64Array;
}

export interface ZonedSpec extends NumberSpec, ZonedBytes {
  length: number;
  leading: boolean;
  separate: boolean;
  blankWhenZero: boolean;
  table: CharTable;
}

const zonedBytesCache = new Map<string, ZonedBytes>();

/** The digit and sign bytes of `table`, built once per code page and convention. */
export function zonedBytes(table: CharTable, convention: PlatformProfile['zonedSign']): ZonedBytes {
  const id = `${table.name}/${convention}`;
  const cached = zonedBytesCache.get(id);
  if (cached) return cached;
  const digit = new Uint8Array(10);
  const pos = new Uint8Array(10);
  const neg = new Uint8Array(10);
  const digitOf = new Int8Array(256).fill(-1);
  const punchOf = new Int16Array(256).fill(-1);
  for (let d = 0; d < 10; d++) {
    digit[d] = table.encode[48 + d]!;
    digitOf[digit[d]!] = d;
    if (convention === 'ebcdic') {
      pos[d] = fromEbcdic(table, 0xc0 | d);
      neg[d] = fromEbcdic(table, 0xd0 | d);
      // IBM reads A, E and F zones as positive and B as negative too (where the charset has those bytes)
      for (const zone of [0xa0, 0xe0, 0xf0]) {
        const byte = fromEbcdic(table, zone | d);
        if (byte >= 0) punchOf[byte] = 100 + d;
      }
      const b = fromEbcdic(table, 0xb0 | d);
      if (b >= 0) punchOf[b] = 110 + d;
    } else {
      pos[d] = digit[d]!;
      neg[d] = table.encode[0x70 + d]!; // 'p'…'y'
    }
    punchOf[pos[d]!] = 100 + d;
    punchOf[neg[d]!] = 110 + d;
  }
  const lastDigit = new Float64Array(512).fill(NaN);
  const lastSign = new Float64Array(512).fill(1);
  for (let byte = 0; byte < 256; byte++) {
    const p = punchOf[byte]!;
    if (p >= 0) {
      lastDigit[byte] = p % 10;
      lastSign[byte] = p >= 110 ? -1 : 1;
    }
    const d = digitOf[byte]!;
    if (d >= 0) {
      lastDigit[byte] = lastDigit[256 + byte] = d;
      lastSign[byte] = 1;
    }
  }
  const built = { digit, pos, neg, digitOf, punchOf, lastDigit, lastSign };
  zonedBytesCache.set(id, built);
  return built;
}

/** Writes |n| as `count` digits ending before `end`, using `digit` bytes. */
function writeDigits(buf: Buffer, end: number, count: number, n: number | bigint, digit: Uint8Array): void {
  if (typeof n === 'number') {
    // int32 arithmetic where it can (a double's % is a call): the last nine digits, then the ones before
    const m = Math.abs(n);
    const high = m > 0x7fffffff ? Math.floor(m / 1e9) : 0;
    let part = (m - high * 1e9) | 0;
    const stop = end - count;
    let i = end - 1;
    if (high !== 0) {
      for (const last9 = end - 9; i >= last9; i--) {
        const q = (part / 10) | 0;
        buf[i] = digit[part - q * 10]!;
        part = q;
      }
      part = high | 0;
    }
    for (; i >= stop; i--) {
      const q = (part / 10) | 0;
      buf[i] = digit[part - q * 10]!;
      part = q;
    }
  } else {
    const text = (n < 0n ? -n : n).toString().padStart(count, '0');
    for (let i = 0; i < count; i++) buf[end - count + i] = digit[text.charCodeAt(i) - 48]!;
  }
}

export function putZoned(buf: Buffer, off: number, s: ZonedSpec, v: unknown, path: string): void {
  putZonedScaled(buf, off, s, checkedScaled(s, v, path));
}

/** Writes a value already scaled and checked against the picture (`checkedScaled`'s result). */
export function putZonedScaled(buf: Buffer, off: number, s: ZonedSpec, n: number | bigint): void {
  const negative = n < 0;
  if (s.blankWhenZero && (n === 0 || n === 0n)) {
    buf.fill(s.table.space, off, off + s.length);
    return;
  }
  if (s.separate) {
    const digitsAt = s.leading ? off + 1 : off;
    writeDigits(buf, digitsAt + s.digits, s.digits, n, s.digit);
    buf[s.leading ? off : off + s.digits] = negative ? s.table.minus : s.table.plus;
    return;
  }
  writeDigits(buf, off + s.digits, s.digits, n, s.digit);
  if (s.signed) {
    const at = s.leading ? off : off + s.digits - 1;
    const d = s.digitOf[buf[at]!]!;
    buf[at] = negative ? s.neg[d]! : s.pos[d]!;
  }
}

export function getZoned(b: Buffer, off: number, s: ZonedSpec, field: string): number | string {
  if (s.blankWhenZero) {
    let blank = true;
    for (let i = off; i < off + s.length; i++) {
      if (b[i] !== s.table.space) {
        blank = false;
        break;
      }
    }
    if (blank) return s.asString ? '0' : 0;
  }
  let start = off;
  let punchAt = -1;
  let negative = false;
  if (s.separate) {
    const signAt = s.leading ? off : off + s.digits;
    if (s.leading) start = off + 1;
    const sign = b[signAt];
    if (sign === s.table.minus) negative = true;
    else if (sign !== s.table.plus) {
      throw new RecordDecodeError(signAt, field, `invalid sign character 0x${hex(sign)} (expected + or -)`);
    }
  } else if (s.signed) {
    punchAt = s.leading ? off : off + s.digits - 1;
  }
  const end = start + s.digits;
  const digitOf = s.digitOf;
  let num = 0;
  let text = '';
  for (let i = start; i < end; i++) {
    let d = digitOf[b[i]!]!;
    if (d < 0) {
      // only the sign position may hold an overpunched digit (a plain digit there is positive)
      const p = i === punchAt ? s.punchOf[b[i]!]! : -1;
      if (p < 0) {
        const what = i === punchAt ? 'invalid signed digit' : 'invalid digit';
        throw new RecordDecodeError(i, field, `${what} 0x${hex(b[i])}${i === punchAt ? '' : ' in a zoned decimal'}`);
      }
      d = p % 10;
      negative = p >= 110;
    }
    if (s.asString) text += d;
    else num = num * 10 + d;
  }
  if (s.asString) return scaledToJson(negative ? -BigInt(text) : BigInt(text), s.scale, true);
  if (negative && num !== 0) num = -num;
  return s.scale === 0 ? num : num / POW10[s.scale]!;
}

/**
 * getZoned for the common case — at most 15 digits, unsigned or with a trailing overpunched sign, no
 * BLANK WHEN ZERO — in one tight loop. Digits are contiguous in every supported charset.
 */
export function getZonedTrailing(b: Buffer, off: number, s: ZonedSpec, field: string): number {
  const zero = s.digit[0]!;
  const last = off + s.digits - 1;
  let num = 0;
  for (let i = off; i < last; i++) {
    const d = b[i]! - zero;
    if (d < 0 || d > 9) throw new RecordDecodeError(i, field, `invalid digit 0x${hex(b[i])} in a zoned decimal`);
    num = num * 10 + d;
  }
  let d = b[last]! - zero;
  if (d < 0 || d > 9) {
    const p = s.signed ? s.punchOf[b[last]!]! : -1;
    if (p < 0) {
      const byte = hex(b[last]);
      const reason = s.signed ? `invalid signed digit 0x${byte}` : `invalid digit 0x${byte} in a zoned decimal`;
      throw new RecordDecodeError(last, field, reason);
    }
    d = p % 10;
    num = num * 10 + d;
    if (p >= 110 && num !== 0) num = -num;
  } else {
    num = num * 10 + d;
  }
  return s.scale === 0 ? num : num / POW10[s.scale]!;
}

/** A byte minus the zero byte, plus 256 → the digit it is; NaN for a byte that is not a digit. */
const DIGIT_FROM_ZERO = Float64Array.from({ length: 512 }, (_, i) => (i >= 256 && i < 266 ? i - 256 : NaN));

/**
 * getZonedTrailing with the spec's numbers as arguments: the generated decoder passes them as literals. Kept
 * small, so that V8 inlines several into one decoder: a byte is one table load and one multiply-add, a byte
 * that is not a digit (or a bad last byte) makes the value NaN, checked once at the end, and anything unusual
 * goes to `getZonedTrailing`, which names the fault. `unsigned` is 256 for an unsigned field, else 0.
 */
export function getZonedConstants(
  b: Buffer,
  off: number,
  last: number,
  zero: number,
  unsigned: number,
  divisor: number,
  s: ZonedSpec,
  field: string,
): number {
  let num = 0;
  for (let i = off; i < last; i++) num = num * 10 + DIGIT_FROM_ZERO[b[i]! - zero + 256]!;
  const x = b[last]! | unsigned;
  num = (num * 10 + s.lastDigit[x]!) * s.lastSign[x]!;
  if (num !== num) return getZonedTrailing(b, off, s, field);
  // + 0 turns a negative zero into 0
  return num / divisor + 0;
}
