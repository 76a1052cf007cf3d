/**
 * National items (PIC N, USAGE NATIONAL): UTF-16BE, two bytes a character, padded with the national space
 * NX'0020'. A character is a UTF-16 code unit, as in COBOL: a character beyond U+FFFF takes two.
 */
import { RecordDecodeError, RecordEncodeError } from '../errors.ts';
import { scaledToJson, typeName } from '../decimal.ts';
import type { Literal } from '../parser.ts';
import type { PictureInfo } from '../picture.ts';
import type { SignSpec, Usage } from '../types.ts';
import { checkedScaled, type NumberSpec } from './numeric.ts';

export interface NationalSpec {
  /** Characters (UTF-16 code units); the item has twice as many bytes. */
  length: number;
  justifiedRight: boolean;
}

const NATIONAL_SPACE = 0x0020;

/** Index of the first unpaired surrogate of `s`, or -1. */
function loneSurrogate(s: string): number {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = s.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
      else return i;
    } else if (c >= 0xdc00 && c <= 0xdfff) return i;
  }
  return -1;
}

export function putNational(buf: Buffer, off: number, s: NationalSpec, v: unknown, path: string): void {
  if (typeof v !== 'string') throw new RecordEncodeError(path, `expected a string, got ${typeName(v)}`);
  const n = v.length;
  if (n > s.length) {
    const reason = `string of ${n} UTF-16 code units is longer than the ${s.length} national characters the field holds`;
    throw new RecordEncodeError(path, reason, { kind: 'length', max: s.length });
  }
  const lone = loneSurrogate(v);
  if (lone >= 0) throw new RecordEncodeError(path, `unpaired surrogate at position ${lone}: not UTF-16 text`);
  const pad = s.length - n;
  let at = off;
  if (s.justifiedRight) for (let i = 0; i < pad; i++, at += 2) buf.writeUInt16BE(NATIONAL_SPACE, at);
  for (let i = 0; i < n; i++, at += 2) buf.writeUInt16BE(v.charCodeAt(i), at);
  if (!s.justifiedRight) for (let i = 0; i < pad; i++, at += 2) buf.writeUInt16BE(NATIONAL_SPACE, at);
}

export function getNational(b: Buffer, off: number, s: NationalSpec, field: string): string {
  let start = off;
  let end = off + s.length * 2;
  if (s.justifiedRight) while (start < end && b[start] === 0 && b[start + 1] === NATIONAL_SPACE) start += 2;
  else while (end > start && b[end - 2] === 0 && b[end - 1] === NATIONAL_SPACE) end -= 2;
  let out = '';
  for (let i = start; i < end; i += 2) out += String.fromCharCode((b[i]! << 8) | b[i + 1]!);
  const lone = loneSurrogate(out);
  if (lone >= 0) {
    const at = start + lone * 2;
    const unit = out.charCodeAt(lone).toString(16).padStart(4, '0');
    throw new RecordDecodeError(at, field, `unpaired UTF-16 surrogate 0x${unit} in a national item`);
  }
  return out;
}

/** Why an item with a PIC N picture or USAGE NATIONAL cannot be compiled, or null when it can. */
export function nationalProblem(
  pic: PictureInfo,
  usage: Usage,
  sign: SignSpec | undefined,
): { reason: string; unsupported: boolean } | null {
  if (pic.kind === 'national') {
    if (usage !== 'national' && usage !== 'display')
      return { reason: `PIC N needs USAGE NATIONAL, not ${usage}`, unsupported: false };
    return null;
  }
  if (pic.kind === 'numeric') {
    // IBM: a signed national decimal item must have SIGN SEPARATE
    if (pic.signed && sign?.separate !== true) {
      return {
        reason: `a signed national decimal item needs SIGN SEPARATE (PIC ${pic.normalized})`,
        unsupported: false,
      };
    }
    return null;
  }
  return { reason: `USAGE NATIONAL needs PIC N, not PIC ${pic.normalized}`, unsupported: false };
}

/** The string a VALUE literal gives a national item, or why it cannot. */
export function nationalValue(lit: Literal, length: number): string | { error: string } {
  let text: string;
  if (lit.kind === 'national' || lit.kind === 'string') text = lit.text;
  else if (lit.kind === 'figurative') {
    const unit = { ZERO: 0x30, SPACE: 0x20, 'HIGH-VALUE': 0xffff, 'LOW-VALUE': 0x0000, QUOTE: 0x22 }[lit.name];
    return String.fromCharCode(unit).repeat(length);
  } else
    return {
      error: `a ${lit.kind === 'hex' ? 'hexadecimal' : 'numeric'} literal cannot initialise a national item; use N"…" or NX"…"`,
    };
  if (text.length > length) return { error: `the literal is ${text.length} characters long; the item holds ${length}` };
  return text;
}

/** National decimal (PIC 9 USAGE NATIONAL): a UTF-16 digit a position, the sign a separate NX'002B'/NX'002D'. */
export interface NationalDecimalSpec extends NumberSpec {
  leading: boolean;
}

export function putNationalDecimal(buf: Buffer, off: number, s: NationalDecimalSpec, v: unknown, path: string): void {
  const n = checkedScaled(s, v, path);
  const text = (n < 0 ? -n : n).toString().padStart(s.digits, '0');
  let at = off;
  if (s.signed && s.leading) at = putUnit(buf, at, n < 0 ? 0x2d : 0x2b);
  for (let i = 0; i < s.digits; i++) at = putUnit(buf, at, text.charCodeAt(i));
  if (s.signed && !s.leading) putUnit(buf, at, n < 0 ? 0x2d : 0x2b);
}

function putUnit(buf: Buffer, at: number, unit: number): number {
  buf[at] = unit >> 8;
  buf[at + 1] = unit & 0xff;
  return at + 2;
}

export function getNationalDecimal(b: Buffer, off: number, s: NationalDecimalSpec, field: string): number | string {
  let at = off;
  let negative = false;
  const sign = (where: number) => {
    const unit = (b[where]! << 8) | b[where + 1]!;
    if (unit !== 0x2b && unit !== 0x2d) {
      const hex4 = unit.toString(16).padStart(4, '0');
      throw new RecordDecodeError(where, field, `invalid national sign 0x${hex4} (expected NX'002B' or NX'002D')`);
    }
    return unit === 0x2d;
  };
  if (s.signed && s.leading) {
    negative = sign(at);
    at += 2;
  }
  let text = '';
  for (let i = 0; i < s.digits; i++, at += 2) {
    const hi = b[at]!;
    const lo = b[at + 1]!;
    if (hi !== 0 || lo < 0x30 || lo > 0x39) {
      const unit = ((hi << 8) | lo).toString(16).padStart(4, '0');
      throw new RecordDecodeError(at, field, `invalid national digit 0x${unit}`);
    }
    text += String.fromCharCode(lo);
  }
  if (s.signed && !s.leading) negative = sign(at);
  const n = BigInt(text);
  return scaledToJson(negative ? -n : n, s.scale, s.asString);
}
