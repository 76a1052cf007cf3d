/** The shape of a generated EBCDIC code page (`codepages/ebcdic/cpNNN.ts`), as glibc's iconv maps it. */

/** A single-byte code page, or the single-byte half of a mixed one. */
export interface CodePageSource {
  /** glibc iconv's name of the code page, e.g. `IBM273`. */
  readonly iconv: string;
  /** Byte → UTF-16 code unit, 256 units; U+FFFF where iconv maps the byte to nothing (and at the shift codes). */
  readonly sbcs: string;
  /** Code unit → byte iconv writes for it, where several bytes decode to it: unit, byte, unit, byte … */
  readonly sbcsEncode: readonly number[];
  /** The double-byte characters of a mixed code page (between shift-out 0x0E and shift-in 0x0F). */
  readonly dbcs?: DbcsSource;
}

/** Double-byte characters, keyed by their code `lead × 256 + trail`. */
export interface DbcsSource {
  /** Runs of valid codes in ascending order: first code, count, first code, count … */
  readonly runs: readonly number[];
  /** The characters of those codes in the same order, one UTF-16 unit each except the codes in `wide`. */
  readonly chars: string;
  /** Codes whose character is two UTF-16 units (outside the BMP, or a base letter and its combining mark). */
  readonly wide: readonly number[];
  /** Character → code iconv writes for it, where several codes decode to it: character, code, … */
  readonly encode: readonly (string | number)[];
}
