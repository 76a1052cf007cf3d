/** Alphanumeric and alphabetic items (PIC X, PIC A): characters through a code page, padded with spaces. */
import { UNMAPPED, type CharTable } from '../charsets.ts';
import { RecordDecodeError, RecordEncodeError } from '../errors.ts';
import { typeName } from '../decimal.ts';
import { hex } from './numeric.ts';

export interface TextSpec {
  length: number;
  table: CharTable;
  justifiedRight: boolean;
  alphabetic: boolean;
}

const ALPHABETIC = /^[A-Za-z ]*$/;

/** The error for the character at `position` of `v` that code page `table` has no byte for; names it whole. */
export function unmappedCharacter(path: string, v: string, position: number, table: CharTable): RecordEncodeError {
  const character = String.fromCodePoint(v.codePointAt(position)!);
  return new RecordEncodeError(path, `character "${character}" at position ${position} is not in ${table.name}`, {
    kind: 'character',
    character,
    position,
    charset: table.name,
  });
}

export function putText(buf: Buffer, off: number, s: TextSpec, v: unknown, path: string): void {
  const start = putTextOnSpaces(buf, off, s, v, path);
  const n = (v as string).length;
  // a loop beats Buffer#fill for the short paddings of typical fields
  const space = s.table.space;
  if (s.justifiedRight) for (let i = off; i < start; i++) buf[i] = space;
  else for (let i = off + n, end = off + s.length; i < end; i++) buf[i] = space;
}

/**
 * Checks `v` and writes its characters, not its padding: for a field whose bytes already hold spaces (the
 * record template's, copied at the start of an encode), as most of a header's bytes are padding.
 * Returns where the characters start.
 */
export function putTextOnSpaces(buf: Buffer, off: number, s: TextSpec, v: unknown, path: string): number {
  if (typeof v !== 'string') throw new RecordEncodeError(path, `expected a string, got ${typeName(v)}`);
  const n = v.length;
  if (n > s.length) {
    const reason = `string of ${n} characters is longer than the ${s.length} the field holds`;
    throw new RecordEncodeError(path, reason, { kind: 'length', max: s.length });
  }
  if (s.alphabetic && !ALPHABETIC.test(v)) {
    throw new RecordEncodeError(path, 'an alphabetic (PIC A) field holds only letters and spaces');
  }
  const enc = s.table.encode;
  const start = s.justifiedRight ? off + s.length - n : off;
  for (let i = 0; i < n; i++) {
    const b = enc[v.charCodeAt(i)]!;
    if (b < 0) throw unmappedCharacter(path, v, i, s.table);
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

/**
 * Up to this many characters a string is made in JavaScript, by String.fromCharCode over an array of char
 * codes, rather than by Buffer#toString: its call into C++ costs about as much as copying ~30 characters.
 */
const SHORT_TEXT = 24;
/** A reused array of char codes for each length up to SHORT_TEXT, as fromCharCode.apply takes a whole array. */
const CHAR_CODES: number[][] = Array.from({ length: SHORT_TEXT + 1 }, (_, n) => new Array<number>(n).fill(0));

/** getText for ASCII and Latin-1, left-justified. */
export function getTextLatin1(b: Buffer, off: number, length: number): string {
  let end = off + length;
  while (end > off && b[end - 1] === 0x20) end--;
  const n = end - off;
  if (n > SHORT_TEXT) return b.toString('latin1', off, end);
  const codes = CHAR_CODES[n]!;
  for (let i = 0; i < n; i++) codes[i] = b[off + i]!;
  return String.fromCharCode.apply(null, codes);
}

/** getText for a code page with bytes that decode to nothing: such a byte is a decode error, not a guess. */
export function getTextStrict(b: Buffer, off: number, s: TextSpec, field: string): string {
  const text = getText(b, off, s);
  const at = text.indexOf(UNMAPPED);
  if (at < 0) return text;
  // the text starts at the first byte kept: after leading spaces when right-justified
  let start = off;
  if (s.justifiedRight) while (b[start] === s.table.space) start++;
  const byte = b[start + at]!;
  throw new RecordDecodeError(start + at, field, `byte 0x${hex(byte)} is not a character in ${s.table.name}`);
}

/** Where EBCDIC bytes are translated before one string is made of them (fields are decoded one at a time). */
let scratch = Buffer.allocUnsafe(256);

/**
 * The bytes of a code page whose characters are all in Latin-1, translated to Latin-1 (cp037 and most
 * EBCDIC pages); null for a page with characters beyond (cp1140's euro sign).
 */
export function latin1Translation(table: CharTable): Uint8Array | null {
  const map = new Uint8Array(256);
  for (let byte = 0; byte < 256; byte++) {
    const code = table.decode[byte]!.charCodeAt(0);
    if (code > 0xff) return null;
    map[byte] = code;
  }
  return map;
}

/** The code point of each byte of a code page, for `getTextWide`. */
export function unicodeTranslation(table: CharTable): Uint16Array {
  return Uint16Array.from(table.decode, (ch) => ch.charCodeAt(0));
}

/** getText for a left-justified field of a single-byte page whose characters are in Latin-1: one table pass. */
export function getTextLatin1Mapped(b: Buffer, off: number, length: number, space: number, map: Uint8Array): string {
  let end = off + length;
  while (end > off && b[end - 1] === space) end--;
  const n = end - off;
  if (n <= SHORT_TEXT) {
    const codes = CHAR_CODES[n]!;
    for (let i = 0; i < n; i++) codes[i] = map[b[off + i]!]!;
    return String.fromCharCode.apply(null, codes);
  }
  if (n > scratch.length) scratch = Buffer.allocUnsafe(Math.max(n, scratch.length * 2));
  for (let i = 0; i < n; i++) scratch[i] = map[b[off + i]!]!;
  return scratch.toString('latin1', 0, n);
}

/** getText for a left-justified field of any single-byte page: UTF-16LE code units, then one string. */
export function getTextWide(b: Buffer, off: number, length: number, space: number, map: Uint16Array): string {
  let end = off + length;
  while (end > off && b[end - 1] === space) end--;
  const n = end - off;
  if (n <= SHORT_TEXT) {
    const codes = CHAR_CODES[n]!;
    for (let i = 0; i < n; i++) codes[i] = map[b[off + i]!]!;
    return String.fromCharCode.apply(null, codes);
  }
  if (2 * n > scratch.length) scratch = Buffer.allocUnsafe(Math.max(2 * n, scratch.length * 2));
  for (let i = 0; i < n; i++) {
    const code = map[b[off + i]!]!;
    scratch[2 * i] = code & 0xff;
    scratch[2 * i + 1] = code >> 8;
  }
  return scratch.toString('utf16le', 0, 2 * n);
}
