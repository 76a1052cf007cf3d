/**
 * Encoders and decoders of elementary items. The generated record codecs call these with a spec
 * object built once per field at compile time.
 */
import type { CharTable } from './charsets.ts';
import { RecordDecodeError, RecordEncodeError, type EncodeLimit } from './errors.ts';
import { BIG_POW10, fitsDigits, pictureMax, POW10, scaledInteger, scaledToJson, typeName } from './decimal.ts';

export interface TextSpec {
  length: number;
  table: CharTable;
  justifiedRight: boolean;
  alphabetic: boolean;
}

export interface NumberSpec {
  digits: number;
  scale: number;
  signed: boolean;
  /** Decode to a decimal string (more than 15 digits) instead of a number. */
  asString: boolean;
  /** Picture text for messages. */
  picture: string;
}

export interface ZonedSpec extends NumberSpec {
  length: number;
  leading: boolean;
  separate: boolean;
  blankWhenZero: boolean;
  table: CharTable;
  /** byte of digit d for unsigned/positive (non-sign) positions */
  digit: Uint8Array;
  /** overpunched sign byte of digit d, positive and negative */
  pos: Uint8Array;
  neg: Uint8Array;
  /** byte → digit (0–9) for plain digit bytes, -1 otherwise */
  digitOf: Int8Array;
  /** overpunched byte → digit + 10 × (negative ? 1 : 0) + 100 when valid, -1 otherwise */
  punchOf: Int16Array;
}

export interface PackedSpec extends NumberSpec {
  length: number;
}

export interface BinarySpec extends NumberSpec {
  length: 1 | 2 | 4 | 8;
  littleEndian: boolean;
  /** COMP-5: the whole size's range; COMP: the picture's. */
  native: boolean;
  min: number | bigint;
  max: number | bigint;
}

// ── alphanumeric ─────────────────────────────────────────────────────────────

const ALPHABETIC = /^[A-Za-z ]*$/;

export function putText(buf: Buffer, off: number, s: TextSpec, v: unknown, path: string): void {
  const start = putTextOnSpaces(buf, off, s, v, path);
  const n = (v as string).length;
  // a loop beats Buffer#fill for the short paddings of typical fields
  const space = s.table.space;
  if (s.justifiedRight) for (let i = off; i < start; i++) buf[i] = space;
  else for (let i = off + n, end = off + s.length; i < end; i++) buf[i] = space;
}

/**
 * Checks `v` and writes its characters where the field puts them, not its padding: alone, for a field whose
 * bytes already hold spaces (the record template's, copied at the start of an encode). Most of a header's
 * bytes are padding: CBHDR is 495 bytes, and a call's values fill about 70 of them. Returns where the
 * characters start.
 */
export function putTextOnSpaces(buf: Buffer, off: number, s: TextSpec, v: unknown, path: string): number {
  if (typeof v !== 'string') throw new RecordEncodeError(path, `expected a string, got ${typeName(v)}`);
  const n = v.length;
  if (n > s.length) throw new RecordEncodeError(path, `string of ${n} characters is longer than the ${s.length} the field holds`, { kind: 'length', max: s.length });
  if (s.alphabetic && !ALPHABETIC.test(v)) throw new RecordEncodeError(path, 'an alphabetic (PIC A) field holds only letters and spaces');
  const enc = s.table.encode;
  const start = s.justifiedRight ? off + s.length - n : off;
  for (let i = 0; i < n; i++) {
    const b = enc[v.charCodeAt(i)]!;
    if (b < 0) {
      throw new RecordEncodeError(path, `character "${v[i]}" at position ${i} is not in ${s.table.name}`, {
        kind: 'character', character: String.fromCodePoint(v.codePointAt(i)!), position: i, charset: s.table.name,
      });
    }
    buf[start + i] = b;
  }
  return start;
}

export function getText(b: Buffer, off: number, s: TextSpec): string {
  const space = s.table.space;
  let start = off;
  let end = off + s.length;
  if (s.justifiedRight) while (start < end && b[start] === space) start++;
  else while (end > start && b[end - 1] === space) end--;
  if (!s.table.ebcdic) return b.toString('latin1', start, end);
  const dec = s.table.decode;
  let out = '';
  for (let i = start; i < end; i++) out += dec[b[i]!];
  return out;
}

/** getText for ASCII and Latin-1, left-justified. */
export function getTextLatin1(b: Buffer, off: number, length: number): string {
  let end = off + length;
  while (end > off && b[end - 1] === 0x20) end--;
  return b.toString('latin1', off, end);
}

// ── shared numeric checks ────────────────────────────────────────────────────

function checkedScaled(s: NumberSpec, v: unknown, path: string): number | bigint {
  const n = scaledInteger(v, s.scale, path);
  const range = (): EncodeLimit => ({ kind: 'range', min: s.signed ? `-${pictureMax(s.digits, s.scale)}` : '0', max: pictureMax(s.digits, s.scale) });
  if (!s.signed && n < 0) throw new RecordEncodeError(path, `negative value ${String(v)} into an unsigned field (PIC ${s.picture})`, range());
  if (!fitsDigits(n, s.digits)) {
    throw new RecordEncodeError(path, `${String(v)} has too many digits for PIC ${s.picture} (at most ${s.signed ? '±' : ''}${pictureMax(s.digits, s.scale)})`, range());
  }
  return n;
}

/** Writes |n| as `count` digits ending before `end`, using `digit` bytes; returns the last digit. */
function writeDigits(buf: Buffer, end: number, count: number, n: number | bigint, digit: Uint8Array): void {
  if (typeof n === 'number') {
    let m = Math.abs(n);
    for (let i = end - 1; i >= end - count; i--) {
      const d = m % 10;
      buf[i] = digit[d]!;
      m = (m - d) / 10;
    }
  } else {
    const text = (n < 0n ? -n : n).toString().padStart(count, '0');
    for (let i = 0; i < count; i++) buf[end - count + i] = digit[text.charCodeAt(i) - 48]!;
  }
}

// ── zoned decimal (USAGE DISPLAY) ────────────────────────────────────────────

export function putZoned(buf: Buffer, off: number, s: ZonedSpec, v: unknown, path: string): void {
  const n = checkedScaled(s, v, path);
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
    for (let i = off; i < off + s.length; i++) if (b[i] !== s.table.space) { blank = false; break; }
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
    else if (sign !== s.table.plus) throw new RecordDecodeError(signAt, field, `invalid sign character 0x${hex(sign)} (expected + or -)`);
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
      if (p < 0) throw new RecordDecodeError(i, field, i === punchAt ? `invalid signed digit 0x${hex(b[i])}` : `invalid digit 0x${hex(b[i])} in a zoned decimal`);
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
    if (p < 0) throw new RecordDecodeError(last, field, `invalid ${s.signed ? 'signed digit' : 'digit'} 0x${hex(b[last])}${s.signed ? '' : ' in a zoned decimal'}`);
    d = p % 10;
    num = num * 10 + d;
    if (p >= 110 && num !== 0) num = -num;
  } else {
    num = num * 10 + d;
  }
  return s.scale === 0 ? num : num / POW10[s.scale]!;
}

// ── packed decimal (COMP-3) ──────────────────────────────────────────────────

export function putPacked(buf: Buffer, off: number, s: PackedSpec, v: unknown, path: string): void {
  const n = checkedScaled(s, v, path);
  const sign = !s.signed ? 0x0f : n < 0 ? 0x0d : 0x0c;
  const last = off + s.length - 1;
  if (typeof n === 'number') {
    let m = Math.abs(n);
    let d = m % 10;
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
  if (signNibble < 0x0a) throw new RecordDecodeError(last, field, `invalid sign nibble ${signNibble.toString(16)} in packed decimal`);
  const negative = signNibble === 0x0d || signNibble === 0x0b;
  if (negative && !s.signed) throw new RecordDecodeError(last, field, `negative sign nibble ${signNibble.toString(16)} in an unsigned field (PIC ${s.picture})`);
  // an even digit count leaves the first nibble unused: it must be zero
  const spare = b[off]! >> 4;
  if (s.digits % 2 === 0 && spare !== 0) {
    throw new RecordDecodeError(off, field, spare > 9 ? `invalid digit nibble ${spare.toString(16)} in packed decimal` : `digit beyond PIC ${s.picture} in packed decimal`);
  }
  return negative;
}

function packedDigit(nibble: number, at: number, field: string): number {
  if (nibble > 9) throw new RecordDecodeError(at, field, `invalid digit nibble ${nibble.toString(16)} in packed decimal`);
  return nibble;
}

/** Packed decimal: a JSON number for at most 15 digits, a decimal string beyond. */
export function getPacked(b: Buffer, off: number, s: PackedSpec, field: string): number | string {
  if (!s.asString) return getPackedNumber(b, off, s, field);
  const last = off + s.length - 1;
  const negative = packedNegative(b, off, last, s, field);
  let text = '';
  for (let i = off; i < last; i++) text += `${packedDigit(b[i]! >> 4, i, field)}${packedDigit(b[i]! & 0x0f, i, field)}`;
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

// ── binary (COMP, COMP-4, BINARY, COMP-5) ────────────────────────────────────

export function putBinary(buf: Buffer, off: number, s: BinarySpec, v: unknown, path: string): void {
  let n: number | bigint;
  if (s.native) {
    n = scaledInteger(v, s.scale, path);
    if (n < s.min || n > s.max) throw new RecordEncodeError(path, `${String(v)} is outside the range of a ${s.length}-byte ${s.signed ? 'signed' : 'unsigned'} binary field`);
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
      const big = s.signed ? (le ? b.readBigInt64LE(off) : b.readBigInt64BE(off)) : le ? b.readBigUInt64LE(off) : b.readBigUInt64BE(off);
      n = big >= -9007199254740991n && big <= 9007199254740991n ? Number(big) : big;
    }
  }
  if (n < s.min || n > s.max) {
    throw new RecordDecodeError(off, field, `binary value ${n} is outside the range of PIC ${s.picture}${s.native ? '' : ` (at most ${s.signed ? '±' : ''}${pictureMax(s.digits, s.scale)})`}`);
  }
  return scaledToJson(n, s.scale, s.asString);
}

/** Range of a binary field: the picture's for COMP, the storage size's for COMP-5. */
export function binaryRange(native: boolean, signed: boolean, length: number, digits: number): { min: number | bigint; max: number | bigint } {
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

function narrow(n: bigint): number | bigint {
  return n >= -9007199254740991n && n <= 9007199254740991n ? Number(n) : n;
}

function hex(byte: number | undefined): string {
  return (byte ?? 0).toString(16).padStart(2, '0');
}
