/** Packed decimal (COMP-3, PACKED-DECIMAL): two digits a byte, the sign in the last nibble. */
import { RecordDecodeError } from '../errors.ts';
import { POW10, scaledToJson } from '../decimal.ts';
import { checkedScaled, type NumberSpec } from './numeric.ts';

export interface PackedSpec extends NumberSpec {
  length: number;
}

export function putPacked(buf: Buffer, off: number, s: PackedSpec, v: unknown, path: string): void {
  putPackedScaled(buf, off, s, checkedScaled(s, v, path));
}

/** Writes a value already scaled and checked against the picture (`checkedScaled`'s result). */
export function putPackedScaled(buf: Buffer, off: number, s: PackedSpec, n: number | bigint): void {
  const sign = !s.signed ? 0x0f : n < 0 ? 0x0d : 0x0c;
  const last = off + s.length - 1;
  if (typeof n === 'number') {
    // int32 arithmetic where it can (a double's % is a call): the last nine digits, then the ones before
    const m = Math.abs(n);
    const high = m > 0x7fffffff ? Math.floor(m / 1e9) : 0;
    let part = (m - high * 1e9) | 0;
    // digits left in `part` before `high` takes over (never, when high is 0)
    let left = high === 0 ? -1 : 9;
    let q = (part / 10) | 0;
    buf[last] = ((part - q * 10) << 4) | sign;
    part = --left === 0 ? high | 0 : q;
    for (let i = last - 1; i >= off; i--) {
      q = (part / 10) | 0;
      const lo = part - q * 10;
      part = --left === 0 ? high | 0 : q;
      q = (part / 10) | 0;
      buf[i] = ((part - q * 10) << 4) | lo;
      part = --left === 0 ? high | 0 : q;
    }
  } else {
    const text = (n < 0n ? -n : n).toString().padStart(s.length * 2 - 1, '0');
    buf[last] = ((text.charCodeAt(text.length - 1) - 48) << 4) | sign;
    for (let i = last - 1, k = text.length - 2; i >= off; i--, k -= 2) {
      buf[i] = ((text.charCodeAt(k - 1) - 48) << 4) | (text.charCodeAt(k) - 48);
    }
  }
}

/** Checks the sign nibble and the spare nibble of an even picture; returns whether the value is negative. */
function packedNegative(b: Buffer, off: number, last: number, s: PackedSpec, field: string): boolean {
  const signNibble = b[last]! & 0x0f;
  if (signNibble < 0x0a) {
    throw new RecordDecodeError(last, field, `invalid sign nibble ${signNibble.toString(16)} in packed decimal`);
  }
  const negative = signNibble === 0x0d || signNibble === 0x0b;
  if (negative && !s.signed) {
    const reason = `negative sign nibble ${signNibble.toString(16)} in an unsigned field (PIC ${s.picture})`;
    throw new RecordDecodeError(last, field, reason);
  }
  // an even digit count leaves the first nibble unused: it must be zero
  const spare = b[off]! >> 4;
  if (s.digits % 2 === 0 && spare !== 0) {
    const reason =
      spare > 9
        ? `invalid digit nibble ${spare.toString(16)} in packed decimal`
        : `digit beyond PIC ${s.picture} in packed decimal`;
    throw new RecordDecodeError(off, field, reason);
  }
  return negative;
}

function packedDigit(nibble: number, at: number, field: string): number {
  if (nibble > 9) {
    throw new RecordDecodeError(at, field, `invalid digit nibble ${nibble.toString(16)} in packed decimal`);
  }
  return nibble;
}

/** Packed decimal: a JSON number for at most 15 digits, a decimal string beyond. */
export function getPacked(b: Buffer, off: number, s: PackedSpec, field: string): number | string {
  if (!s.asString) return getPackedNumber(b, off, s, field);
  const last = off + s.length - 1;
  const negative = packedNegative(b, off, last, s, field);
  let text = '';
  for (let i = off; i < last; i++) {
    text += `${packedDigit(b[i]! >> 4, i, field)}${packedDigit(b[i]! & 0x0f, i, field)}`;
  }
  text += packedDigit(b[last]! >> 4, last, field);
  return scaledToJson(negative ? -BigInt(text) : BigInt(text), s.scale, true);
}

/** getPacked for at most 15 digits: a byte at a time, no strings. */
export function getPackedNumber(b: Buffer, off: number, s: PackedSpec, field: string): number {
  const unsigned = s.signed ? 0 : 256;
  const firstLimit = s.digits % 2 === 0 ? 0x10 : 0x100;
  return getPackedConstants(b, off, off + s.length - 1, unsigned, firstLimit, POW10[s.scale]!, s, field);
}

/** A byte of two digit nibbles → their value 0–99; NaN for a byte with a nibble that is not a digit. */
export const PAIR = Float64Array.from({ length: 256 }, (_, x) =>
  x >> 4 > 9 || (x & 15) > 9 ? NaN : (x >> 4) * 10 + (x & 15),
);

/**
 * The last byte of a packed field: its digit (NaN for a bad digit or sign) and its sign (-1 or 1). Bytes
 * 0–255 for signed fields, 256–511 for unsigned ones (where a negative sign is an error, so NaN).
 */
export const LAST_DIGIT = Float64Array.from({ length: 512 }, (_, i) => {
  const digit = (i & 0xff) >> 4;
  const sign = i & 0x0f;
  const negative = sign === 0x0d || sign === 0x0b;
  return digit > 9 || sign < 0x0a || (negative && i >= 256) ? NaN : digit;
});
export const LAST_SIGN = Float64Array.from({ length: 512 }, (_, i) =>
  (i & 0x0f) === 0x0d || (i & 0x0f) === 0x0b ? -1 : 1,
);

/**
 * getPackedNumber with the spec's numbers as arguments: the generated decoder passes them as literals. Kept
 * small, so that V8 inlines several into one decoder: a byte is one table load and one multiply-add, a bad
 * nibble or sign makes the value NaN (checked once at the end), and anything unusual goes to `packedFailure`,
 * which finds the first fault and names it. The sums stay below 10^15, so every step is exact.
 * `unsigned` is 256 for an unsigned field, else 0; `firstLimit` is 0x10 where an even digit count leaves the
 * first nibble unused (it must be 0), else 0x100.
 */
export function getPackedConstants(
  b: Buffer,
  off: number,
  last: number,
  unsigned: number,
  firstLimit: number,
  divisor: number,
  s: PackedSpec,
  field: string,
): number {
  let num = 0;
  for (let i = off; i < last; i++) num = num * 100 + PAIR[b[i]!]!;
  const x = b[last]! | unsigned;
  num = (num * 10 + LAST_DIGIT[x]!) * LAST_SIGN[x]!;
  if (num !== num || b[off]! >= firstLimit) return packedFailure(b, off, s, field);
  // + 0 turns a negative zero into 0
  return num / divisor + 0;
}

/** Throws the decode error of the first fault in a packed field that the fast path refused. */
function packedFailure(b: Buffer, off: number, s: PackedSpec, field: string): never {
  const last = off + s.length - 1;
  packedNegative(b, off, last, s, field);
  for (let i = off; i <= last; i++) {
    packedDigit(b[i]! >> 4, i, field);
    if (i < last) packedDigit(b[i]! & 0x0f, i, field);
  }
  throw new RecordDecodeError(off, field, 'invalid packed decimal');
}
