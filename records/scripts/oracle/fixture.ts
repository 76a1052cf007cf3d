/**
 * The shape of the GnuCOBOL oracle fixtures in test/fixtures/oracle: a copybook, the codec options that
 * describe the platform GnuCOBOL was run as, and vectors whose bytes cobc produced.
 */
import type { CompileOptions } from '../../src/index.ts';

export type OracleOptions = Pick<
  CompileOptions,
  | 'format'
  | 'profile'
  | 'encoding'
  | 'zonedSign'
  | 'binarySizes'
  | 'comp5ByteOrder'
  | 'mapping'
  | 'floatFormat'
  | 'floatRounding'
  | 'pointerSize'
  | 'syncAlignment'
  | 'currencySign'
  | 'decimalPointIsComma'
>;

export interface OracleVector {
  name: string;
  /** JSON given to `encode`; its leaves are the values the COBOL program MOVEs into the record. */
  values: Record<string, unknown>;
  /** What `decode` must return when it differs from `values` (fields left out take their VALUE or default). */
  decoded?: Record<string, unknown>;
  /**
   * The record's bytes after INITIALIZE … ALL TO VALUE THEN TO DEFAULT and the MOVEs, as cobc's program dumped them.
   */
  hex: string;
  /**
   * Where the codec deliberately writes other bytes than cobc (decode still reads cobc's bytes): the codec's
   * bytes and why. The test checks both, so a change on either side shows.
   */
  codecDiffers?: CodecDifference;
}

export interface CodecDifference {
  hex: string;
  why: string;
}

export interface OracleFixture {
  name: string;
  description: string;
  /** Copybook lines (fixed format unless options.format is 'free'). */
  copybook: string[];
  /** Copybooks its COPY statements bring in: file name (`LIB/NAME.cpy` for OF LIB) → lines. */
  includes?: Record<string, string[]>;
  options: OracleOptions;
  cobc: {
    version: string;
    flags: string[];
    /** DISPLAY bytes were translated to EBCDIC by the generated program with GnuCOBOL's EBCDIC alphabet. */
    ebcdicDisplay: boolean;
    /** SPECIAL-NAMES clauses of the program (DECIMAL-POINT IS COMMA, CURRENCY SIGN). */
    specialNames?: string[];
  };
  vectors: OracleVector[];
}

/** GnuCOBOL's built-in ASCII → EBCDIC table, read from a generated program, beside IBM cp037. */
export interface EbcdicTableFixture {
  name: 'gnucobol-ebcdic-table';
  description: string;
  cobc: { version: string; flags: string[] };
  /** 256 bytes: GnuCOBOL's EBCDIC byte for each ASCII/Latin-1 byte, as lowercase hex. */
  table: string;
  /** Printable ASCII characters whose GnuCOBOL EBCDIC byte differs from cp037's. */
  differencesFromCp037: Array<{ char: string; ascii: string; gnucobol: string; cp037: string }>;
}

/** One oracle case as written in `cases*.ts`: the fixture it becomes holds cobc's bytes for each vector. */
export interface OracleCase {
  name: string;
  description: string;
  copybook: string[];
  /** Copybooks its COPY statements bring in (file name → lines), written beside the program for cobc -I. */
  includes?: Record<string, string[]>;
  options: OracleOptions;
  /** cobc flags besides -x (e.g. -fsign=EBCDIC, -fbinary-size=2-4-8). */
  flags?: string[];
  /** cp037 cases: translate the DISPLAY bytes with GnuCOBOL's EBCDIC alphabet before dumping them. */
  ebcdic?: boolean;
  /** SPECIAL-NAMES clauses of the program, e.g. `DECIMAL-POINT IS COMMA` (matching the codec options). */
  specialNames?: string[];
  vectors: Array<{
    name: string;
    values: Record<string, unknown>;
    decoded?: Record<string, unknown>;
    codecDiffers?: CodecDifference;
  }>;
}
