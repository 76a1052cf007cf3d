/**
 * Data set cases: a fixed-length and a variable-length record (OCCURS … DEPENDING ON, written with RECORD
 * VARYING … DEPENDING ON), each as GnuCOBOL lays it out (ASCII) and as z/OS does (EBCDIC text through
 * GnuCOBOL's EBCDIC alphabet, C/D zoned signs, binary 2/4/8 bytes big-endian). The records' values are
 * seeded random values of every item, written as decode returns them.
 */
import { compileCopybook, layoutItems, type LayoutItem } from '../../src/index.ts';
import type { DatasetCase } from './datasets-fixture.ts';
import type { OracleOptions } from './fixture.ts';

const fixed = (...lines: string[]) => lines.map((l) => `       ${l}`);

const GNUCOBOL: OracleOptions = { profile: 'gnucobol' };
/** z/OS: cp1140 text, C/D zoned signs, binary 2/4/8 bytes big-endian (cobc -fsign=EBCDIC -fbinary-size=2-4-8). */
const ZOS: OracleOptions = { profile: 'zos' };
const ZOS_FLAGS = ['-fsign=EBCDIC', '-fbinary-size=2-4-8'];

/** Printable ASCII: text GnuCOBOL stores as it is. */
const ASCII_PRINTABLE = Array.from({ length: 0x7f - 0x20 }, (_, i) => String.fromCharCode(0x20 + i)).join('');
/** Characters on which GnuCOBOL's EBCDIC alphabet and cp037/cp1140 agree (see README.md, CP037). */
const EBCDIC_SAFE = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789 .,-/'";

const FIXED = fixed(
  '01 FX-REC.',
  '   05 FX-ID       PIC X(6).',
  '   05 FX-NAME     PIC X(12).',
  '   05 FX-QTY      PIC S9(5).',
  '   05 FX-LEAD     PIC S9(3) SIGN LEADING SEPARATE.',
  '   05 FX-UNS      PIC 9(4)V9.',
  '   05 FX-PRICE    PIC S9(7)V99 COMP-3.',
  '   05 FX-UPK      PIC 9(5) COMP-3.',
  '   05 FX-SMALL    PIC S99 COMP.',
  '   05 FX-COUNT    PIC 9(4) COMP.',
  '   05 FX-BAL      PIC S9(9)V99 COMP.',
  '   05 FX-BIG      PIC S9(18) COMP.',
  "   05 FILLER      PIC X(2) VALUE '**'.",
  '   05 FX-LINE OCCURS 3 TIMES.',
  '      10 FX-SKU   PIC X(4).',
  '      10 FX-AMT   PIC S9(3)V99 COMP-3.',
  '      10 FILLER   PIC X.',
  '   05 FX-RATE     PIC SV9(4).',
  '   05 FILLER      PIC X(3).',
  '   05 FX-FLAG     PIC X.',
);

const VARIABLE = fixed(
  '01 VR-REC.',
  '   05 VR-KEY      PIC X(8).',
  '   05 VR-TYPE     PIC X.',
  '   05 VR-AMT      PIC S9(7)V99 COMP-3.',
  '   05 VR-QTY      PIC S9(4) COMP.',
  '   05 VR-NOTE     PIC X(10).',
  '   05 VR-ZONED    PIC S9(3)V9.',
  "   05 FILLER      PIC X VALUE '/'.",
  '   05 VR-N        PIC 9(2).',
  '   05 VR-ITEM OCCURS 0 TO 6 TIMES DEPENDING ON VR-N.',
  '      10 VR-CODE  PIC X(3).',
  '      10 VR-VAL   PIC S9(5) COMP-3.',
  '      10 VR-CNT   PIC S9(3).',
  '      10 VR-BIN   PIC 9(4) COMP.',
);

/** A table with items after it: under cobc -fodoslide they move up with the count, as IBM lays them out. */
const VARIABLE_MIDDLE = fixed(
  '01 VM-REC.',
  '   05 VM-ID       PIC X(5).',
  '   05 VM-N        PIC S9(3) COMP-3.',
  '   05 VM-LINE OCCURS 0 TO 4 TIMES DEPENDING ON VM-N.',
  '      10 VM-SKU   PIC X(4).',
  '      10 VM-QTY   PIC S9(5) COMP.',
  '      10 VM-PRICE PIC S9(5)V99 COMP-3.',
  '   05 VM-TOTAL    PIC S9(7)V99.',
  '   05 VM-TAIL.',
  '      10 VM-NOTE  PIC X(6).',
  "      10 FILLER   PIC X(2) VALUE '<>'.",
  '      10 VM-CODE  PIC 9(3) COMP.',
);

/** FILLER the JSON has no key for, a signed COMP-3 and an unsigned one: the record of the `@bytes` case. */
const FILLER_BYTES = fixed(
  '01 XB-REC.',
  '   05 XB-ID       PIC X(6).',
  '   05 FILLER      PIC X(4).',
  '   05 XB-AMT      PIC S9(7)V99 COMP-3.',
  '   05 XB-NAME     PIC X(10).',
  "   05 FILLER      PIC X(6) VALUE '<>'.",
  '   05 XB-QTY      PIC S9(5).',
  '   05 XB-UPK      PIC 9(5) COMP-3.',
  '   05 XB-FLAG     PIC X.',
);

// ── seeded values ────────────────────────────────────────────────────────────

/** mulberry32: the same seed gives the same records on every run. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A value as decode returns it: a JSON number up to 15 digits, else a canonical decimal string. */
function canonical(n: bigint, scale: number, asString: boolean): number | string {
  const negative = n < 0n;
  const abs = negative ? -n : n;
  const p = 10n ** BigInt(scale);
  const frac = scale === 0 ? '' : (abs % p).toString().padStart(scale, '0').replace(/0+$/, '');
  const text = `${negative ? '-' : ''}${abs / p}${frac === '' ? '' : `.${frac}`}`;
  return asString ? text : Number(text);
}

const keyOf = (item: LayoutItem) => (item.jsonPath ?? '').replace(/\[\]$/, '').split('.').pop() ?? '';

function leafValue(item: LayoutItem, rnd: () => number, alphabet: string): unknown {
  const pick = (chars: string) => chars[Math.floor(rnd() * chars.length)]!;
  if (item.kind !== 'numeric') {
    // now and then empty or full, else any length; decode drops the trailing spaces
    const r = rnd();
    const length = r < 0.1 ? 0 : r < 0.25 ? item.length : Math.floor(rnd() * (item.length + 1));
    return Array.from({ length }, () => pick(alphabet))
      .join('')
      .replace(/ +$/, '');
  }
  const digits = item.digits!;
  const r = rnd();
  // zero, all nines, or a random count of random digits
  const text =
    r < 0.08
      ? '0'
      : r < 0.16
        ? '9'.repeat(digits)
        : Array.from({ length: 1 + Math.floor(rnd() * digits) }, () => pick('0123456789')).join('');
  const negative = item.signed === true && rnd() < 0.5;
  const k = BigInt(text);
  return canonical(negative && k !== 0n ? -k : k, item.scale ?? 0, digits > 15);
}

/** Values for every named item of the record; the ODO table gets `count` elements and its counter that count. */
function recordValues(root: LayoutItem, rnd: () => number, alphabet: string, count: number): Record<string, unknown> {
  const counters = new Set<string>();
  const group = (g: LayoutItem): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    for (const c of g.children ?? []) {
      if (c.jsonPath === null) continue;
      const one = () => (c.children !== undefined ? group(c) : leafValue(c, rnd, alphabet));
      if (c.occurs === undefined) out[keyOf(c)] = one();
      else {
        const n = c.occurs.dependingOn !== undefined ? count : c.occurs.max;
        if (c.occurs.dependingOn !== undefined) counters.add(c.occurs.dependingOn.toUpperCase());
        out[keyOf(c)] = Array.from({ length: n }, one);
      }
    }
    return out;
  };
  const values = group(root);
  for (const c of root.children ?? []) if (counters.has(c.cobolName)) values[keyOf(c)] = count;
  return values;
}

function records(
  copybook: string[],
  options: OracleOptions,
  seed: number,
  n: number,
  alphabet: string,
): Array<Record<string, unknown>> {
  const layout = compileCopybook(copybook.join('\n'), options);
  const rnd = prng(seed);
  const odoMax = (function find(i: LayoutItem): number | undefined {
    if (i.occurs?.dependingOn !== undefined) return i.occurs.max;
    for (const c of i.children ?? []) {
      const m = find(c);
      if (m !== undefined) return m;
    }
    return undefined;
  })(layout.root);
  // every count from 0 to the maximum comes round, in an order that mixes long and short records: a step
  // prime to the number of counts
  const counts = (odoMax ?? 0) + 1;
  const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));
  const step = [5, 3, 7, 1].find((k) => gcd(k, counts) === 1)!;
  return Array.from({ length: n }, (_, i) => recordValues(layout.root, rnd, alphabet, (i * step) % counts));
}

/**
 * Bytes a program leaves in records that their JSON cannot say, over the values: binary bytes in the first
 * FILLER, text in the one with a VALUE, and in XB-AMT the sign nibble F for a positive amount (encode writes C)
 * or D for a zero (negative zero; encode writes C). Some records keep what encode writes, to show the key absent.
 */
function fillerBytes(
  seed: number,
  n: number,
): { records: Array<Record<string, unknown>>; overwrite: Array<Array<[number, string]>> } {
  const values = records(FILLER_BYTES, GNUCOBOL, seed, n, ASCII_PRINTABLE);
  values[1]!.xbAmt = 0;
  const layout = compileCopybook(FILLER_BYTES.join('\n'), GNUCOBOL);
  const items = [...layoutItems(layout.root)];
  const fillers = items.filter((i) => i.cobolName === 'FILLER');
  const amt = items.find((i) => i.cobolName === 'XB-AMT')!;
  const rnd = prng(seed + 1);
  const hex = (bytes: number[]) => Buffer.from(bytes).toString('hex');
  const overwrite = values.map((v, r): Array<[number, string]> => {
    const out: Array<[number, string]> = [];
    if (r % 4 !== 3) {
      const f = fillers[0]!;
      out.push([f.offset, hex(Array.from({ length: f.length }, () => Math.floor(rnd() * 256)))]);
    }
    const signAt = amt.offset + amt.length - 1;
    const last = Buffer.from(layout.encode(v))[signAt]!;
    if (v.xbAmt === 0) out.push([signAt, hex([(last & 0xf0) | 0x0d])]);
    else if (r % 2 === 0 && (last & 0x0f) === 0x0c) out.push([signAt, hex([(last & 0xf0) | 0x0f])]);
    if (r % 3 !== 2) {
      const f = fillers[1]!;
      const text = Array.from({ length: f.length }, () => 0x21 + Math.floor(rnd() * 0x5e));
      out.push([f.offset, hex(text)]);
    }
    return out.sort((a, b) => a[0] - b[0]);
  });
  return { records: values, overwrite };
}

export const DATASET_CASES: DatasetCase[] = [
  {
    name: 'fixed-gnucobol',
    description:
      'F: 20 records of DISPLAY text, zoned (trailing overpunch, leading separate), COMP-3, COMP (1/2/4/8 bytes), FILLER with and without VALUE, an OCCURS group; GnuCOBOL layout (ASCII)',
    copybook: FIXED,
    options: GNUCOBOL,
    recfm: 'F',
    records: records(FIXED, GNUCOBOL, 3401, 20, ASCII_PRINTABLE),
  },
  {
    name: 'fixed-zos',
    description:
      'F: the same record as z/OS lays it out: EBCDIC text (GnuCOBOL translates the DISPLAY bytes before each WRITE), C/D zoned signs, binary 2/4/8 bytes big-endian',
    copybook: FIXED,
    options: ZOS,
    recfm: 'F',
    flags: ZOS_FLAGS,
    ebcdic: true,
    records: records(FIXED, ZOS, 3402, 20, EBCDIC_SAFE),
  },
  {
    name: 'variable-gnucobol',
    description:
      "V: 16 records of 0 to 6 OCCURS … DEPENDING ON elements, written with RECORD VARYING … DEPENDING ON under GnuCOBOL's default header (COB_VARSEQ_FORMAT 0: 2-byte big-endian data length, 2 zero bytes)",
    copybook: VARIABLE,
    options: GNUCOBOL,
    recfm: 'V',
    varseq: 0,
    records: records(VARIABLE, GNUCOBOL, 3403, 16, ASCII_PRINTABLE),
  },
  {
    name: 'variable-gnucobol-little',
    description:
      'V: the same record under COB_VARSEQ_FORMAT 2 (a 4-byte native length: little-endian here, so the low byte first and two zero bytes)',
    copybook: VARIABLE,
    options: GNUCOBOL,
    recfm: 'V',
    varseq: 2,
    records: records(VARIABLE, GNUCOBOL, 3404, 16, ASCII_PRINTABLE),
  },
  {
    name: 'variable-odo-not-last',
    description:
      'V: a table of 0 to 4 elements (COMP-3 counter) followed by a zoned item and a group with FILLER; cobc -fodoslide lays the record out at its count, as IBM does, so the items after the table move up',
    copybook: VARIABLE_MIDDLE,
    options: GNUCOBOL,
    recfm: 'V',
    varseq: 0,
    flags: ['-fodoslide'],
    records: records(VARIABLE_MIDDLE, GNUCOBOL, 3406, 15, ASCII_PRINTABLE),
  },
  {
    name: 'variable-zos',
    description:
      'V: the same record as z/OS lays it out (EBCDIC text translated before each WRITE, C/D signs, binary 2/4/8 bytes big-endian), COB_VARSEQ_FORMAT 0',
    copybook: VARIABLE,
    options: ZOS,
    recfm: 'V',
    varseq: 0,
    flags: ZOS_FLAGS,
    ebcdic: true,
    records: records(VARIABLE, ZOS, 3405, 16, EBCDIC_SAFE),
  },
  {
    name: 'fixed-filler-bytes',
    description:
      'F: 12 records whose FILLER holds what the program MOVEd over it (binary bytes; text where the FILLER has a VALUE) and whose signed COMP-3 amount has the sign nibble F (positive) or D on a zero, where encode writes C; GnuCOBOL layout (ASCII). Encode gives these bytes back only from the JSON that decode with @bytes wrote',
    copybook: FILLER_BYTES,
    options: GNUCOBOL,
    recfm: 'F',
    ...fillerBytes(3407, 12),
  },
];
