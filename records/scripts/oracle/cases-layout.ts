/**
 * Oracle cases for the record's shape: OCCURS DEPENDING ON tables followed by other items, several variable
 * tables, variable tables inside table elements (cobc -fodoslide lays the record out at its counts, as IBM
 * Enterprise COBOL does), and level-66 RENAMES.
 */
import type { OracleCase, OracleOptions } from './fixture.ts';

const fixed = (...lines: string[]) => lines.map((l) => `       ${l}`);

const GNUCOBOL: OracleOptions = { profile: 'gnucobol' };
/** Items after a variable table move up with the counts. */
const ODOSLIDE = ['-fodoslide'];

const ODO_MIDDLE = fixed(
  '01 ODM-REC.',
  '   05 ODM-ID     PIC X(3).',
  '   05 ODM-N      PIC 9(2).',
  '   05 ODM-LINE OCCURS 0 TO 3 TIMES DEPENDING ON ODM-N.',
  '      10 ODM-SKU PIC X(2).',
  '      10 ODM-QTY PIC S9(3) COMP-3.',
  '   05 ODM-TOTAL  PIC S9(5)V99.',
  '   05 ODM-TAIL.',
  '      10 ODM-NOTE PIC X(4).',
  "      10 ODM-END  PIC X VALUE '$'.",
);

const line = (sku: string, qty: number) => ({ odmSku: sku, odmQty: qty });
const odm = (n: number, lines: Array<ReturnType<typeof line>>, total: number, note: string) => ({
  odmId: 'ORD',
  odmN: n,
  odmLine: lines,
  odmTotal: total,
  odmTail: { odmNote: note, odmEnd: '$' },
});

const withoutCount = ({ odmN: _, ...rest }: ReturnType<typeof odm>) => rest;

const ODO_SEVERAL = fixed(
  '01 ODS-REC.',
  '   05 ODS-COUNTS.',
  '      10 ODS-NA  PIC 9(4) COMP.',
  '      10 ODS-NB  PIC 9.',
  '   05 ODS-A      PIC X(3) OCCURS 1 TO 4 TIMES',
  '                 DEPENDING ON ODS-NA.',
  '   05 ODS-MID    PIC S9(3) SIGN LEADING SEPARATE.',
  '   05 ODS-B OCCURS 0 TO 2 TIMES DEPENDING ON ODS-NB.',
  '      10 ODS-B1  PIC S9(4) COMP.',
  '      10 ODS-B2  PIC X.',
  '   05 ODS-FIX    PIC 9 OCCURS 2 TIMES.',
  '   05 ODS-LAST   PIC X(2).',
);

const ods = (a: string[], mid: number, b: Array<[number, string]>, fix: [number, number], last: string) => ({
  odsCounts: { odsNa: a.length, odsNb: b.length },
  odsA: a,
  odsMid: mid,
  odsB: b.map(([b1, b2]) => ({ odsB1: b1, odsB2: b2 })),
  odsFix: fix,
  odsLast: last,
});

// IBM's complex ODO example has this shape: the inner counter outside the tables, one count for every element
const ODO_NESTED = fixed(
  '01 ODN-REC.',
  '   05 ODN-ROWS   PIC 9.',
  '   05 ODN-CELLS  PIC 9.',
  '   05 ODN-ROW OCCURS 1 TO 3 TIMES DEPENDING ON ODN-ROWS.',
  '      10 ODN-KEY  PIC X.',
  '      10 ODN-CELL PIC S9(3) COMP-3',
  '                  OCCURS 0 TO 2 TIMES DEPENDING ON ODN-CELLS.',
  '      10 ODN-SEP  PIC X.',
  '   05 ODN-GRID OCCURS 2 TIMES.',
  '      10 ODN-G    PIC X OCCURS 1 TO 2 TIMES',
  '                  DEPENDING ON ODN-CELLS.',
  '   05 ODN-END    PIC X(2).',
);

const odnRow = (key: string, cells: number[], sep: string) => ({ odnKey: key, odnCell: cells, odnSep: sep });

const RENAMES = fixed(
  '01 RN-REC.',
  '   05 RN-CODE    PIC X(2).',
  '   05 RN-AMOUNT  PIC S9(3)V9.',
  '   05 RN-ADDR.',
  '      10 RN-CITY PIC X(4).',
  '      10 RN-ZIP  PIC 9(3).',
  '   05 RN-FLAG    PIC X.',
  '66 RN-HEAD     RENAMES RN-CODE THRU RN-AMOUNT.',
  '66 RN-MONEY    RENAMES RN-AMOUNT.',
  '66 RN-WHERE    RENAMES RN-ADDR.',
  '66 RN-TAIL     RENAMES RN-ZIP THROUGH RN-FLAG.',
);

const rn = (code: string, amount: number, city: string, zip: number, flag: string) => ({
  rnCode: code,
  rnAmount: amount,
  rnAddr: { rnCity: city, rnZip: zip },
  rnFlag: flag,
});

export const LAYOUT_CASES: OracleCase[] = [
  {
    name: 'odo-not-last',
    description:
      'OCCURS 0 TO 3 DEPENDING ON followed by a zoned field and a group (cobc -fodoslide: the record at its count)',
    copybook: ODO_MIDDLE,
    options: GNUCOBOL,
    flags: ODOSLIDE,
    vectors: [
      { name: 'no lines', values: odm(0, [], -1.5, 'NONE') },
      { name: 'two lines', values: odm(2, [line('AB', 12), line('C', -7)], 12345.67, 'TWO') },
      {
        name: 'three lines, counter from the array',
        values: withoutCount(odm(3, [line('X', 1), line('Y', 2), line('Z', -999)], 0, 'FULL')),
        decoded: odm(3, [line('X', 1), line('Y', 2), line('Z', -999)], 0, 'FULL'),
      },
    ],
  },
  {
    name: 'odo-several-tables',
    description:
      'two OCCURS DEPENDING ON tables (COMP and zoned counters in a header group) with items between and after (cobc -fodoslide)',
    copybook: ODO_SEVERAL,
    options: GNUCOBOL,
    flags: ODOSLIDE,
    vectors: [
      { name: 'minimum', values: ods(['A'], 0, [], [0, 0], '') },
      { name: 'both tables partly full', values: ods(['A', 'BB', 'CCC'], -42, [[-1234, 'x']], [1, 2], 'ZZ') },
      {
        name: 'both tables full',
        values: ods(
          ['1', '2', '3', '4'],
          999,
          [
            [9999, 'p'],
            [-9999, 'q'],
          ],
          [9, 8],
          'OK',
        ),
      },
    ],
  },
  {
    name: 'odo-nested',
    description:
      'a variable table in each element of a variable table and of a fixed table, counted by one counter outside them (cobc -fodoslide)',
    copybook: ODO_NESTED,
    options: GNUCOBOL,
    flags: ODOSLIDE,
    vectors: [
      {
        name: 'one row of one cell',
        values: {
          odnRows: 1,
          odnCells: 1,
          odnRow: [odnRow('K', [-5], '|')],
          odnGrid: [{ odnG: ['x'] }, { odnG: [''] }],
          odnEnd: 'E',
        },
      },
      {
        name: 'two rows of two cells',
        values: {
          odnRows: 2,
          odnCells: 2,
          odnRow: [odnRow('A', [1, -2], '|'), odnRow('B', [999, -999], ';')],
          odnGrid: [{ odnG: ['a', 'b'] }, { odnG: ['c', 'd'] }],
          odnEnd: 'XY',
        },
      },
      {
        name: 'three rows of one cell, counters from the arrays',
        values: {
          odnRow: [odnRow('A', [5], '1'), odnRow('B', [6], '2'), odnRow('C', [7], '3')],
          odnGrid: [{ odnG: ['g'] }, { odnG: ['h'] }],
          odnEnd: 'Z',
        },
        decoded: {
          odnRows: 3,
          odnCells: 1,
          odnRow: [odnRow('A', [5], '1'), odnRow('B', [6], '2'), odnRow('C', [7], '3')],
          odnGrid: [{ odnG: ['g'] }, { odnG: ['h'] }],
          odnEnd: 'Z',
        },
      },
    ],
  },
  {
    name: 'renames',
    description:
      'level 66 RENAMES: a range with THRU (alphanumeric), one elementary item (its own type), a group, a range ending in another item; MOVEs to the renamed items',
    copybook: RENAMES,
    options: {
      ...GNUCOBOL,
      mapping: { renames: { 'RN-HEAD': true, 'RN-MONEY': true, 'RN-WHERE': true, 'RN-TAIL': true } },
    },
    vectors: [
      {
        name: 'items only: the views show their bytes',
        values: {
          ...rn('AB', -12.5, 'PARI', 75, 'Y'),
          rnHead: 'AB012u',
          rnMoney: -12.5,
          rnWhere: 'PARI075',
          rnTail: '075Y',
        },
      },
      {
        name: 'through the views only',
        values: { rnHead: 'XY9990', rnWhere: 'ROME001', rnFlag: 'N' },
        decoded: {
          ...rn('XY', 999, 'ROME', 1, 'N'),
          rnHead: 'XY9990',
          rnMoney: 999,
          rnWhere: 'ROME001',
          rnTail: '001N',
        },
      },
      {
        name: 'an elementary view keeps its type',
        values: { rnMoney: -0.1, rnCode: 'Q' },
        decoded: {
          ...rn('Q', -0.1, '', 0, ''),
          rnHead: 'Q 000q',
          rnMoney: -0.1,
          rnWhere: '    000',
          rnTail: '000',
        },
      },
    ],
  },
];
