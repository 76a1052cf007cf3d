/** Binary integers (COMP, COMP-4, BINARY: the picture's range; COMP-5: the storage size's). */
import { RecordDecodeError, RecordEncodeError } from '../errors.ts';
import { BIG_POW10, pictureMax, POW10, scaledInteger, scaledToJson } from '../decimal.ts';
import { checkedScaled, type NumberSpec } from './numeric.ts';

export interface BinarySpec extends NumberSpec {
  length: 1 | 2 | 4 | 8;
  littleEndian: boolean;
  /** COMP-5: the whole size's range; COMP: the picture's. */
  native: boolean;
  min: number | bigint;
  max: number | bigint;
}

export function putBinary(buf: Buffer, off: number, s: BinarySpec, v: unknown, path: string): void {
  let n: number | bigint;
  if (s.native) {
    n = scaledInteger(v, s.scale, path);
    if (n < s.min || n > s.max) {
      const kind = `${s.length}-byte ${s.signed ? 'signed' : 'unsigned'}`;
      throw new RecordEncodeError(path, `${String(v)} is outside the range of a ${kind} binary field`);
    }
  } else {
    n = checkedScaled(s, v, path);
  }
  const le = s.littleEndian;
  switch (s.length) {
    case 1:
      if (s.signed) buf.writeInt8(Number(n), off);
      else buf.writeUInt8(Number(n), off);
      return;
    case 2:
      if (s.signed) le ? buf.writeInt16LE(Number(n), off) : buf.writeInt16BE(Number(n), off);
      else le ? buf.writeUInt16LE(Number(n), off) : buf.writeUInt16BE(Number(n), off);
      return;
    case 4:
      if (s.signed) le ? buf.writeInt32LE(Number(n), off) : buf.writeInt32BE(Number(n), off);
      else le ? buf.writeUInt32LE(Number(n), off) : buf.writeUInt32BE(Number(n), off);
      return;
    default: {
      const big = BigInt(n);
      if (s.signed) le ? buf.writeBigInt64LE(big, off) : buf.writeBigInt64BE(big, off);
      else le ? buf.writeBigUInt64LE(big, off) : buf.writeBigUInt64BE(big, off);
    }
  }
}

export function getBinary(b: Buffer, off: number, s: BinarySpec, field: string): number | string {
  const le = s.littleEndian;
  let n: number | bigint;
  switch (s.length) {
    case 1:
      n = s.signed ? b.readInt8(off) : b.readUInt8(off);
      break;
    case 2:
      n = s.signed ? (le ? b.readInt16LE(off) : b.readInt16BE(off)) : le ? b.readUInt16LE(off) : b.readUInt16BE(off);
      break;
    case 4:
      n = s.signed ? (le ? b.readInt32LE(off) : b.readInt32BE(off)) : le ? b.readUInt32LE(off) : b.readUInt32BE(off);
      break;
    default: {
      const big = s.signed
        ? le
          ? b.readBigInt64LE(off)
          : b.readBigInt64BE(off)
        : le
          ? b.readBigUInt64LE(off)
          : b.readBigUInt64BE(off);
      n = narrow(big);
    }
  }
  if (n < s.min || n > s.max) {
    const most = s.native ? '' : ` (at most ${s.signed ? '±' : ''}${pictureMax(s.digits, s.scale)})`;
    throw new RecordDecodeError(off, field, `binary value ${n} is outside the range of PIC ${s.picture}${most}`);
  }
  return scaledToJson(n, s.scale, s.asString);
}

/** The Buffer method that reads a 1-, 2- or 4-byte field as its spec says; null for 8 bytes. */
export function binaryReader(s: BinarySpec): string | null {
  if (s.length === 8 || s.asString) return null;
  const bits = s.length * 8;
  return `read${s.signed ? 'Int' : 'UInt'}${bits}${bits === 8 ? '' : s.littleEndian ? 'LE' : 'BE'}`;
}

/**
 * getBinary for a field the generated decoder read itself with `binaryReader`'s method, its range and
 * scale as literals; a value outside the range goes to `getBinary`, which names it.
 */
export function binaryValue(
  n: number,
  off: number,
  min: number,
  max: number,
  divisor: number,
  b: Buffer,
  s: BinarySpec,
  field: string,
): number {
  if (n < min || n > max) return getBinary(b, off, s, field) as number;
  return n / divisor;
}

/** Range of a binary field: the picture's for COMP, the storage size's for COMP-5. */
export function binaryRange(
  native: boolean,
  signed: boolean,
  length: number,
  digits: number,
): { min: number | bigint; max: number | bigint } {
  if (native) {
    const bits = BigInt(length * 8);
    const max = signed ? (1n << (bits - 1n)) - 1n : (1n << bits) - 1n;
    const min = signed ? -(1n << (bits - 1n)) : 0n;
    return { min: narrow(min), max: narrow(max) };
  }
  const limit = digits <= 15 ? POW10[digits]! - 1 : BIG_POW10[digits]! - 1n;
  const negLimit = typeof limit === 'number' ? -limit : -limit;
  return { min: signed ? negLimit : 0, max: limit };
}

/** A bigint as a number when a double holds it exactly. */
function narrow(n: bigint): number | bigint {
  return n >= -9007199254740991n && n <= 9007199254740991n ? Number(n) : n;
}
