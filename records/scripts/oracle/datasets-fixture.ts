/**
 * The shape of the data set fixtures in test/fixtures/datasets: a copybook, the codec options of the platform
 * GnuCOBOL was run as, the framing, the records' values, and beside each `<name>.json` the file `<name>.dat`
 * that a COBOL program compiled by cobc wrote with WRITE.
 */
import type { OracleOptions } from './fixture.ts';

/**
 * GnuCOBOL's header before each record of a variable-length sequential file (runtime setting
 * COB_VARSEQ_FORMAT): 0 is a 2-byte big-endian length and 2 zero bytes, 2 a 4-byte native (here little-endian)
 * length. Either way the length counts the record's bytes only, not the 4 header bytes as IBM's RDW does.
 */
export type VarseqFormat = 0 | 2;

export interface DatasetFraming {
  recfm: 'F' | 'V';
  /** F: the record length. */
  lrecl?: number;
  /** V: byte order of the header's length. */
  rdw?: 'big' | 'little';
}

export interface DatasetFixture {
  name: string;
  description: string;
  /** Copybook lines (fixed format). */
  copybook: string[];
  options: OracleOptions;
  framing: DatasetFraming;
  /**
   * V files: what a reader of IBM RDWs must add to GnuCOBOL's header length to get the RDW's (4: GnuCOBOL
   * counts the data only). Absent for F files.
   */
  rdwAdjustment?: number;
  cobc: {
    version: string;
    flags: string[];
    /** Runtime settings the program ran with (COB_VARSEQ_FORMAT for V files). */
    env: Record<string, string>;
    /** DISPLAY bytes were translated to EBCDIC with GnuCOBOL's EBCDIC alphabet before the WRITE. */
    ebcdicDisplay: boolean;
  };
  /** The data file beside this fixture, its size and SHA-256. */
  file: { name: string; bytes: number; sha256: string };
  /** Each record's length as the program gave it to WRITE (LENGTH OF the record). */
  lengths: number[];
  /** The records, as decode returns them; the program MOVEd them and DISPLAYed each item, which agreed. */
  records: Array<Record<string, unknown>>;
  /**
   * Bytes the program MOVEd over each record after its values (`[offset, hex]`, by reference modification): what
   * the JSON cannot say, such as FILLER content or a sign nibble encode does not write. Such fixtures are in
   * test/fixtures/datasets/exact/: their records encode back to these bytes only through `@bytes`.
   */
  overwritten?: Array<Array<[number, string]>>;
}

/** One case as written in datasets-cases.ts. */
export interface DatasetCase {
  name: string;
  description: string;
  copybook: string[];
  options: OracleOptions;
  recfm: 'F' | 'V';
  /** V files: GnuCOBOL's header format (default 0). */
  varseq?: VarseqFormat;
  /** cobc flags besides -x. */
  flags?: string[];
  /** Translate DISPLAY bytes to EBCDIC (GnuCOBOL's EBCDIC alphabet) before each WRITE. */
  ebcdic?: boolean;
  records: Array<Record<string, unknown>>;
  /** Per record, bytes MOVEd over it after its values: `[offset, hex]` (see DatasetFixture.overwritten). */
  overwrite?: Array<Array<[number, string]>>;
}
