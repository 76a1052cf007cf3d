/**
 * PIC G / USAGE DISPLAY-1: double-byte characters of a mixed code page, two bytes each, without shift codes,
 * padded with the double-byte space 0x4040.
 */
import { DBCS_SPACE, type CharTable } from '../charsets.ts';
import { typeName } from '../decimal.ts';
import { RecordDecodeError, RecordEncodeError } from '../errors.ts';
import { hex } from './numeric.ts';

export interface DbcsSpec {
  /** bytes: twice the characters */
  length: number;
  table: CharTable;
  justifiedRight: boolean;
}

/** The double-byte space as a character (IDEOGRAPHIC SPACE), trimmed from the end as spaces are from PIC X. */
const PAD = '\u3000';

export function putDbcs(buf: Buffer, off: number, s: DbcsSpec, v: unknown, path: string): void {
  if (typeof v !== 'string') throw new RecordEncodeError(path, `expected a string, got ${typeName(v)}`);
  const { pure } = s.table.dbcs!;
  const codes: number[] = [];
  for (let i = 0; i < v.length;) {
    let width = 2;
    let code = pure.get(v.slice(i, i + 2));
    if (code === undefined) {
      width = v.codePointAt(i)! > 0xffff ? 2 : 1;
      code = pure.get(v.slice(i, i + width));
    }
    if (code === undefined) {
      const character = String.fromCodePoint(v.codePointAt(i)!);
      const reason = `character "${character}" at position ${i} is not a double-byte character in ${s.table.name}`;
      throw new RecordEncodeError(path, reason, { kind: 'character', character, position: i, charset: s.table.name });
    }
    codes.push(code);
    i += width;
  }
  const max = s.length / 2;
  if (codes.length > max) {
    const reason = `string of ${codes.length} double-byte characters is longer than the ${max} the field holds`;
    throw new RecordEncodeError(path, reason, { kind: 'length', max });
  }
  const start = s.justifiedRight ? off + s.length - 2 * codes.length : off;
  for (let i = off; i < off + s.length; i += 2) buf.writeUInt16BE(DBCS_SPACE, i);
  codes.forEach((code, i) => buf.writeUInt16BE(code, start + 2 * i));
}

export function getDbcs(b: Buffer, off: number, s: DbcsSpec, field: string): string {
  const decode = s.table.dbcs!.decode;
  let out = '';
  for (let i = off; i < off + s.length; i += 2) {
    const ch = decode[(b[i]! << 8) | b[i + 1]!];
    if (ch === undefined) {
      const code = `${hex(b[i])}${hex(b[i + 1])}`;
      throw new RecordDecodeError(i, field, `double-byte code 0x${code} is not in ${s.table.name}`);
    }
    out += ch;
  }
  return s.justifiedRight ? out.replace(/^\u3000+/, '') : out.replace(new RegExp(`${PAD}+$`), '');
}
