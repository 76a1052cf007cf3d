/** Packed decimal (COMP-3, PACKED-DECIMAL): two digits a byte, the sign in the last nibble. */
import { RecordDecodeError } from '../errors.ts';
import { POW10, scaledToJson } from '../decimal.ts';
import { checkedScaled, type NumberSpec } from './numeric.ts';

export interface PackedSpec extends NumberSpec {
  length: number;
}

export function putPacked(buf: Buffer, off: number, s: PackedSpec, v: unknown, path: string): void {
  const n = checkedScaled(s, v, path);
  const sign = !s.signed ? 0x0f : n < 0 ? 0x0d : 0x0c;
  const last = off + s.length - 1;
  if (typeof n === 'number') {
    let m = Math.abs(n);
    const d = m % 10;
    m = (m - d) / 10;
    buf[last] = (d << 4) | sign;
    for (let i = last - 1; i >= off; i--) {
      const lo = m % 10;
      m = (m - lo) / 10;
      const hi = m % 10;
      m = (m - hi) / 10;
      buf[i] = (hi << 4) | lo;
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
  const last = off + s.length - 1;
  const negative = packedNegative(b, off, last, s, field);
  let num = 0;
  for (let i = off; i < last; i++) {
    const x = b[i]!;
    const hi = x >> 4;
    const lo = x & 0x0f;
    if (hi > 9 || lo > 9) packedDigit(hi > 9 ? hi : lo, i, field);
    num = num * 100 + hi * 10 + lo;
  }
  num = num * 10 + packedDigit(b[last]! >> 4, last, field);
  if (negative && num !== 0) num = -num;
  return s.scale === 0 ? num : num / POW10[s.scale]!;
}
