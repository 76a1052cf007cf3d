import { RecordEncodeError } from './errors.ts';

/** Powers of ten as doubles (exact up to 1e22) and as BigInts. */
export const POW10: readonly number[] = Array.from({ length: 23 }, (_, i) => 10 ** i);
export const BIG_POW10: readonly bigint[] = Array.from({ length: 40 }, (_, i) => 10n ** BigInt(i));

/** Digits a double always carries exactly through decimal → double → decimal. */
export const EXACT_DIGITS = 15;

const DECIMAL = /^([+-]?)(\d*)(?:\.(\d*))?$/;

/** A JSON value's type, for messages. */
export function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object') return 'an object';
  return `a ${typeof v}`;
}

/**
 * The value × 10^scale as an exact signed integer: a number when it is below 10^15, otherwise a bigint.
 * Accepts a JSON number or a decimal string; never rounds: more decimals than `scale` is an error.
 */
export function scaledInteger(v: unknown, scale: number, path: string): number | bigint {
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new RecordEncodeError(path, `${v} is not a finite number`);
    const p = POW10[scale]!;
    const r = Math.round(v * p);
    // Below 10^15 two different decimals never map to the same double, so r is what the sender wrote.
    if (Math.abs(r) < 1e15 && r / p === v) return r === 0 ? 0 : r;
    if (!Number.isSafeInteger(v) && significantDigits(v) > EXACT_DIGITS) {
      throw new RecordEncodeError(
        path,
        `the JSON number ${v} has more than ${EXACT_DIGITS} significant digits and cannot be taken exactly; send it as a decimal string`,
      );
    }
    return fromDecimalString(numberToPlainString(v), scale, path);
  }
  if (typeof v === 'string') return fromDecimalString(v, scale, path);
  throw new RecordEncodeError(path, `expected a number or a decimal string, got ${typeName(v)}`);
}

function significantDigits(v: number): number {
  return numberToPlainString(Math.abs(v)).replace('.', '').replace(/^0+/, '').replace(/0+$/, '').length;
}

/** `String(n)` without exponent notation. */
export function numberToPlainString(n: number): string {
  const s = String(n);
  const e = s.indexOf('e');
  if (e < 0) return s;
  const neg = s.startsWith('-');
  const mantissa = s.slice(neg ? 1 : 0, e);
  const exp = Number(s.slice(e + 1));
  const [intPart, frac = ''] = mantissa.split('.') as [string, string?];
  const digits = intPart + frac;
  const point = intPart.length + exp;
  let out: string;
  if (point <= 0) out = `0.${'0'.repeat(-point)}${digits}`;
  else if (point >= digits.length) out = digits + '0'.repeat(point - digits.length);
  else out = `${digits.slice(0, point)}.${digits.slice(point)}`;
  return (neg ? '-' : '') + out;
}

function fromDecimalString(s: string, scale: number, path: string): number | bigint {
  const m = DECIMAL.exec(s);
  if (m === null || (m[2] === '' && (m[3] ?? '') === '')) {
    throw new RecordEncodeError(path, `"${s.length > 40 ? `${s.slice(0, 40)}…` : s}" is not a decimal number`);
  }
  const neg = m[1] === '-';
  const intPart = m[2]!.replace(/^0+/, '');
  const frac = (m[3] ?? '').replace(/0+$/, '');
  if (frac.length > scale) {
    throw new RecordEncodeError(path, `${s} has ${frac.length} decimal places; the picture holds ${scale}`, {
      kind: 'decimals',
      max: scale,
    });
  }
  const digits = (intPart + frac.padEnd(scale, '0')).replace(/^0+/, '');
  if (digits === '') return 0;
  if (digits.length <= EXACT_DIGITS) return neg ? -Number(digits) : Number(digits);
  return neg ? -BigInt(digits) : BigInt(digits);
}

/** Is |n| < 10^digits? */
export function fitsDigits(n: number | bigint, digits: number): boolean {
  if (typeof n === 'number') return digits >= 16 || Math.abs(n) < POW10[digits]!;
  return (n < 0n ? -n : n) < BIG_POW10[digits]!;
}

/** The largest value a picture holds, as text (`999.99`). */
export function pictureMax(digits: number, scale: number): string {
  const nines = '9'.repeat(digits);
  // P scaling: zeros for the P's right of the digits (scale < 0), or between the point and the digits
  if (scale < 0) return nines + '0'.repeat(-scale);
  if (scale > digits) return `0.${'0'.repeat(scale - digits)}${nines}`;
  return scale === 0 ? nines : `${nines.slice(0, digits - scale) || '0'}.${nines.slice(digits - scale)}`;
}

/**
 * An exact scaled integer as the JSON value decode returns: a number when the field holds at most
 * 15 digits (a double carries those exactly), otherwise a canonical decimal string.
 */
export function scaledToJson(n: number | bigint, scale: number, asString: boolean): number | string {
  if (!asString) {
    const x = typeof n === 'bigint' ? Number(n) : n;
    return scale === 0 ? x : x / POW10[scale]!;
  }
  let s = (typeof n === 'bigint' ? (n < 0n ? -n : n) : Math.abs(n)).toString();
  const neg = typeof n === 'bigint' ? n < 0n : n < 0;
  if (scale > 0) {
    s = s.padStart(scale + 1, '0');
    const intPart = s.slice(0, s.length - scale);
    const frac = s.slice(s.length - scale).replace(/0+$/, '');
    s = frac === '' ? intPart : `${intPart}.${frac}`;
  }
  return neg && s !== '0' ? `-${s}` : s;
}
