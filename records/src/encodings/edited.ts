/**
 * Edited items. Numeric-edited: encode writes what a COBOL MOVE of the value writes (zero suppression, check
 * protection, insertion, floating insertion, signs, BLANK WHEN ZERO); decode de-edits, and refuses bytes that
 * editing the value it reads would not give. Alphanumeric-edited: the characters around the insertions.
 */
import type { CharTable } from '../charsets.ts';
import { RecordDecodeError, RecordEncodeError } from '../errors.ts';
import { typeName } from '../decimal.ts';
import type { EditedPicture } from '../edited-picture.ts';
import { hex, type NumberSpec } from './numeric.ts';
import { mantissaToJson, scaledMantissa } from './scaled.ts';
import { unmappedCharacter } from './text.ts';

export interface EditedSpec extends NumberSpec {
  length: number;
  edit: EditedPicture;
  blankWhenZero: boolean;
  table: CharTable;
}

/** The characters editing writes for the digits `digits` (one per digit position) and a sign. */
export function editedText(e: EditedPicture, digits: string, negative: boolean, blankWhenZero: boolean): string {
  const positions = e.positions;
  const zero = !/[1-9]/.test(digits);
  if (zero && (blankWhenZero || (e.allSuppressed && e.pad === ' '))) return ' '.repeat(positions.length);
  if (zero && e.allSuppressed) return positions.map((p) => (p.role === 'point' ? p.char : '*')).join('');
  const out = new Array<string>(positions.length);
  // the first position that suppression stops at: a nonzero digit, a 9, or the decimal point
  let stop = -1;
  let d = 0;
  for (let i = 0; i < positions.length; i++) {
    const p = positions[i]!;
    if (p.role === 'digit') {
      const c = digits[d++]!;
      out[i] = c;
      if (stop < 0 && (p.suppress === '9' || c !== '0')) stop = i;
    } else if (p.role === 'point' && stop < 0) stop = i;
  }
  for (let i = 0; i < positions.length; i++) {
    const p = positions[i]!;
    switch (p.role) {
      case 'digit':
        if (i < stop && p.suppress !== '9') out[i] = p.suppress === '*' ? '*' : ' ';
        break;
      case 'head':
        out[i] = ' ';
        break;
      case 'insert':
        out[i] = i < stop && e.suppressFrom >= 0 && i > e.suppressFrom ? e.pad : p.char;
        break;
      case 'point':
      case 'currency':
        out[i] = p.char;
        break;
      case 'sign':
        out[i] = negative ? '-' : p.symbol === '+' ? '+' : ' ';
        break;
      case 'credit':
        out[i] = negative ? p.char : ' ';
        break;
      case 'data':
        throw new TypeError('a data position in a numeric-edited picture');
    }
  }
  if (e.floating) out[stop - 1] = negative ? e.floating.negative : e.floating.positive;
  return out.join('');
}

function writeChars(buf: Buffer, off: number, s: EditedSpec, text: string, path: string): void {
  const enc = s.table.encode;
  for (let i = 0; i < text.length; i++) {
    const b = enc[text.charCodeAt(i)]!;
    if (b < 0) throw new RecordEncodeError(path, `character "${text[i]}" is not in ${s.table.name}`);
    buf[off + i] = b;
  }
}

export function putEdited(buf: Buffer, off: number, s: EditedSpec, v: unknown, path: string): void {
  if (s.edit.type === 'alphanumeric') return putAlphanumericEdited(buf, off, s, v, path);
  const m = scaledMantissa(s, v, path);
  const negative = m < 0;
  const digits = (typeof m === 'bigint' ? (negative ? -m : m) : Math.abs(m)).toString().padStart(s.digits, '0');
  writeChars(buf, off, s, editedText(s.edit, digits, negative, s.blankWhenZero), path);
}

export function getEdited(b: Buffer, off: number, s: EditedSpec, field: string): number | string {
  if (s.edit.type === 'alphanumeric') return getAlphanumericEdited(b, off, s, field);
  const positions = s.edit.positions;
  const dec = s.table.decode;
  let digits = '';
  let negative = false;
  let blank = true;
  for (let i = 0; i < positions.length; i++) {
    const p = positions[i]!;
    const c = dec[b[off + i]!]!;
    if (c !== ' ') blank = false;
    if (p.role === 'digit') digits += c >= '0' && c <= '9' ? c : '0';
    // a floating sign may stand where an insertion character was: any minus means negative, re-editing checks where
    if (c === '-' && p.role !== 'point' && p.role !== 'currency') negative = true;
    if (p.role === 'credit' && c === p.char) negative = true;
  }
  const zero = !/[1-9]/.test(digits);
  if (blank && zero && (s.blankWhenZero || (s.edit.allSuppressed && s.edit.pad === ' '))) {
    return s.asString ? '0' : 0;
  }
  // the bytes must be exactly what editing the value read gives
  const expected = editedText(s.edit, digits, negative && !zero, s.blankWhenZero);
  for (let i = 0; i < positions.length; i++) {
    if (s.table.encode[expected.charCodeAt(i)] !== b[off + i]) {
      const reason = `byte 0x${hex(b[off + i])} at position ${i + 1} of the numeric-edited PIC ${s.picture} is not what editing a number writes there (expected "${expected[i]}" in "${expected}")`;
      throw new RecordDecodeError(off + i, field, reason);
    }
  }
  const m = digits.length <= 15 ? Number(digits) : BigInt(digits);
  const signed = negative && !zero ? (typeof m === 'bigint' ? -m : -m) : m;
  return mantissaToJson(signed, s.scale, s.asString);
}

function putAlphanumericEdited(buf: Buffer, off: number, s: EditedSpec, v: unknown, path: string): void {
  if (typeof v !== 'string') throw new RecordEncodeError(path, `expected a string, got ${typeName(v)}`);
  const { positions, dataLength } = s.edit;
  if (v.length > dataLength) {
    const reason = `string of ${v.length} characters is longer than the ${dataLength} PIC ${s.picture} holds`;
    throw new RecordEncodeError(path, reason, { kind: 'length', max: dataLength });
  }
  const enc = s.table.encode;
  let k = 0;
  for (let i = 0; i < positions.length; i++) {
    const p = positions[i]!;
    if (p.role !== 'data') {
      buf[off + i] = enc[(p as { char: string }).char.charCodeAt(0)]!;
      continue;
    }
    if (k >= v.length) {
      buf[off + i] = s.table.space;
      continue;
    }
    const byte = enc[v.charCodeAt(k)]!;
    if (byte < 0) throw unmappedCharacter(path, v, k, s.table);
    buf[off + i] = byte;
    k++;
  }
}

function getAlphanumericEdited(b: Buffer, off: number, s: EditedSpec, field: string): string {
  const positions = s.edit.positions;
  const dec = s.table.decode;
  let out = '';
  for (let i = 0; i < positions.length; i++) {
    const p = positions[i]!;
    if (p.role === 'data') {
      out += dec[b[off + i]!];
      continue;
    }
    const char = (p as { char: string }).char;
    if (b[off + i] !== s.table.encode[char.charCodeAt(0)]) {
      const reason = `byte 0x${hex(b[off + i])} where PIC ${s.picture} inserts "${char}"`;
      throw new RecordDecodeError(off + i, field, reason);
    }
  }
  return out.replace(/ +$/, '');
}
