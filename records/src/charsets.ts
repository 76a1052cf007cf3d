/**
 * Character sets as lookup tables both ways: ASCII and Latin-1, and the EBCDIC code pages generated from glibc's
 * iconv (codepages/ebcdic/). A table is built at its first use, so the dozens of code pages cost nothing until then.
 */
import { ASCII_LIMIT, LATIN1_TO_UNICODE } from './codepages/ascii.ts';
import { EBCDIC_CHARSETS, EBCDIC_PAGES, type EbcdicCharset } from './codepages/ebcdic/index.ts';
import type { CodePageSource } from './codepages/source.ts';
import type { Charset } from './types.ts';

/** What a code page's generated table holds where its byte decodes to nothing. */
export const UNMAPPED = '\uffff';

/** A single-byte character set: byte → one-character string, and code point → byte (-1 when unmappable). */
export interface CharTable {
  readonly name: Charset;
  readonly ebcdic: boolean;
  /** byte → string of one character; UNMAPPED where the code page has no character for the byte */
  readonly decode: readonly string[];
  /** code point (0…0xFFFF) → byte, -1 when the charset has no such character */
  readonly encode: Int16Array;
  /** Whether some byte decodes to nothing (decode then checks every byte). */
  readonly holes: boolean;
  /** The double-byte characters of a mixed code page, between shift-out 0x0E and shift-in 0x0F. */
  readonly dbcs: DbcsTable | undefined;
  readonly space: number;
  readonly zero: number;
  readonly plus: number;
  readonly minus: number;
}

/** Double-byte characters by code (lead byte × 256 + trail byte). */
export interface DbcsTable {
  /** code → character (one or two UTF-16 units), undefined for a code the code page does not assign */
  readonly decode: readonly (string | undefined)[];
  /** character → code; a character both halves hold is written single-byte, as iconv writes it */
  readonly encode: ReadonlyMap<string, number>;
  /** character → code for every double-byte character, for PIC G items, which hold no single bytes */
  readonly pure: ReadonlyMap<string, number>;
  /** Whether some character is two UTF-16 units that are not one code point (a letter and a combining mark). */
  readonly sequences: boolean;
}

export const SHIFT_OUT = 0x0e;
export const SHIFT_IN = 0x0f;
/** The double-byte space (IDEOGRAPHIC SPACE in every mixed code page), the filler of PIC G items. */
export const DBCS_SPACE = 0x4040;

export const CHARSETS: readonly Charset[] = ['ascii', 'latin1', ...EBCDIC_CHARSETS];

function buildTable(name: Charset, toUnicode: readonly number[], ebcdic: boolean, limit = 256): CharTable {
  const decode: string[] = [];
  const encode = new Int16Array(0x10000).fill(-1);
  for (let byte = 0; byte < 256; byte++) {
    const cp = toUnicode[byte] ?? byte;
    decode.push(String.fromCharCode(cp));
    if (byte < limit && encode[cp] === -1 && cp !== 0xffff) encode[cp] = byte;
  }
  return finish(name, ebcdic, decode, encode, undefined);
}

function finish(
  name: Charset,
  ebcdic: boolean,
  decode: string[],
  encode: Int16Array,
  dbcs: DbcsTable | undefined,
): CharTable {
  const at = (ch: string) => encode[ch.charCodeAt(0)] ?? -1;
  const holes = decode.includes(UNMAPPED);
  return { name, ebcdic, decode, encode, holes, dbcs, space: at(' '), zero: at('0'), plus: at('+'), minus: at('-') };
}

function ebcdicTable(name: EbcdicCharset, page: CodePageSource): CharTable {
  const units = Array.from({ length: 256 }, (_, byte) => page.sbcs.charCodeAt(byte));
  const table = buildTable(name, units, true);
  // where several bytes decode to one character, encode writes the byte iconv writes
  for (let i = 0; i < page.sbcsEncode.length; i += 2) table.encode[page.sbcsEncode[i]!] = page.sbcsEncode[i + 1]!;
  if (!page.dbcs) return table;
  return finish(name, true, table.decode as string[], table.encode, dbcsTable(page.dbcs, table.encode));
}

function dbcsTable(source: NonNullable<CodePageSource['dbcs']>, sbcs: Int16Array): DbcsTable {
  const decode = new Array<string | undefined>(0x10000);
  const encode = new Map<string, number>();
  const pure = new Map<string, number>();
  const wide = new Set(source.wide);
  let sequences = false;
  let at = 0;
  for (let r = 0; r < source.runs.length; r += 2) {
    for (let code = source.runs[r]!, end = code + source.runs[r + 1]!; code < end; code++) {
      const ch = source.chars.slice(at, (at += wide.has(code) ? 2 : 1));
      decode[code] = ch;
      if (ch.length === 2 && ch.codePointAt(0)! < 0x10000) sequences = true;
      if (!encode.has(ch) && !(ch.length === 1 && sbcs[ch.charCodeAt(0)]! >= 0)) encode.set(ch, code);
      if (!pure.has(ch)) pure.set(ch, code);
    }
  }
  for (let i = 0; i < source.encode.length; i += 2) {
    encode.set(source.encode[i] as string, source.encode[i + 1] as number);
    pure.set(source.encode[i] as string, source.encode[i + 1] as number);
  }
  return { decode, encode, pure, sequences };
}

const TABLES = new Map<Charset, CharTable>();

/** The charset a name gives: `cp273`, and IBM's spellings of it (`IBM273`, `IBM-273`, `cp37` for cp037). */
export function charsetNamed(name: string): Charset | undefined {
  const lower = name.toLowerCase();
  if (isCharset(lower)) return lower;
  const ibm = /^(?:cp|ibm-?)0*(\d+)$/.exec(lower);
  const cp = ibm ? `cp${ibm[1]!.padStart(3, '0')}` : '';
  return isCharset(cp) ? cp : undefined;
}

/** Whether `name` is a charset this codec knows. */
export function isCharset(name: unknown): name is Charset {
  return typeof name === 'string' && (CHARSETS as readonly string[]).includes(name);
}

export function charTable(charset: Charset): CharTable {
  const cached = TABLES.get(charset);
  if (cached) return cached;
  let table: CharTable;
  if (charset === 'ascii') table = buildTable('ascii', LATIN1_TO_UNICODE, false, ASCII_LIMIT);
  else if (charset === 'latin1') table = buildTable('latin1', LATIN1_TO_UNICODE, false);
  else if (isCharset(charset)) table = ebcdicTable(charset, EBCDIC_PAGES[charset]);
  else
    throw new TypeError(
      `unknown encoding "${String(charset)}" (expected ascii, latin1 or cpNNN: ${CHARSETS.join(', ')})`,
    );
  TABLES.set(charset, table);
  return table;
}

/** The byte the EBCDIC byte `ebcdicByte` stands for in `table` (identity for EBCDIC tables). */
export function fromEbcdic(table: CharTable, ebcdicByte: number): number {
  if (table.ebcdic) return ebcdicByte;
  const cp = EBCDIC_PAGES.cp037.sbcs.charCodeAt(ebcdicByte);
  return table.encode[cp] ?? -1;
}

/**
 * Why numeric DISPLAY items cannot use `table`, or null when they can: zoned decimal needs the digits 0–9 at
 * F0–F9 in an EBCDIC code page (its sign zones C and D are bytes, whatever characters they show) and + and -.
 */
export function zonedUnsupported(table: CharTable): string | null {
  for (let d = 0; d < 10; d++) {
    const byte = table.encode[48 + d]!;
    if (byte < 0 || (table.ebcdic && byte !== 0xf0 + d)) {
      return `code page ${table.name} has no digit ${d} at ${table.ebcdic ? `0x${(0xf0 + d).toString(16)}` : 'its place'}`;
    }
  }
  if (table.plus < 0 || table.minus < 0) return `code page ${table.name} has no + or - sign`;
  return null;
}
