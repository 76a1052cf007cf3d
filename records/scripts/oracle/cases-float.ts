/**
 * Oracle cases for COMP-1/COMP-2 (IEEE 754, little-endian on x86-64), INDEX and POINTER sizes, and
 * SYNCHRONIZED as cobc aligns it. cobc rounds a literal MOVEd into COMP-1 to the nearest float; the codec
 * refuses what a field cannot hold exactly, so COMP-1 values here are floats exactly (halves, quarters,
 * integers below 2^24), except in the case compiled with floatRounding: 'nearest'.
 */
import type { OracleCase } from './fixture.ts';

const COMP2_LITERAL =
  "cobc 3.1.2 converts the literal 0.1 to 3FB9999999999999, one unit below the double nearest to 0.1 (3FB999999999999A, as IEEE 754 and JavaScript's 0.1 are); the codec writes the nearest, and reads cobc's bytes as 0.09999999999999999";

const SLACK =
  "slack bytes have no defined content: INITIALIZE leaves them as cobc's storage initialisation made them (spaces here); the codec writes LOW-VALUES there, as in every layout. Every other byte is cobc's, so the offsets are cobc's";

const fixed = (...lines: string[]) => lines.map((l) => `       ${l}`);

const FLOATS = fixed(
  '01 FLOAT-REC.',
  '   05 FL-CODE   PIC X(3).',
  '   05 FL-SHORT  COMP-1.',
  '   05 FL-LONG   COMP-2.',
  '   05 FL-ALIAS  FLOAT-LONG.',
  '   05 FL-TABLE  OCCURS 2.',
  '      10 FL-ITEM COMPUTATIONAL-1.',
  '   05 FL-END    PIC X.',
);

const floats = (code: string, short: number, long: number, alias: number, items: [number, number], end: string) => ({
  flCode: code,
  flShort: short,
  flLong: long,
  flAlias: alias,
  flTable: items.map((flItem) => ({ flItem })),
  flEnd: end,
});

// INDEX and POINTER cannot be MOVEd to: left out of JSON, they check sizes and offsets (cobc's INITIALIZE
// leaves them zero, as the codec's template does).
const POINTERS = fixed(
  '01 PTR-REC.',
  '   05 PT-A    PIC X.',
  '   05 PT-IX   INDEX.',
  '   05 PT-B    PIC X.',
  '   05 PT-PTR  POINTER.',
  '   05 PT-C    PIC S9(4) COMP-5.',
);

// cobc 3.1.2 compute_size: SYNC items padded to their size from the record's start (binary of 1 byte not
// at all), group SYNC ignored, a table element padded before its last item; COMP-3 and DISPLAY ignore SYNC.
const SYNC = fixed(
  '01 SYNC-REC.',
  '   05 SY-A    PIC X.',
  '   05 SY-L    PIC S9(12) COMP SYNC.',
  '   05 SY-B    PIC X.',
  '   05 SY-TINY PIC S99 COMP SYNC.',
  '   05 SY-C    PIC X.',
  '   05 SY-H    PIC S9(4) COMP-5 SYNC.',
  '   05 SY-D    PIC X.',
  '   05 SY-P    PIC S9(3) COMP-3 SYNC.',
  '   05 SY-F    COMP-2 SYNC.',
  '   05 SY-E    PIC X.',
  '   05 SY-G    COMP-1 SYNCHRONIZED LEFT.',
  '   05 SY-GRP.',
  '      10 SY-GA PIC XX.',
  '      10 SY-GB PIC S9(6) COMP SYNC.',
  '   05 SY-TAB OCCURS 3.',
  '      10 SY-TA PIC X.',
  '      10 SY-TB PIC S9(5) COMP SYNC.',
  '   05 SY-TAB2 OCCURS 2.',
  '      10 SY-TC PIC S9(4) COMP SYNC.',
  '      10 SY-TD PIC X.',
  '   05 SY-Z    PIC X.',
);

const sync = (n: number) => ({
  syA: 'A',
  syL: -n * 1000000007,
  syB: 'B',
  syTiny: n % 99,
  syC: 'C',
  syH: -n,
  syD: 'D',
  syP: n % 999,
  syF: n + 0.25,
  syE: 'E',
  syG: -n - 0.5,
  syGrp: { syGa: 'GA', syGb: n * 7 },
  syTab: [1, 2, 3].map((k) => ({ syTa: String(k), syTb: n * k })),
  syTab2: [1, 2].map((k) => ({ syTc: -k * n, syTd: 'x' })),
  syZ: 'Z',
});

// cobc pads a table element to a multiple of its largest boundary by moving the element's last item, even when
// that item is the SYNC item itself: here SY8-T0 lands at 5 and 13, off its fullword boundary.
const SYNC_TABLE = fixed(
  '01 SYNC-TABLE-REC.',
  '   05 SY8-B PIC X.',
  '   05 SY8-T OCCURS 2.',
  '      10 SY8-T0 COMP-1 SYNC.',
  '   05 SY8-Z PIC X.',
);

export const FLOAT_CASES: OracleCase[] = [
  {
    name: 'comp1-comp2-ieee',
    description: 'COMP-1/COMP-2 (and FLOAT-LONG, COMPUTATIONAL-1) as IEEE 754 little-endian, in a table too',
    copybook: FLOATS,
    options: { profile: 'gnucobol' },
    vectors: [
      { name: 'zero', values: floats('ZRO', 0, 0, 0, [0, 0], '') },
      { name: 'one and minus one', values: floats('ONE', 1, -1, 1, [-1, 1], 'X') },
      { name: 'published -118.625', values: floats('IBM', -118.625, -118.625, 118.625, [0.5, -0.25], '.') },
      {
        name: 'binary fractions and the float limits of integers',
        values: floats('DEC', 16777215, 0.375, 123456.78125, [16777216, 0.0009765625], 'Z'),
      },
      {
        name: '0.1 into COMP-2',
        values: floats('TEN', 0.5, 0.1, 0.5, [0, 0], ''),
        decoded: floats('TEN', 0.5, 0.09999999999999999, 0.5, [0, 0], ''),
        codecDiffers: {
          hex: '54454e0000003f9a9999999999b93f000000000000e03f000000000000000020',
          why: COMP2_LITERAL,
        },
      },
      {
        name: 'large and small',
        values: floats('BIG', 1099511627776, 1234567890123456, 0.000001, [3.0517578125e-5, -65504], 'L'),
      },
    ],
  },
  {
    name: 'comp1-rounded',
    description:
      "COMP-1 with floatRounding 'nearest': cobc rounds a literal to the nearest float, and so does the codec",
    copybook: FLOATS,
    options: { profile: 'gnucobol', floatRounding: 'nearest' },
    vectors: [
      {
        name: '0.1 and 2.1 into COMP-1',
        values: floats('RND', 0.1, 0.5, 2.125, [2.1, 0.3], 'R'),
        decoded: floats('RND', Math.fround(0.1), 0.5, 2.125, [Math.fround(2.1), Math.fround(0.3)], 'R'),
      },
    ],
  },
  {
    name: 'index-pointer',
    description: 'INDEX (4 bytes) and POINTER (8 bytes on x86-64) sizes and offsets',
    copybook: POINTERS,
    options: { profile: 'gnucobol', mapping: { fields: { 'PT-IX': false, 'PT-PTR': false } } },
    vectors: [
      { name: 'around the pointers', values: { ptA: 'a', ptB: 'b', ptC: -2 } },
      { name: 'defaults', values: { ptA: '', ptB: '', ptC: 0 } },
    ],
  },
  {
    name: 'sync-gnucobol',
    description: 'SYNCHRONIZED as cobc aligns it: binary, COMP-5, COMP-1/COMP-2, in a group and in tables',
    copybook: SYNC,
    options: { profile: 'gnucobol' },
    vectors: [
      {
        name: 'one',
        values: sync(1),
        codecDiffers: {
          hex: '4100000000000000ffffffffc46535f942014300ffff44001c00000000000000000000000000f43f450000000000c0bf4741000000000007310000000000000132000000000000023300000000000003ffff0078fffe00785a',
          why: SLACK,
        },
      },
      {
        name: 'seven',
        values: sync(7),
        codecDiffers: {
          hex: '4100000000000000fffffffe5ec479cf42074300f9ff44007c000000000000000000000000001d40450000000000f0c047410000000000313100000000000007320000000000000e3300000000000015fff90078fff200785a',
          why: SLACK,
        },
      },
    ],
  },
  {
    name: 'sync-gnucobol-table',
    description: 'SYNC item alone in a table element: cobc moves it past its boundary to pad the element',
    copybook: SYNC_TABLE,
    options: { profile: 'gnucobol' },
    vectors: [
      {
        name: 'two floats',
        values: { sy8B: 'B', sy8T: [{ sy8T0: 1 }, { sy8T0: -2 }], sy8Z: 'Z' },
      },
    ],
  },
];
