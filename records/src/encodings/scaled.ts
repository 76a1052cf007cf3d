/**
 * P scaling right of the digits (`9(3)PPP`: the value is the stored digits × 1000), in any usage: the stored
 * integer goes through the zoned, packed or binary encoding, scaled here. P left of the digits is only a
 * larger scale, which the encodings take as they are.
 */
import { RecordEncodeError } from '../errors.ts';
import { BIG_POW10, fitsDigits, pictureMax, POW10, scaledInteger, scaledToJson } from '../decimal.ts';
import { getBinary, putBinary, type BinarySpec } from './binary.ts';
import { checkedScaled, type NumberSpec } from './numeric.ts';
import { getPacked, putPacked, type PackedSpec } from './packed.ts';
import { getZoned, putZoned, type ZonedSpec } from './zoned.ts';

export type ScaledInner =
  { type: 'zoned'; spec: ZonedSpec } | { type: 'packed'; spec: PackedSpec } | { type: 'binary'; spec: BinarySpec };

/** The picture's numbers (scale < 0), and the encoding of the stored integer (scale 0). */
export interface ScaledSpec extends NumberSpec {
  inner: ScaledInner;
}

/**
 * The stored integer m of a value v = m × 10^-scale (any scale, P scaling included): exact, refused when it
 * has more decimals, nonzero digits in P positions, a sign the picture lacks or too many digits.
 */
export function scaledMantissa(s: NumberSpec, v: unknown, path: string): number | bigint {
  if (s.scale >= 0) return checkedScaled(s, v, path);
  const k = -s.scale;
  const n = scaledInteger(v, 0, path);
  const max = `${s.signed ? '±' : ''}${pictureMax(s.digits, s.scale)}`;
  const limit = { kind: 'range', min: s.signed ? `-${pictureMax(s.digits, s.scale)}` : '0', max } as const;
  if (!s.signed && n < 0) {
    throw new RecordEncodeError(path, `negative value ${String(v)} into an unsigned field (PIC ${s.picture})`, limit);
  }
  let m: number | bigint;
  if (typeof n === 'number' && k < POW10.length && Math.abs(n) < 2 ** 53) {
    if (n % POW10[k]! !== 0) throw new RecordEncodeError(path, pNotZero(v, s, k), limit);
    m = n / POW10[k]!;
  } else {
    const big = BigInt(n);
    const p = BIG_POW10[k] ?? 10n ** BigInt(k);
    if (big % p !== 0n) throw new RecordEncodeError(path, pNotZero(v, s, k), limit);
    m = big / p;
  }
  if (!fitsDigits(m, s.digits)) {
    throw new RecordEncodeError(path, `${String(v)} has too many digits for PIC ${s.picture} (at most ${max})`, limit);
  }
  return typeof m === 'bigint' && m >= -(2n ** 53n) && m <= 2n ** 53n ? Number(m) : m === 0 ? 0 : m;
}

function pNotZero(v: unknown, s: NumberSpec, k: number): string {
  return `${String(v)} does not fit PIC ${s.picture}: its P positions hold the last ${k} digit(s), which must be zero`;
}

/** The JSON value of stored integer m: m × 10^-scale, a number up to 15 digits, a decimal string beyond. */
export function mantissaToJson(m: number | bigint, scale: number, asString: boolean): number | string {
  if (scale >= 0) return scaledToJson(m, scale, asString);
  const k = -scale;
  if (!asString) return Number(m) * POW10[k]!;
  return scaledToJson(BigInt(m) * 10n ** BigInt(k), 0, true);
}

export function putScaled(buf: Buffer, off: number, s: ScaledSpec, v: unknown, path: string): void {
  const m = scaledMantissa(s, v, path);
  const stored = typeof m === 'bigint' ? m.toString() : m;
  const inner = s.inner;
  if (inner.type === 'zoned') putZoned(buf, off, inner.spec, stored, path);
  else if (inner.type === 'packed') putPacked(buf, off, inner.spec, stored, path);
  else putBinary(buf, off, inner.spec, stored, path);
}

export function getScaled(b: Buffer, off: number, s: ScaledSpec, field: string): number | string {
  const inner = s.inner;
  const m =
    inner.type === 'zoned'
      ? getZoned(b, off, inner.spec, field)
      : inner.type === 'packed'
        ? getPacked(b, off, inner.spec, field)
        : getBinary(b, off, inner.spec, field);
  return mantissaToJson(typeof m === 'string' ? BigInt(m) : m, s.scale, s.asString);
}
