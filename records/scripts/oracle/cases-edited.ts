/**
 * Oracle cases for P scaling and edited pictures: cobc MOVEs each value into the item (a numeric literal
 * into a numeric-edited item is edited by the MOVE, a string into an alphanumeric-edited one gets its
 * insertions), and the codec must write the same bytes and read them back to the value.
 */
import type { OracleCase, OracleOptions } from './fixture.ts';

const fixed = (...lines: string[]) => lines.map((l) => `       ${l}`);

const GNUCOBOL: OracleOptions = { profile: 'gnucobol' };
const CP037: OracleOptions = { profile: 'zos', binarySizes: 'gnucobol', comp5ByteOrder: 'little' };

// ── P scaling ────────────────────────────────────────────────────────────────

const P_SCALING = fixed(
  '01 P-REC.',
  '   05 P-ZR     PIC 9(3)PPP.',
  '   05 P-ZRS    PIC S9(3)PPP.',
  '   05 P-ZRSEP  PIC S9(2)P(4) SIGN LEADING SEPARATE.',
  '   05 P-ZL     PIC PPP9(3).',
  '   05 P-ZV     PIC SVPP9.',
  '   05 P-BR     PIC S9(4)PP COMP.',
  '   05 P-BL     PIC P(2)9(4) COMP.',
  '   05 P-5R     PIC S9(4)PP COMP-5.',
  '   05 P-BIG    PIC S9(14)P(3).',
);

// No COMP-3 here: cobc 3.1.2 writes wrong digits into a COMP-3 item with P (MOVE 987000 TO PIC S9(3)PPP COMP-3
// leaves 000C, and DISPLAY shows garbage); test/edited.test.ts checks COMP-3 with P on hand-made bytes.
const pRec = (
  zr: number,
  zrs: number,
  zrsep: number,
  zl: number,
  zv: number,
  br: number,
  bl: number,
  r5: number,
  big: string,
) => ({ pZr: zr, pZrs: zrs, pZrsep: zrsep, pZl: zl, pZv: zv, pBr: br, pBl: bl, p5r: r5, pBig: big });

// ── numeric-edited ───────────────────────────────────────────────────────────

const NUMERIC_EDITED = fixed(
  '01 NE-REC.',
  '   05 NE-Z       PIC ZZZ9.',
  '   05 NE-ZDEC    PIC ZZ,ZZ9.99.',
  '   05 NE-ZALL    PIC ZZZ.ZZ.',
  '   05 NE-STAR    PIC ***,**9.99.',
  '   05 NE-STARALL PIC ****.**.',
  '   05 NE-CUR     PIC $ZZ,ZZ9.99.',
  '   05 NE-FCUR    PIC $$$,$$9.99.',
  '   05 NE-FCURALL PIC $$$$.$$.',
  '   05 NE-PLUS    PIC +ZZZ9.',
  '   05 NE-MINUS   PIC ZZZ9-.',
  '   05 NE-TPLUS   PIC 9(3).99+.',
  '   05 NE-FPLUS   PIC ++++9.',
  '   05 NE-FMINUS  PIC ----9.99.',
  '   05 NE-CR      PIC ZZZ9.99CR.',
  '   05 NE-DB      PIC $ZZ9.99DB.',
  '   05 NE-INS     PIC 99B99/99.',
  '   05 NE-ZERO    PIC 9990.',
  '   05 NE-DATE    PIC 99/99/9999.',
  '   05 NE-BWZ     PIC ZZ9.99 BLANK WHEN ZERO.',
  '   05 NE-V       PIC ZZ9V99.',
  '   05 NE-P       PIC ZZ9PP.',
  '   05 NE-LEAD    PIC -ZZ9.',
  '   05 NE-CURMIN  PIC $ZZ9.99-.',
  '   05 NE-STARCR  PIC $**,**9.99CR.',
  '   05 NE-INSZ    PIC ZZBZZ9.',
  '   05 NE-BIG     PIC -(14)9.99.',
);

interface NumericEditedValues {
  z: number;
  zdec: number;
  zall: number;
  star: number;
  starall: number;
  cur: number;
  fcur: number;
  fcurall: number;
  plus: number;
  minus: number;
  tplus: number;
  fplus: number;
  fminus: number;
  cr: number;
  db: number;
  ins: number;
  zero: number;
  date: number;
  bwz: number;
  v: number;
  p: number;
  lead: number;
  curmin: number;
  starcr: number;
  insz: number;
  big: string;
}

const neRec = (x: NumericEditedValues) => ({
  neZ: x.z,
  neZdec: x.zdec,
  neZall: x.zall,
  neStar: x.star,
  neStarall: x.starall,
  neCur: x.cur,
  neFcur: x.fcur,
  neFcurall: x.fcurall,
  nePlus: x.plus,
  neMinus: x.minus,
  neTplus: x.tplus,
  neFplus: x.fplus,
  neFminus: x.fminus,
  neCr: x.cr,
  neDb: x.db,
  neIns: x.ins,
  neZero: x.zero,
  neDate: x.date,
  neBwz: x.bwz,
  neV: x.v,
  neP: x.p,
  neLead: x.lead,
  neCurmin: x.curmin,
  neStarcr: x.starcr,
  neInsz: x.insz,
  neBig: x.big,
});

const NE_ZERO: NumericEditedValues = {
  z: 0,
  zdec: 0,
  zall: 0,
  star: 0,
  starall: 0,
  cur: 0,
  fcur: 0,
  fcurall: 0,
  plus: 0,
  minus: 0,
  tplus: 0,
  fplus: 0,
  fminus: 0,
  cr: 0,
  db: 0,
  ins: 0,
  zero: 0,
  date: 0,
  bwz: 0,
  v: 0,
  p: 0,
  lead: 0,
  curmin: 0,
  starcr: 0,
  insz: 0,
  big: '0',
};

// ── alphanumeric-edited ──────────────────────────────────────────────────────

const ALPHANUMERIC_EDITED = fixed(
  '01 AE-REC.',
  '   05 AE-SLASH   PIC XX/XX/XX.',
  '   05 AE-BLANK   PIC X(3)BX(3).',
  '   05 AE-ZERO    PIC X0X0X.',
  '   05 AE-ALPHA   PIC AABAA.',
  '   05 AE-MIXED   PIC 99/XX/AA.',
  '   05 AE-LEADING PIC BX(4)0.',
);

const aeRec = (slash: string, blank: string, zero: string, alpha: string, mixed: string, leading: string) => ({
  aeSlash: slash,
  aeBlank: blank,
  aeZero: zero,
  aeAlpha: alpha,
  aeMixed: mixed,
  aeLeading: leading,
});

// ── DECIMAL-POINT IS COMMA ───────────────────────────────────────────────────

const DECIMAL_COMMA = fixed(
  '01 DC-REC.',
  '   05 DC-Z       PIC ZZ.ZZ9,99.',
  '   05 DC-FCUR    PIC $$$.$$9,99CR.',
  '   05 DC-STAR    PIC ***.**9,99.',
  '   05 DC-FMINUS  PIC ----9,9.',
  '   05 DC-ALL     PIC ZZZ,ZZ.',
  '   05 DC-V       PIC 9(3)V99.',
);

const dcRec = (z: number, fcur: number, star: number, fminus: number, all: number, v: number) => ({
  dcZ: z,
  dcFcur: fcur,
  dcStar: star,
  dcFminus: fminus,
  dcAll: all,
  dcV: v,
});

export const EDITED_CASES: OracleCase[] = [
  {
    name: 'p-scaling',
    description:
      'P scaling right of the digits (9(3)PPP: × 1000) and left of them (PPP9(3), SVPP9: after assumed zero decimals) in DISPLAY (trailing overpunch and leading separate sign), COMP and COMP-5',
    copybook: P_SCALING,
    options: GNUCOBOL,
    vectors: [
      // not zero into the binary items with P right of the digits: cobc 3.1.2 loops forever on that MOVE
      { name: 'zero', values: pRec(0, 0, 0, 0, 0, 100, 0, -100, '0') },
      {
        name: 'positive',
        values: pRec(123000, 45000, 120000, 0.000123, 0.007, 12300, 0.001234, 99900, '12345678901234000'),
      },
      {
        name: 'negative and largest',
        values: pRec(999000, -999000, -990000, 0.000999, -0.009, -999900, 0.009999, -999900, '-99999999999999000'),
      },
      {
        name: 'smallest steps',
        values: pRec(1000, -1000, 10000, 0.000001, 0.001, 100, 0.000001, 100, '1000'),
      },
    ],
  },
  {
    name: 'p-scaling-cp037',
    description: 'CP037: P scaling in zoned (EBCDIC C/D overpunch) and binary fields',
    copybook: P_SCALING,
    options: CP037,
    flags: ['-fsign=EBCDIC'],
    ebcdic: true,
    vectors: [
      {
        name: 'mixed signs',
        values: pRec(45000, -123000, 990000, 0.000456, -0.003, 100, 0.000042, -300, '-4000'),
      },
    ],
  },
  {
    name: 'numeric-edited',
    description:
      'numeric-edited pictures: Z and * suppression (also right of the point), fixed and floating $ + -, CR, DB, B 0 / and comma insertion, BLANK WHEN ZERO, V and P',
    copybook: NUMERIC_EDITED,
    options: GNUCOBOL,
    vectors: [
      { name: 'zero', values: neRec(NE_ZERO) },
      {
        name: 'small positive',
        values: neRec({
          z: 7,
          zdec: 0.05,
          zall: 0.05,
          star: 1.5,
          starall: 0.01,
          cur: 3.2,
          fcur: 12,
          fcurall: 0.5,
          plus: 4,
          minus: 5,
          tplus: 0.07,
          fplus: 6,
          fminus: 0.25,
          cr: 8.1,
          db: 9.99,
          ins: 10203,
          zero: 12,
          date: 1012026,
          bwz: 0.01,
          v: 1.23,
          p: 100,
          lead: 1,
          curmin: 2.5,
          starcr: 0.99,
          insz: 10,
          big: '1.5',
        }),
      },
      {
        name: 'negative',
        values: neRec({
          z: 10,
          zdec: 100,
          zall: 10.1,
          star: 1000,
          starall: 12.3,
          cur: 1000.01,
          fcur: 123.45,
          fcurall: 12.34,
          plus: -4,
          minus: -567,
          tplus: -12.5,
          fplus: -678,
          fminus: -1.5,
          cr: -12.34,
          db: -1,
          ins: 999999,
          zero: 999,
          date: 12312099,
          bwz: 5,
          v: 0.5,
          p: 99900,
          lead: -42,
          curmin: -999.99,
          starcr: -1234.56,
          insz: 1234,
          big: '-98765432109876.54',
        }),
      },
      {
        name: 'largest',
        values: neRec({
          z: 9999,
          zdec: 99999.99,
          zall: 999.99,
          star: 999999.99,
          starall: 9999.99,
          cur: 99999.99,
          fcur: 99999.99,
          fcurall: 999.99,
          plus: 9999,
          minus: -9999,
          tplus: 999.99,
          fplus: 9999,
          fminus: -9999.99,
          cr: 9999.99,
          db: -999.99,
          ins: 999999,
          zero: 999,
          date: 99999999,
          bwz: 999.99,
          v: 999.99,
          p: 99900,
          lead: 999,
          curmin: 999,
          starcr: 99999.99,
          insz: 99999,
          big: '99999999999999.99',
        }),
      },
    ],
  },
  {
    name: 'numeric-edited-defaults',
    description:
      'numeric-edited and alphanumeric-edited items left out: INITIALIZE gives what MOVE ZERO and MOVE SPACES give',
    copybook: fixed(
      '01 ND-REC.',
      '   05 ND-ZDEC  PIC ZZ,ZZ9.99.',
      '   05 ND-FCUR  PIC $$$9.99CR.',
      '   05 ND-STAR  PIC ****.**.',
      '   05 ND-BWZ   PIC ZZ9 BLANK WHEN ZERO.',
      '   05 ND-SLASH PIC XX/XX.',
      '   05 ND-INS   PIC 99B99.',
      '   05 ND-X     PIC X(3).',
    ),
    options: GNUCOBOL,
    vectors: [
      {
        name: 'only the text given',
        values: { ndX: 'ABC' },
        decoded: { ndZdec: 0, ndFcur: 0, ndStar: 0, ndBwz: 0, ndSlash: '', ndIns: 0, ndX: 'ABC' },
      },
    ],
  },
  {
    name: 'alphanumeric-edited',
    description: 'alphanumeric-edited pictures: X, A and 9 positions with B, 0 and / insertion; short strings padded',
    copybook: ALPHANUMERIC_EDITED,
    options: GNUCOBOL,
    vectors: [
      { name: 'full', values: aeRec('311226', 'ABCDEF', 'XYZ', 'ABCD', '12ABCD', 'WXYZ') },
      { name: 'short', values: aeRec('31', 'AB', 'X', 'A', '1', 'W') },
      { name: 'empty', values: aeRec('', '', '', '', '', '') },
      { name: 'inner spaces', values: aeRec('3 1  2', 'A C  F', 'X Z', 'A  D', '1 A  D', 'W  Z') },
    ],
  },
  {
    name: 'decimal-point-is-comma',
    description:
      'DECIMAL-POINT IS COMMA: the comma is the decimal point and the period the grouping character, in Z, floating $, CR, * and floating - pictures',
    copybook: DECIMAL_COMMA,
    options: { ...GNUCOBOL, decimalPointIsComma: true },
    specialNames: ['DECIMAL-POINT IS COMMA'],
    vectors: [
      { name: 'zero', values: dcRec(0, 0, 0, 0, 0, 0) },
      { name: 'values', values: dcRec(1234.5, -12.34, 1.05, -0.5, 0.5, 123.45) },
      { name: 'largest', values: dcRec(99999.99, 99999.99, 999999.99, -9999.9, 999.99, 999.99) },
    ],
  },
  {
    name: 'currency-sign',
    description: 'CURRENCY SIGN IS "£" (Latin-1): the sign in pictures and data, fixed and floating',
    copybook: fixed(
      '01 CS-REC.',
      '   05 CS-FLOAT PIC £££9.99CR.',
      '   05 CS-FIXED PIC £ZZ,ZZ9.',
      '   05 CS-STAR  PIC £**9.99.',
    ),
    options: { ...GNUCOBOL, encoding: 'latin1', currencySign: '£' },
    specialNames: ['CURRENCY SIGN IS "£"'],
    vectors: [
      { name: 'zero', values: { csFloat: 0, csFixed: 0, csStar: 0 } },
      { name: 'values', values: { csFloat: -1.5, csFixed: 12, csStar: 3.25 } },
      { name: 'largest', values: { csFloat: 999.99, csFixed: 99999, csStar: 999.99 } },
    ],
  },
  {
    name: 'numeric-edited-cp037',
    description: 'CP037: numeric-edited and alphanumeric-edited items translated to EBCDIC',
    copybook: fixed(
      '01 NC-REC.',
      '   05 NC-FCUR  PIC $$$,$$9.99CR.',
      '   05 NC-STAR  PIC ***9.99.',
      '   05 NC-FPLUS PIC ++++9.',
      '   05 NC-DATE  PIC XX/XX/XX.',
    ),
    options: CP037,
    flags: ['-fsign=EBCDIC'],
    ebcdic: true,
    vectors: [
      { name: 'negative', values: { ncFcur: -1234.5, ncStar: 1.5, ncFplus: -12, ncDate: '311226' } },
      { name: 'positive', values: { ncFcur: 0.05, ncStar: 0, ncFplus: 0, ncDate: '01' } },
    ],
  },
];
