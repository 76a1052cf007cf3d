/**
 * Mixed single/double-byte text (PIC X in cp930, cp939 and the other mixed EBCDIC code pages): shift-out 0x0E
 * starts double-byte characters, shift-in 0x0F returns to single bytes, and both count in the field's length.
 */
import { SHIFT_IN, SHIFT_OUT, UNMAPPED, type CharTable } from '../charsets.ts';
import { typeName } from '../decimal.ts';
import { RecordDecodeError, RecordEncodeError } from '../errors.ts';
import { hex } from './numeric.ts';
import { unmappedCharacter, type TextSpec } from './text.ts';

const ALPHABETIC = /^[A-Za-z ]*$/;

/** The bytes of `v` as IBM writes mixed data: single bytes where the code page has them, each run of
 * double-byte characters between shift-out and shift-in. */
export function mixedBytes(v: string, table: CharTable, path: string): number[] {
  const dbcs = table.dbcs!;
  const out: number[] = [];
  let shifted = false;
  for (let i = 0; i < v.length;) {
    const unit = v.charCodeAt(i);
    // a letter with its combining mark may be one double-byte character: the longer match first, as iconv reads
    let code = dbcs.sequences ? dbcs.encode.get(v.slice(i, i + 2)) : undefined;
    let width = 2;
    if (code === undefined) {
      const single = table.encode[unit]!;
      if (single >= 0) {
        if (shifted) out.push(SHIFT_IN);
        shifted = false;
        out.push(single);
        i++;
        continue;
      }
      width = unit >= 0xd800 && unit < 0xdc00 ? 2 : 1;
      code = dbcs.encode.get(v.slice(i, i + width));
    }
    if (code === undefined) throw unmappedCharacter(path, v, i, table);
    if (!shifted) out.push(SHIFT_OUT);
    shifted = true;
    out.push(code >> 8, code & 0xff);
    i += width;
  }
  if (shifted) out.push(SHIFT_IN);
  return out;
}

export function putMixed(buf: Buffer, off: number, s: TextSpec, v: unknown, path: string): void {
  if (typeof v !== 'string') throw new RecordEncodeError(path, `expected a string, got ${typeName(v)}`);
  if (s.alphabetic && !ALPHABETIC.test(v)) {
    throw new RecordEncodeError(path, 'an alphabetic (PIC A) field holds only letters and spaces');
  }
  const bytes = mixedBytes(v, s.table, path);
  if (bytes.length > s.length) {
    const reason = `string needs ${bytes.length} bytes with its shift-out/shift-in codes; the field holds ${s.length}`;
    throw new RecordEncodeError(path, reason, { kind: 'length', max: s.length });
  }
  buf.fill(s.table.space, off, off + s.length);
  buf.set(bytes, s.justifiedRight ? off + s.length - bytes.length : off);
}

export function getMixed(b: Buffer, off: number, s: TextSpec, field: string): string {
  const { decode, dbcs, name } = s.table;
  const end = off + s.length;
  let out = '';
  let shifted = false;
  for (let i = off; i < end;) {
    const byte = b[i]!;
    if (byte === SHIFT_OUT || byte === SHIFT_IN) {
      if (shifted === (byte === SHIFT_OUT)) {
        const what = byte === SHIFT_OUT ? 'shift-out 0x0e inside' : 'shift-in 0x0f outside';
        throw new RecordDecodeError(i, field, `${what} double-byte characters`);
      }
      shifted = byte === SHIFT_OUT;
      i++;
    } else if (shifted) {
      if (i + 1 >= end) throw new RecordDecodeError(i, field, 'the field ends inside a double-byte character');
      const code = (byte << 8) | b[i + 1]!;
      const ch = dbcs!.decode[code];
      if (ch === undefined) {
        throw new RecordDecodeError(i, field, `double-byte code 0x${hex(byte)}${hex(b[i + 1])} is not in ${name}`);
      }
      out += ch;
      i += 2;
    } else {
      const ch = decode[byte]!;
      if (ch === UNMAPPED) throw new RecordDecodeError(i, field, `byte 0x${hex(byte)} is not a character in ${name}`);
      out += ch;
      i++;
    }
  }
  if (shifted) throw new RecordDecodeError(end - 1, field, 'shift-out 0x0e without its shift-in before the field ends');
  return s.justifiedRight ? out.replace(/^ +/, '') : out.replace(/ +$/, '');
}
