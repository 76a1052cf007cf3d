/**
 * Oracle cases for COPY and REPLACE: the program's WORKING-STORAGE holds the case's copybook with its COPY
 * statements, cobc finds the included copybooks with -I, and the record bytes show what the text became.
 */
import type { OracleCase } from './fixture.ts';

const fixed = (...lines: string[]) => lines.map((l) => `       ${l}`);

export const COPY_CASES: OracleCase[] = [
  {
    name: 'copy-basic',
    description: 'COPY of a group with DISPLAY, zoned and packed fields in the middle of a record',
    copybook: fixed('01 CP-REC.', '   05 CP-ID PIC 9(4).', '   COPY CPADDR.', '   05 CP-END PIC X(2).'),
    includes: {
      'CPADDR.cpy': [
        '      * an address, shared by several records',
        ...fixed(
          '05 CP-ADDR.',
          '   10 CP-CITY PIC X(10).',
          '   10 CP-ZIP PIC 9(5).',
          '   10 CP-BAL PIC S9(5)V99 COMP-3.',
        ),
      ],
    },
    options: { profile: 'gnucobol' },
    vectors: [
      {
        name: 'filled',
        values: { cpId: 1234, cpAddr: { cpCity: 'LISBON', cpZip: 1100, cpBal: -123.45 }, cpEnd: 'OK' },
      },
      { name: 'empty', values: { cpId: 0, cpAddr: { cpCity: '', cpZip: 0, cpBal: 0 }, cpEnd: '' } },
    ],
  },
  {
    name: 'copy-replacing',
    description:
      'COPY … REPLACING with LEADING and TRAILING partial words, a :TAG:, pseudo-text, an identifier and a literal (in a VALUE the JSON leaves out)',
    copybook: fixed(
      '01 CR-REC.',
      '   COPY CRTMPL REPLACING LEADING ==XX-== BY ==CUST-==',
      '                         TRAILING ==-YY== BY ==-AMT==',
      '                         ==:PFX:== BY ==CR==',
      '                         ==PIC X(4)== BY ==PIC X(6)==',
      '                         CR-OLD BY CR-NEW',
      "                         'AB' BY 'XY'.",
    ),
    includes: {
      'CRTMPL.cpy': fixed(
        '05 XX-NAME PIC X(4).',
        "05 XX-CODE PIC X(2) VALUE 'AB'.",
        '05 TOTAL-YY PIC S9(7)V99 COMP-3.',
        '05 :PFX:-FLAG PIC X.',
        '05 CR-OLD PIC 9(3).',
      ),
    },
    options: { profile: 'gnucobol', mapping: { fields: { 'CUST-CODE': false } } },
    vectors: [
      {
        name: 'replaced names and sizes',
        values: { custName: 'ABCDEF', totalAmt: 1234567.89, crFlag: 'Y', crNew: 42 },
      },
      { name: 'negative total', values: { custName: 'Z', totalAmt: -0.01, crFlag: '', crNew: 999 } },
    ],
  },
  {
    name: 'copy-nested',
    description:
      'nested COPY: the outer REPLACING applies to the nested text too; the inner copybook is free format, found with OF library in a subdirectory',
    copybook: fixed('01 CN-REC.', '   05 CN-KEY PIC X(3).', '   COPY CNOUTER REPLACING LEADING ==IN-== BY ==CN-==.'),
    includes: {
      'CNOUTER.cpy': fixed(
        '05 IN-HDR.',
        '   10 IN-TYPE PIC X.',
        '   COPY CNINNER OF CNLIB.',
        '05 IN-TAIL PIC 9(3) COMP.',
      ),
      'CNLIB/CNINNER.cpy': [
        // in fixed format (cobc starts each copybook so) a directive starts in column 8 at the earliest
        '       >>SOURCE FORMAT IS FREE',
        '10 IN-COUNT PIC S9(4) COMP-5.',
        '10 IN-NOTE PIC X(6). *> free-format comment',
        '>>SOURCE FORMAT IS FIXED',
      ],
    },
    options: { profile: 'gnucobol' },
    vectors: [
      {
        name: 'filled',
        values: { cnKey: 'K01', cnHdr: { cnType: 'A', cnCount: -1234, cnNote: 'NOTE' }, cnTail: 789 },
      },
    ],
  },
  {
    name: 'copy-replace',
    description: 'REPLACE before the record applies to copied text too (split over lines), until REPLACE OFF',
    copybook: fixed(
      'REPLACE ==PIC X(5)== BY ==PIC X(8)==',
      '        ==RP-OLD== BY ==RP-NEW==.',
      '01 RP-REC.',
      '   COPY RPBODY.',
      '   05 RP-OLD PIC 9(2).',
      'REPLACE OFF.',
      '   05 RP-LAST PIC X(5).',
    ),
    includes: { 'RPBODY.cpy': fixed('05 RP-NAME PIC X(5).', '05 RP-CODE', '       PIC', '         X(5).') },
    options: { profile: 'gnucobol' },
    vectors: [{ name: 'filled', values: { rpName: 'EIGHTCHR', rpCode: 'ABCDEFGH', rpNew: 7, rpLast: 'LAST' } }],
  },
];
