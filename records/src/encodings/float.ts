/**
 * COMP-1 (4 bytes) and COMP-2 (8 bytes): IBM hexadecimal floating point (HFP) on z/OS, IEEE 754 binary32 and
 * binary64 elsewhere. HFP is (−1)^sign × 0.fraction × 16^(exponent − 64): a sign bit, a 7-bit excess-64
 * exponent and a 24-bit (short) or 56-bit (long) fraction, with no hidden bit and no NaN or infinity.
 */
import { RecordDecodeError, RecordEncodeError } from '../errors.ts';
import type { FloatFormat, FloatRounding } from '../types.ts';

export interface FloatSpec {
  length: 4 | 8;
  format: FloatFormat;
  /** `exact` refuses a value the field cannot hold exactly; `nearest` rounds half to even. */
  rounding: FloatRounding;
  /** COMP-1 or COMP-2, for messages. */
  usage: string;
}

const TWO32 = 2 ** 32;

/** Fraction bits of an HFP format. */
const fractionBits = (length: 4 | 8) => (length === 4 ? 24 : 56);

/** The largest magnitude each format holds and a double can carry exactly (the JSON Schema's bound). */
export function floatMax(s: Pick<FloatSpec, 'length' | 'format'>): number {
  if (s.format !== 'hfp') return s.length === 4 ? 3.4028234663852886e38 : Number.MAX_VALUE;
  // (1 − 16^−6) × 16^63 is a double exactly; of the long format's (1 − 16^−14) × 16^63, the 53 bits a double keeps
  return s.length === 4 ? (1 - 2 ** -24) * 2 ** 252 : (1 - 2 ** -53) * 2 ** 252;
}

/** Round half to even of a non-negative double. */
function roundHalfEven(x: number): number {
  const floor = Math.floor(x);
  const diff = x - floor;
  if (diff > 0.5) return floor + 1;
  if (diff < 0.5) return floor;
  return floor % 2 === 0 ? floor : floor + 1;
}

/** The exponent e with 2^e ≤ x < 2^(e+1), for a positive normal or subnormal double. */
function binaryExponent(x: number): number {
  let e = Math.floor(Math.log2(x));
  // log2 may be off by one near powers of two
  if (2 ** e > x) e--;
  else if (2 ** (e + 1) <= x) e++;
  return e;
}

/** The HFP bytes of `x` (sign, exponent, fraction as a double holding an integer), or a reason it does not fit. */
function toHfp(
  x: number,
  length: 4 | 8,
  rounding: FloatRounding,
): { sign: number; exp: number; frac: number } | string {
  const bits = fractionBits(length);
  const sign = x < 0 ? 1 : 0;
  const a = Math.abs(x);
  if (a === 0) return { sign: 0, exp: 0, frac: 0 };
  // normalised: 16^(E−65) ≤ a < 16^(E−64); below 16^−65 the exponent stays 0 and the fraction unnormalised
  let exp = Math.max(0, Math.floor(binaryExponent(a) / 4) + 65);
  if (exp > 127) return 'overflows the HFP exponent range (magnitude at most about 7.2e75)';
  const scaled = a * 2 ** (bits + 4 * (64 - exp));
  let frac = scaled;
  if (!Number.isInteger(scaled)) {
    if (rounding === 'exact') return '';
    frac = roundHalfEven(scaled);
    if (frac === 2 ** bits) {
      frac = 2 ** (bits - 4);
      exp++;
      if (exp > 127) return 'overflows the HFP exponent range (magnitude at most about 7.2e75)';
    }
  }
  return { sign, exp, frac };
}

/** The double nearest to an HFP value; the long format's 56-bit fraction is rounded half to even to 53 bits. */
export function hfpToNumber(sign: number, exp: number, hi: number, lo: number, length: 4 | 8): number {
  const bits = fractionBits(length);
  let value: number;
  if (length === 4) value = hi * 2 ** (4 * (exp - 64) - bits);
  else {
    let frac = (BigInt(hi) << 32n) | BigInt(lo);
    let shift = 0;
    const excess = frac.toString(2).length - 53;
    if (frac !== 0n && excess > 0) {
      const mask = (1n << BigInt(excess)) - 1n;
      const rest = frac & mask;
      const half = 1n << BigInt(excess - 1);
      frac >>= BigInt(excess);
      if (rest > half || (rest === half && (frac & 1n) === 1n)) frac++;
      shift = excess;
    }
    // frac ≤ 2^53 and the power of two is within a double's normal range: the product is exact
    value = Number(frac) * 2 ** (4 * (exp - 64) - bits + shift);
  }
  return value === 0 ? 0 : sign ? -value : value;
}

/** The JSON number a COMP-1/COMP-2 value is given as: a finite number or a numeric string. */
function numberOf(v: unknown, s: FloatSpec, path: string): number {
  let x: number;
  if (typeof v === 'number') x = v;
  else if (typeof v === 'string' && /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/.test(v)) x = Number(v);
  else {
    const got = v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v === 'string' ? `"${v}"` : typeof v;
    throw new RecordEncodeError(path, `expected a number for a ${s.usage} field, got ${got}`);
  }
  if (!Number.isFinite(x)) throw new RecordEncodeError(path, `${String(v)} is not a finite number`);
  return x;
}

function notExact(path: string, v: unknown, s: FloatSpec, nearest: number | string): never {
  const what = s.format === 'hfp' ? `${s.usage} (IBM hexadecimal floating point)` : `${s.usage} (IEEE 754)`;
  const shown = typeof nearest === 'number' ? `; the nearest value it holds is ${nearest}` : '';
  throw new RecordEncodeError(
    path,
    `${String(v)} cannot be held exactly by a ${what}${shown} (allow rounding with floatRounding: 'nearest')`,
  );
}

export function putFloat(buf: Buffer, off: number, s: FloatSpec, v: unknown, path: string): void {
  const x = numberOf(v, s, path);
  if (s.format === 'hfp') {
    const h = toHfp(x, s.length, s.rounding);
    if (typeof h === 'string') {
      if (h !== '') throw new RecordEncodeError(path, `${String(v)} ${h}`);
      const rounded = toHfp(x, s.length, 'nearest');
      notExact(path, v, s, typeof rounded === 'string' ? '' : hfpValue(rounded, s.length));
    }
    const high = h.frac >= TWO32 ? Math.floor(h.frac / TWO32) : 0;
    if (s.length === 4) buf.writeUInt32BE(((h.sign << 31) | (h.exp << 24) | h.frac) >>> 0, off);
    else {
      buf.writeUInt32BE(((h.sign << 31) | (h.exp << 24) | high) >>> 0, off);
      buf.writeUInt32BE(h.frac - high * TWO32, off + 4);
    }
    return;
  }
  const le = s.format === 'ieee-little';
  if (s.length === 4) {
    const f = Math.fround(x);
    if (!Number.isFinite(f)) throw new RecordEncodeError(path, `${String(v)} overflows a ${s.usage} (IEEE single)`);
    if (f !== x && s.rounding === 'exact') notExact(path, v, s, f);
    // a JSON zero has no sign: positive zero
    if (le) buf.writeFloatLE(f === 0 ? 0 : f, off);
    else buf.writeFloatBE(f === 0 ? 0 : f, off);
    return;
  }
  // a JSON number is a double: it always fits
  if (le) buf.writeDoubleLE(x === 0 ? 0 : x, off);
  else buf.writeDoubleBE(x === 0 ? 0 : x, off);
}

function hfpValue(h: { sign: number; exp: number; frac: number }, length: 4 | 8): number {
  const high = h.frac >= TWO32 ? Math.floor(h.frac / TWO32) : 0;
  if (length === 4) return hfpToNumber(h.sign, h.exp, h.frac, 0, 4);
  return hfpToNumber(h.sign, h.exp, high, h.frac - high * TWO32, 8);
}

export function getFloat(b: Buffer, off: number, s: FloatSpec, field: string): number {
  if (s.format === 'hfp') {
    const word = b.readUInt32BE(off);
    const sign = word >>> 31;
    const exp = (word >>> 24) & 0x7f;
    if (s.length === 4) return hfpToNumber(sign, exp, word & 0xffffff, 0, 4);
    return hfpToNumber(sign, exp, word & 0xffffff, b.readUInt32BE(off + 4), 8);
  }
  const le = s.format === 'ieee-little';
  const x =
    s.length === 4 ? (le ? b.readFloatLE(off) : b.readFloatBE(off)) : le ? b.readDoubleLE(off) : b.readDoubleBE(off);
  if (!Number.isFinite(x)) {
    const what = Number.isNaN(x) ? 'NaN' : x > 0 ? '+infinity' : '-infinity';
    throw new RecordDecodeError(off, field, `${s.usage} holds ${what}, which JSON cannot carry`);
  }
  return x === 0 ? 0 : x;
}
