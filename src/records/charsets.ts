/** Single-byte character sets as lookup tables both ways, built once from their code pages. */
import { ASCII_LIMIT, LATIN1_TO_UNICODE } from './codepages/ascii.ts';
import { CP037_TO_UNICODE, CP1140_TO_UNICODE } from './codepages/ebcdic.ts';
import type { Charset } from './types.ts';

/** A single-byte character set: byte → one-character string, and code point → byte (-1 when unmappable). */
export interface CharTable {
  readonly name: Charset;
  readonly ebcdic: boolean;
  /** byte → string of one character */
  readonly decode: readonly string[];
  /** code point (0…0xFFFF) → byte, -1 when the charset has no such character */
  readonly encode: Int16Array;
  readonly space: number;
  readonly zero: number;
  readonly plus: number;
  readonly minus: number;
}

function buildTable(name: Charset, toUnicode: readonly number[], ebcdic: boolean, limit = 256): CharTable {
  const decode: string[] = [];
  const encode = new Int16Array(0x10000).fill(-1);
  for (let byte = 0; byte < 256; byte++) {
    const cp = toUnicode[byte] ?? byte;
    decode.push(String.fromCharCode(cp));
    if (byte < limit) encode[cp] = byte;
  }
  const at = (ch: string) => encode[ch.charCodeAt(0)] ?? -1;
  return { name, ebcdic, decode, encode, space: at(' '), zero: at('0'), plus: at('+'), minus: at('-') };
}

const TABLES: Record<Charset, CharTable> = {
  ascii: buildTable('ascii', LATIN1_TO_UNICODE, false, ASCII_LIMIT),
  latin1: buildTable('latin1', LATIN1_TO_UNICODE, false),
  cp037: buildTable('cp037', CP037_TO_UNICODE, true),
  cp1140: buildTable('cp1140', CP1140_TO_UNICODE, true),
};

export function charTable(charset: Charset): CharTable {
  const table = TABLES[charset];
  if (table === undefined) {
    throw new TypeError(`unknown encoding "${String(charset)}" (expected ascii, latin1, cp037 or cp1140)`);
  }
  return table;
}

/** The byte the EBCDIC byte `ebcdicByte` stands for in `table` (identity for EBCDIC tables). */
export function fromEbcdic(table: CharTable, ebcdicByte: number): number {
  if (table.ebcdic) return ebcdicByte;
  const cp = CP037_TO_UNICODE[ebcdicByte] ?? 0;
  return table.encode[cp] ?? -1;
}
