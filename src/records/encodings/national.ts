/**
 * National items (PIC N, USAGE NATIONAL): UTF-16BE, two bytes a character, padded with the national space
 * NX'0020'. A character is a UTF-16 code unit, as in COBOL: a character beyond U+FFFF takes two.
 */
import { RecordDecodeError, RecordEncodeError } from '../errors.ts';
import { typeName } from '../decimal.ts';
import type { Literal } from '../parser.ts';
import type { PictureInfo } from '../picture.ts';
import type { Usage } from '../types.ts';

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
export function nationalProblem(pic: PictureInfo, usage: Usage): { reason: string; unsupported: boolean } | null {
  if (pic.kind === 'national') {
    if (usage !== 'national' && usage !== 'display')
      return { reason: `PIC N needs USAGE NATIONAL, not ${usage}`, unsupported: false };
    return null;
  }
  if (pic.kind === 'numeric') {
    const reason = `national decimal (PIC ${pic.normalized} USAGE NATIONAL) is not supported; use PIC N or USAGE DISPLAY`;
    return { reason, unsupported: true };
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
