/**
 * Writers of JSON text straight into bytes, for the generated `decodeJson`: each writes what `JSON.stringify`
 * prints for the value `decode` returns, as UTF-8. A writer that meets bytes `decode` would refuse throws
 * `NOT_FAST` (or returns NaN/-1 for its caller to throw it): the record is then decoded again by `decode`,
 * which throws its own error, so the errors stay the decoder's.
 */
import { UNMAPPED, type CharTable } from '../charsets.ts';
import { POW10 } from '../decimal.ts';
import { LAST_DIGIT, LAST_SIGN, PAIR } from './packed.ts';
import type { ZonedSpec } from './zoned.ts';

/** Thrown inside `decodeJson` when its fast path stops; never leaves it. */
export const NOT_FAST: unique symbol = Symbol('not on the fast path');

/** A byte of text as JSON string content: `fast` its one output byte (0 when it has none), `rare` its bytes. */
export interface JsonTextMap {
  fast: Uint8Array;
  /** The UTF-8 bytes of a byte that is not one plain ASCII byte: escapes, non-ASCII; null for a byte decode refuses. */
  rare: Array<Uint8Array | null>;
}

const textMaps = new Map<string, JsonTextMap>();

/**
 * The JSON string content of each byte of `table`: Latin-1 (the byte's own code point) for an ASCII-based page,
 * as decode reads those, else the page's character.
 */
export function jsonTextMap(table: CharTable): JsonTextMap {
  const cached = textMaps.get(table.name);
  if (cached) return cached;
  const fast = new Uint8Array(256);
  const rare: Array<Uint8Array | null> = [];
  for (let byte = 0; byte < 256; byte++) {
    const ch = table.ebcdic ? table.decode[byte]! : String.fromCharCode(byte);
    if (ch === UNMAPPED) {
      rare.push(null);
      continue;
    }
    const bytes = Buffer.from(JSON.stringify(ch).slice(1, -1), 'utf8');
    if (bytes.length === 1) fast[byte] = bytes[0]!;
    rare.push(bytes);
  }
  const map = { fast, rare };
  textMaps.set(table.name, map);
  return map;
}

/** Bytes that are not one plain ASCII byte: an escape, a UTF-8 sequence, or a byte with no character. */
function rareText(out: Uint8Array, p: number, bytes: Uint8Array | null | undefined): number {
  if (bytes === null || bytes === undefined) throw NOT_FAST;
  for (let k = 0; k < bytes.length; k++) out[p + k] = bytes[k]!;
  return p + bytes.length;
}

/** A left-justified text field, trailing `space` bytes trimmed, as a JSON string. */
export function jsonText(
  out: Uint8Array,
  p: number,
  b: Uint8Array,
  off: number,
  end: number,
  space: number,
  fast: Uint8Array,
  rare: Array<Uint8Array | null>,
): number {
  // trailing spaces four at a time, where the field is as long
  const spaces = space * 0x01010101;
  while (end - off >= 4 && (b[end - 1]! | (b[end - 2]! << 8) | (b[end - 3]! << 16) | (b[end - 4]! << 24)) === spaces)
    end -= 4;
  while (end > off && b[end - 1] === space) end--;
  return jsonTextBytes(out, p, b, off, end, fast, rare);
}

/** Bytes `off` to `end` of text as a JSON string. */
function jsonTextBytes(
  out: Uint8Array,
  p: number,
  b: Uint8Array,
  off: number,
  end: number,
  fast: Uint8Array,
  rare: Array<Uint8Array | null>,
): number {
  out[p++] = 0x22;
  for (let i = off; i < end; i++) {
    const c = fast[b[i]!]!;
    if (c !== 0) out[p++] = c;
    else p = rareText(out, p, rare[b[i]!]);
  }
  out[p++] = 0x22;
  return p;
}

/** A right-justified text field, leading `space` bytes trimmed, as a JSON string. */
export function jsonTextRight(
  out: Uint8Array,
  p: number,
  b: Uint8Array,
  off: number,
  end: number,
  space: number,
  fast: Uint8Array,
  rare: Array<Uint8Array | null>,
): number {
  while (off < end && b[off] === space) off++;
  return jsonTextBytes(out, p, b, off, end, fast, rare);
}

/** `count` bytes of `bytes` (a key, punctuation) at `p`. */
export function jsonBytes(out: Uint8Array, p: number, bytes: Uint8Array): number {
  for (let k = 0; k < bytes.length; k++) out[p + k] = bytes[k]!;
  return p + bytes.length;
}

/** A non-negative integer below 10^15, its digits. */
export function jsonUint(out: Uint8Array, p: number, n: number): number {
  if (n < 10) {
    out[p] = 48 + n;
    return p + 1;
  }
  let k = 2;
  while (k < 16 && n >= POW10[k]!) k++;
  const end = p + k;
  let i = end - 1;
  // int32 arithmetic where it can (a double's % is a call): the last nine digits, then the ones before
  if (n > 0x7fffffff) {
    const high = Math.floor(n / 1e9);
    let low = (n - high * 1e9) | 0;
    for (const stop = i - 9; i > stop; i--) {
      const q = (low / 10) | 0;
      out[i] = 48 + low - q * 10;
      low = q;
    }
    n = high;
  }
  let m = n | 0;
  for (; i >= p; i--) {
    const q = (m / 10) | 0;
    out[i] = 48 + m - q * 10;
    m = q;
  }
  return end;
}

/**
 * An exact integer `n` (|n| < 10^15) over 10^scale (scale ≤ 6), as JSON.stringify prints n / 10^scale: no
 * leading zeros, no trailing fractional zeros, no exponent (the smallest such value is 1e-6), `0` for -0.
 */
export function jsonScaled(out: Uint8Array, p: number, n: number, scale: number): number {
  if (n < 0) {
    out[p++] = 0x2d;
    n = -n;
  }
  if (scale === 0) return jsonUint(out, p, n);
  if (n > 0x7fffffff) return jsonScaledWide(out, p, n, scale);
  // int32 arithmetic: every digit, the point among them, then the trailing zeros (and a bare point) taken back
  let m = n | 0;
  let k = 1;
  while (k < 10 && m >= POW10[k]!) k++;
  const end = p + (k > scale ? k - scale : 1) + scale;
  let i = end;
  for (const point = end - scale; i > point; i--) {
    const q = (m / 10) | 0;
    out[i] = 48 + m - q * 10;
    m = q;
  }
  out[i--] = 0x2e;
  for (; i >= p; i--) {
    const q = (m / 10) | 0;
    out[i] = 48 + m - q * 10;
    m = q;
  }
  let last = end;
  while (out[last] === 48) last--;
  if (out[last] === 0x2e) last--;
  return last + 1;
}

/** jsonScaled of a magnitude beyond int32. */
function jsonScaledWide(out: Uint8Array, p: number, n: number, scale: number): number {
  const divisor = POW10[scale]!;
  const whole = Math.floor(n / divisor);
  let fraction = (n - whole * divisor) | 0;
  p = jsonUint(out, p, whole);
  if (fraction === 0) return p;
  out[p] = 0x2e;
  let end = p + scale;
  for (let i = end; i > p; i--) {
    const q = (fraction / 10) | 0;
    out[i] = 48 + fraction - q * 10;
    fraction = q;
  }
  while (out[end] === 48) end--;
  return end + 1;
}

/** ASCII text (JSON.stringify of a number) at `p`. */
function jsonAscii(out: Uint8Array, p: number, s: string): number {
  for (let k = 0; k < s.length; k++) out[p + k] = s.charCodeAt(k);
  return p + s.length;
}

/** A number as JSON.stringify prints it. */
export function jsonNumber(out: Uint8Array, p: number, v: number): number {
  if (Number.isInteger(v) && v > -1e15 && v < 1e15) {
    if (v < 0) {
      out[p++] = 0x2d;
      v = -v;
    }
    return jsonUint(out, p, v);
  }
  return jsonAscii(out, p, JSON.stringify(v));
}

/** Any value decode returned for a field, as JSON.stringify prints it. */
export function jsonValue(out: Buffer, p: number, v: unknown): number {
  if (typeof v === 'number') return jsonNumber(out, p, v);
  const s = JSON.stringify(v) as string | undefined;
  // undefined is left out of an object by JSON.stringify: not a field's value decode gives, so the slow way
  if (s === undefined) throw NOT_FAST;
  return p + out.write(s, p, 'utf8');
}

/** A byte minus the zero byte, plus 256 → the digit it is; NaN for a byte that is not a digit. */
const DIGIT_FROM_ZERO = Float64Array.from({ length: 512 }, (_, i) => (i >= 256 && i < 266 ? i - 256 : NaN));

/**
 * A zoned field of at most 15 digits, unsigned or with a trailing overpunched sign: the signed integer of its
 * digits (the scale not applied), NaN for bytes decode refuses. `unsigned` is 256 for an unsigned field, else 0.
 */
export function zonedInteger(
  b: Uint8Array,
  off: number,
  last: number,
  zero: number,
  unsigned: number,
  s: ZonedSpec,
): number {
  let num = 0;
  for (let i = off; i < last; i++) num = num * 10 + DIGIT_FROM_ZERO[b[i]! - zero + 256]!;
  const x = b[last]! | unsigned;
  return (num * 10 + s.lastDigit[x]!) * s.lastSign[x]!;
}

/**
 * A packed field of at most 15 digits: the signed integer of its digits, NaN for bytes decode refuses.
 * `firstLimit` is 0x10 where an even digit count leaves the first nibble unused (it must be 0), else 0x100.
 */
export function packedInteger(b: Uint8Array, off: number, last: number, unsigned: number, firstLimit: number): number {
  if (b[off]! >= firstLimit) return NaN;
  let num = 0;
  for (let i = off; i < last; i++) num = num * 100 + PAIR[b[i]!]!;
  const x = b[last]! | unsigned;
  return (num * 10 + LAST_DIGIT[x]!) * LAST_SIGN[x]!;
}

/** Digits of a wide decimal, read before they are written. */
let digitScratch = new Uint8Array(64);

/** `digitScratch`, with room for `count` digits. */
function scratchFor(count: number): Uint8Array {
  if (count > digitScratch.length) digitScratch = new Uint8Array(count * 2);
  return digitScratch;
}

/**
 * `count` digits in `digitScratch`, negative or not, over 10^scale, as the JSON string decode returns for a
 * field wider than 15 digits: no leading zeros, no trailing fractional zeros, `"0"` unsigned.
 */
function jsonDecimalDigits(out: Uint8Array, p: number, count: number, negative: boolean, scale: number): number {
  const d = digitScratch;
  let first = 0;
  while (first < count && d[first] === 0) first++;
  out[p++] = 0x22;
  if (first === count) {
    out[p++] = 48;
    out[p++] = 0x22;
    return p;
  }
  if (negative) out[p++] = 0x2d;
  const point = count - scale; // digits before the point (≤ 0: none)
  if (first >= point) out[p++] = 48;
  else for (let i = first; i < point; i++) out[p++] = 48 + d[i]!;
  let lastNonZero = count - 1;
  while (lastNonZero >= point && lastNonZero >= 0 && d[lastNonZero] === 0) lastNonZero--;
  if (lastNonZero >= point) {
    out[p++] = 0x2e;
    for (let i = point; i < 0; i++) out[p++] = 48;
    for (let i = Math.max(point, 0); i <= lastNonZero; i++) out[p++] = 48 + d[i]!;
  }
  out[p++] = 0x22;
  return p;
}

/**
 * A zoned field wider than 15 digits, unsigned or with a trailing overpunched sign, as its decimal string;
 * -1 for bytes decode refuses.
 */
export function jsonZonedDecimal(
  out: Uint8Array,
  p: number,
  b: Uint8Array,
  off: number,
  last: number,
  zero: number,
  unsigned: number,
  scale: number,
  s: ZonedSpec,
): number {
  const count = last - off + 1;
  const d = scratchFor(count);
  for (let i = off; i < last; i++) {
    const digit = b[i]! - zero;
    if (digit < 0 || digit > 9) return -1;
    d[i - off] = digit;
  }
  const x = b[last]! | unsigned;
  const digit = s.lastDigit[x]!;
  if (digit !== digit) return -1;
  d[count - 1] = digit;
  return jsonDecimalDigits(out, p, count, s.lastSign[x]! < 0, scale);
}

/** A packed field wider than 15 digits as its decimal string; -1 for bytes decode refuses. */
export function jsonPackedDecimal(
  out: Uint8Array,
  p: number,
  b: Uint8Array,
  off: number,
  last: number,
  unsigned: number,
  firstLimit: number,
  scale: number,
): number {
  if (b[off]! >= firstLimit) return -1;
  const count = (last - off) * 2 + 1;
  const d = scratchFor(count);
  for (let i = off, k = 0; i < last; i++, k += 2) {
    const x = b[i]!;
    if (x >> 4 > 9 || (x & 15) > 9) return -1;
    d[k] = x >> 4;
    d[k + 1] = x & 15;
  }
  const x = b[last]! | unsigned;
  const digit = LAST_DIGIT[x]!;
  if (digit !== digit) return -1;
  d[count - 1] = digit;
  return jsonDecimalDigits(out, p, count, LAST_SIGN[x]! < 0, scale);
}

/**
 * A zoned field, unsigned or with a trailing overpunched sign, scale ≤ 6, as JSON.stringify prints decode's
 * number for it, its digits copied from the bytes: no leading zeros, no trailing fractional zeros, `0` for a
 * negative zero. -1 for bytes decode refuses.
 */
export function jsonZoned(
  out: Uint8Array,
  p: number,
  b: Uint8Array,
  off: number,
  last: number,
  zero: number,
  unsigned: number,
  scale: number,
  s: ZonedSpec,
): number {
  const x = b[last]! | unsigned;
  const lastDigit = s.lastDigit[x]!;
  if (lastDigit !== lastDigit) return -1;
  const start = p;
  if (s.lastSign[x]! < 0) out[p++] = 0x2d;
  // the byte of the first fractional digit; before `off` when P scaling puts zeros after the point
  const point = last + 1 - scale;
  let i = off;
  while (i < point && i < last && b[i] === zero) i++;
  if (i >= point) out[p++] = 48;
  for (; i < point; i++) {
    const d = i === last ? lastDigit : b[i]! - zero;
    if (d < 0 || d > 9) return -1;
    out[p++] = 48 + d;
  }
  if (scale > 0) {
    const dot = p;
    out[p++] = 0x2e;
    for (let z = point; z < off; z++) out[p++] = 48;
    for (i = point > off ? point : off; i <= last; i++) {
      const d = i === last ? lastDigit : b[i]! - zero;
      if (d < 0 || d > 9) return -1;
      out[p++] = 48 + d;
    }
    while (out[p - 1] === 48) p--;
    if (p - 1 === dot) p--;
  }
  if (p - start === 2 && out[start] === 0x2d && out[start + 1] === 48) {
    out[start] = 48;
    return start + 1;
  }
  return p;
}
