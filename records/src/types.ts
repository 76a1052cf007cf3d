/**
 * Public types of the record translation layer. This module imports nothing of
 * HTTP or storage: it turns copybook text into a layout, and a layout turns JSON
 * into fixed-layout record bytes and back.
 */

import type { EbcdicCharset } from './codepages/ebcdic/index.ts';

/**
 * Character sets for DISPLAY data: ASCII, Latin-1, or an IBM EBCDIC code page `cpNNN` as glibc's iconv maps it
 * (cp1140 is cp037 with the euro sign at 0x9F; cp930, cp939 and the other mixed ones add double-byte characters).
 */
export type Charset = 'ascii' | 'latin1' | EbcdicCharset;

/** How zoned-decimal signs are written in the last (or first) byte. */
export type ZonedSignConvention = 'ebcdic' | 'ascii';

/** Storage size of COMP/BINARY items by digit count: IBM 2/4/8, GnuCOBOL default 1/2/4/8. */
export type BinarySizes = 'ibm' | 'gnucobol';

export type ByteOrder = 'big' | 'little';

export type ProfileName = 'zos' | 'gnucobol';

/** COMP-1/COMP-2 storage: IBM hexadecimal floating point, or IEEE 754 in either byte order. */
export type FloatFormat = 'hfp' | 'ieee-big' | 'ieee-little';

/** Encode of a value a COMP-1/COMP-2 cannot hold exactly: refuse it, or round half to even. */
export type FloatRounding = 'exact' | 'nearest';

/** A platform profile: how one back-end lays out the same copybook. */
export interface PlatformProfile {
  charset: Charset;
  zonedSign: ZonedSignConvention;
  binarySizes: BinarySizes;
  comp5ByteOrder: ByteOrder;
  floatFormat: FloatFormat;
  /** Bytes of a USAGE POINTER item: 4 on z/OS (31-bit), 8 on a 64-bit GnuCOBOL. */
  pointerSize: 4 | 8;
  /** Not a storage property but an encode policy; default `exact`. */
  floatRounding: FloatRounding;
  /** Boundaries of SYNCHRONIZED items: IBM Enterprise COBOL's, or GnuCOBOL's. */
  syncAlignment: SyncAlignment;
}

export type SyncAlignment = 'ibm' | 'gnucobol';

/**
 * Renames, omits or selects views. Keys are COBOL names, qualified with
 * `OF parent` where a name is not unique (`ITEM-QTY OF ORDER-LINE`).
 */
export interface FieldMapping {
  /** COBOL name → JSON name, or `false` to leave the field out of JSON (encode writes its VALUE or default). */
  fields?: Record<string, string | false>;
  /**
   * Redefined item's COBOL name → the view the JSON shows: one view's COBOL name (default: the first), or
   * views chosen by a discriminator field's value in both directions. Whatever is chosen, encode also
   * takes any single view whose JSON key is present.
   */
  redefines?: Record<string, string | ViewChoice>;
  /**
   * COBOL name of a numeric item or a group → what its numeric items holding only LOW-VALUES, HIGH-VALUES or
   * spaces decode to. The nearest setting (the item's, else its nearest group's, else `emptyNumeric`) wins.
   */
  emptyNumeric?: Record<string, EmptyNumeric>;
  /**
   * Level-66 RENAMES item's COBOL name → true to show it in decode (default: hidden, like a view not
   * selected; encode takes it under its key either way).
   */
  renames?: Record<string, boolean>;
  /**
   * COBOL name → the code page of its DISPLAY data, in place of the layout's encoding:
   * `{ "CUST-NAME-DE": "cp273" }`. On a group, every item under it (a deeper entry wins).
   */
  encodings?: Record<string, Charset>;
}

/** What a numeric item filled with one filler decodes to: a decode error (default), JSON `null`, or zero. */
export type EmptyNumericAction = 'error' | 'null' | 'zero';

/**
 * Per filler: all X'00' (LOW-VALUES), all X'FF' (HIGH-VALUES), all spaces of the code page. Fillers left
 * out are `error`. A filler that is a valid value of the item (X'0000' in a binary item is zero) stays
 * that value. `nullFill` is the filler encode writes for JSON `null`; default the first of lowValues,
 * highValues, spaces whose action is `null`.
 */
export interface EmptyNumericPolicy {
  lowValues?: EmptyNumericAction;
  highValues?: EmptyNumericAction;
  spaces?: EmptyNumericAction;
  nullFill?: 'lowValues' | 'highValues' | 'spaces';
}

/** One action for all three fillers, or one per filler. */
export type EmptyNumeric = EmptyNumericAction | EmptyNumericPolicy;

/**
 * Views chosen by the value of a discriminator, an elementary item of the same group:
 * `{ "discriminator": "PAY-METHOD", "views": { "C": "PAY-CARD", "A": "PAY-ACH" } }`. Decode shows the
 * view the value names; encode takes the view the discriminator's JSON value names or, without it, the
 * one view whose key is present, and writes the discriminator's value for it.
 */
export interface ViewChoice {
  discriminator: string;
  /** Discriminator value (trailing spaces ignored) → COBOL name of its view. */
  views: Record<string, string>;
}

export interface CompileOptions {
  /** Used in error messages. */
  fileName?: string;
  /** Source format; `auto` looks for a `>>SOURCE FORMAT` directive, then at the columns. */
  format?: 'fixed' | 'free' | 'auto';
  /** Platform profile; default `zos`. Each setting below overrides the profile's. */
  profile?: ProfileName;
  encoding?: Charset;
  zonedSign?: ZonedSignConvention;
  binarySizes?: BinarySizes;
  comp5ByteOrder?: ByteOrder;
  floatFormat?: FloatFormat;
  pointerSize?: 4 | 8;
  floatRounding?: FloatRounding;
  syncAlignment?: SyncAlignment;
  mapping?: FieldMapping;
  /**
   * Directories searched for COPY, after the including file's own directory (cobc's -I). COPY needs this or
   * `readCopybook`.
   */
  copybookPath?: string[];
  /** Finds a copybook's text for COPY instead of reading files (the codec then needs no node:fs). */
  readCopybook?: CopybookReader;
  /** What numeric items holding only LOW-VALUES, HIGH-VALUES or spaces decode to; default `error`. */
  emptyNumeric?: EmptyNumeric;
  /** The currency symbol of edited pictures, in the picture and in the data (CURRENCY SIGN); default `$`. */
  currencySign?: string;
  /** DECIMAL-POINT IS COMMA: in edited pictures `,` is the decimal point and `.` the grouping character. */
  decimalPointIsComma?: boolean;
}

/** A copybook's text and the name errors give it (a path for files read from disk). */
export interface CopybookText {
  text: string;
  fileName: string;
}

/**
 * Finds the text of `COPY name [OF library]`, or `undefined` (or the places it searched, for the error) when
 * there is none. `name` and `library` are in upper case for COBOL words and as written for literals;
 * `includingFile` is the fileName of the text with the COPY.
 */
export type CopybookReader = (
  name: string,
  library: string | undefined,
  includingFile: string,
) => CopybookText | { searched: string[] } | undefined;

/** `display-1`: PIC G, pure double-byte characters (2 bytes each, no shift codes) in a mixed code page. */
export type Usage =
  | 'display'
  | 'binary'
  | 'comp-5'
  | 'packed-decimal'
  | 'display-1'
  | 'comp-1'
  | 'comp-2'
  | 'index'
  | 'pointer'
  | 'national';

export type SignPosition = 'leading' | 'trailing';

export interface SignSpec {
  position: SignPosition;
  separate: boolean;
}

export interface OccursSpec {
  min: number;
  max: number;
  /** COBOL name of the counter for OCCURS … DEPENDING ON. */
  dependingOn?: string;
}

/** A condition name (level 88) of a field. */
export interface ConditionName {
  name: string;
  values: Array<string | number>;
  ranges: Array<{ from: string | number; to: string | number }>;
}

/** One data item of a compiled layout, with its place in the record. */
export interface LayoutItem {
  level: number;
  /** COBOL name; `FILLER` for unnamed items. */
  cobolName: string;
  /** JSON path template, e.g. `order.lines[].qty`; null for FILLER, omitted fields and unselected views. */
  jsonPath: string | null;
  /** Byte offset of the first occurrence from the start of the record (every table at its maximum). */
  offset: number;
  /** Behind this OCCURS DEPENDING ON table (COBOL name): the offset varies with the counts. */
  afterOdo?: string;
  /** Byte length of one occurrence. */
  length: number;
  kind: 'group' | 'alphanumeric' | 'alphabetic' | 'numeric' | 'national';
  usage: Usage;
  /** Normalised picture, e.g. `S9(7)V99`; absent for groups. */
  picture?: string;
  /** Numeric items: total digits and digits after the implied decimal point. */
  digits?: number;
  scale?: number;
  signed?: boolean;
  sign?: SignSpec;
  occurs?: OccursSpec;
  /** Level 66: the COBOL names of the first and last renamed items (the same for one item). */
  renames?: { from: string; thru: string };
  /** COBOL name of the item this one redefines. */
  redefines?: string;
  /** A REDEFINES view decode does not show: encode takes it under this key when it is the only view given. */
  encodeKey?: string;
  /** On a redefined item whose view a discriminator chooses: its COBOL name, and value → view's COBOL name. */
  viewChoice?: ViewChoice;
  justifiedRight?: boolean;
  blankWhenZero?: boolean;
  /** SYNCHRONIZED (given or inherited from the 01) on an item the platform aligns. */
  synchronized?: boolean;
  /** Slack bytes the compiler inserts before the item (to align it) and after each occurrence of a table. */
  slackBefore?: number;
  slackAfter?: number;
  /** The VALUE clause, as written (figuratives resolved to ZERO/SPACE/HIGH-VALUE/LOW-VALUE). */
  value?: string | number;
  conditions?: ConditionName[];
  children?: LayoutItem[];
  /** Where the item was declared: the copybook brought in by COPY, when not the file compiled. */
  fileName?: string;
  line: number;
  column: number;
}

export interface RecordLayout {
  /** COBOL name of the 01 record. */
  name: string;
  profile: PlatformProfile;
  /** Record length with every OCCURS DEPENDING ON table at its minimum / maximum. */
  minLength: number;
  maxLength: number;
  root: LayoutItem;
  encode(json: unknown): Buffer;
  decode(bytes: Uint8Array, options?: RecordDecodeOptions): Record<string, unknown>;
}

export interface RecordDecodeOptions {
  /**
   * Bytes past the record's end: `error` (default), or `ignore` for records stored in longer slots, as in a
   * fixed-length file whose records OCCURS DEPENDING ON makes shorter than its LRECL.
   */
  trailing?: 'error' | 'ignore';
}
