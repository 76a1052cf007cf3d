/**
 * The oracle's test cases: copybooks and values whose record bytes GnuCOBOL produces. Values are written in
 * the form `decode` returns (every field present, strings without trailing spaces, fixed tables at full
 * size, numbers above 15 digits as decimal strings); `decoded` is given only where encode's input differs.
 */
import { COPY_CASES } from './cases-copy.ts';
import { LAYOUT_CASES } from './cases-layout.ts';
import { FLOAT_CASES } from './cases-float.ts';
import { EDITED_CASES } from './cases-edited.ts';
import type { OracleCase, OracleOptions } from './fixture.ts';

const fixed = (...lines: string[]) => lines.map((l) => `       ${l}`);

const NEGATIVE_ZERO =
  "A JSON zero has no sign: the codec writes positive zero (IBM's preferred sign). cobc keeps the sign of a -0 literal in some fields and not others; decode reads both as 0.";

const GNUCOBOL: OracleOptions = { profile: 'gnucobol' };
/** z/OS data as GnuCOBOL lays it out: cp037 and C/D signs, but GnuCOBOL's binary sizes and native byte order. */
const CP037: OracleOptions = { profile: 'zos', binarySizes: 'gnucobol', comp5ByteOrder: 'little' };

/** A JSON number, or a decimal string where a double cannot hold the value or a sign ("-0") must be kept. */
type Num = number | string;

const DIGITS = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];

// ── alphanumeric ─────────────────────────────────────────────────────────────

const ALNUM = fixed(
  '01 ALNUM-REC.',
  '   05 AN-CODE      PIC X(8).',
  '   05 AN-NAME      PIC A(10).',
  '   05 AN-RIGHT     PIC X(6) JUSTIFIED RIGHT.',
  '   05 AN-JUST      PIC A(5) JUST.',
  "   05 FILLER       PIC X(2) VALUE '**'.",
  '   05 AN-ADDR.',
  '      10 AN-STREET PIC X(12).',
  '      10 AN-CITY.',
  '         15 AN-TOWN PIC X(7).',
  "         15 FILLER  PIC X VALUE '/'.",
  '         15 AN-ZIP  PIC X(5).',
  '   05 AN-ONE       PIC X.',
);

const alnum = (
  code: string,
  name: string,
  right: string,
  just: string,
  street: string,
  town: string,
  zip: string,
  one: string,
) => ({
  anCode: code,
  anName: name,
  anRight: right,
  anJust: just,
  anAddr: { anStreet: street, anCity: { anTown: town, anZip: zip } },
  anOne: one,
});

// ── zoned decimal ────────────────────────────────────────────────────────────

const ZONED_UNSIGNED = fixed(
  '01 UNSIGNED-REC.',
  '   05 ZU-ONE     PIC 9.',
  '   05 ZU-FIVE    PIC 9(5).',
  '   05 ZU-DEC     PIC 9(3)V99.',
  '   05 ZU-FRAC    PIC V999.',
  '   05 ZU-BIG     PIC 9(18).',
  '   05 ZU-BWZ     PIC 9(4) BLANK WHEN ZERO.',
);

const zu = (one: Num, five: Num, dec: Num, frac: Num, big: string, bwz: Num) => ({
  zuOne: one,
  zuFive: five,
  zuDec: dec,
  zuFrac: frac,
  zuBig: big,
  zuBwz: bwz,
});

const ZONED_SIGNED = fixed(
  '01 SIGNED-REC.',
  '   05 ZS-TRAIL   PIC S9(5).',
  '   05 ZS-LEAD    PIC S9(5) SIGN IS LEADING.',
  '   05 ZS-LSEP    PIC S9(5) SIGN LEADING SEPARATE CHARACTER.',
  '   05 ZS-TSEP    PIC S9(5) SIGN IS TRAILING SEPARATE.',
  '   05 ZS-TRAIL-T PIC S9(3) SIGN TRAILING.',
  '   05 ZS-DEC     PIC S9(3)V99.',
  '   05 ZS-LDEC    PIC S9(3)V99 LEADING.',
  '   05 ZS-SDEC    PIC S9V9(3) LEADING SEPARATE.',
  '   05 ZS-TDEC    PIC S9(2)V9 TRAILING SEPARATE.',
  '   05 ZS-ONE     PIC S9.',
);

/**
 * Every digit in every sign position, positive and negative: the last digit d for trailing signs, the first for
 * leading.
 */
function signedVectors(negative: boolean) {
  const s = negative ? -1 : 1;
  return DIGITS.map((d) => ({
    name: `${negative ? 'negative' : 'positive'}, sign digit ${d}`,
    values: {
      zsTrail: s * (12340 + d),
      zsLead: s * (d * 10000 + 1234),
      zsLsep: s * (d * 10000 + 5),
      zsTsep: s * (50000 + d),
      zsTrailT: s * (100 + d),
      zsDec: s * Number(`12${d}.5`),
      zsLdec: s * Number(`${d}12.34`),
      zsSdec: s * Number(`${d}.125`),
      zsTdec: s * Number(`4${d}.${d}`),
      zsOne: s * d,
    },
  }));
}

const signedAll = (v: number | string) => ({
  zsTrail: v,
  zsLead: v,
  zsLsep: v,
  zsTsep: v,
  zsTrailT: v,
  zsDec: v,
  zsLdec: v,
  zsSdec: v,
  zsTdec: v,
  zsOne: v,
});

// ── binary ───────────────────────────────────────────────────────────────────

const BINARY = fixed(
  '01 BINARY-REC.',
  '   05 BN-U1   PIC 9(2) COMP.',
  '   05 BN-S1   PIC S9(2) COMP.',
  '   05 BN-U2   PIC 9(4) BINARY.',
  '   05 BN-S2   PIC S9(4) COMP-4.',
  '   05 BN-U3   PIC 9(3) COMP.',
  '   05 BN-U4   PIC 9(9) COMP.',
  '   05 BN-S4   PIC S9(9) COMPUTATIONAL.',
  '   05 BN-S10  PIC S9(10) COMP.',
  '   05 BN-U8   PIC 9(18) COMP.',
  '   05 BN-S8   PIC S9(18) BINARY.',
  '   05 BN-DEC  PIC S9(5)V99 COMP.',
  '   05 BN-UDEC PIC 9(2)V9 USAGE IS COMPUTATIONAL-4.',
);

const bn = (
  u1: Num,
  s1: Num,
  u2: Num,
  s2: Num,
  u3: Num,
  u4: Num,
  s4: Num,
  s10: Num,
  u8: string,
  s8: string,
  dec: Num,
  udec: Num,
) => ({
  bnU1: u1,
  bnS1: s1,
  bnU2: u2,
  bnS2: s2,
  bnU3: u3,
  bnU4: u4,
  bnS4: s4,
  bnS10: s10,
  bnU8: u8,
  bnS8: s8,
  bnDec: dec,
  bnUdec: udec,
});

const NATIVE = fixed(
  '01 NATIVE-REC.',
  '   05 N5-U1   PIC 9(2) COMP-5.',
  '   05 N5-S1   PIC S9(2) COMP-5.',
  '   05 N5-U2   PIC 9(4) COMP-5.',
  '   05 N5-S2   PIC S9(4) COMP-5.',
  '   05 N5-U4   PIC 9(9) COMP-5.',
  '   05 N5-S4   PIC S9(9) COMPUTATIONAL-5.',
  '   05 N5-U8   PIC 9(18) COMP-5.',
  '   05 N5-S8   PIC S9(18) COMP-5.',
  '   05 N5-DEC  PIC S9(5)V99 COMP-5.',
);

const n5 = (u1: Num, s1: Num, u2: Num, s2: Num, u4: Num, s4: Num, u8: string, s8: string, dec: Num) => ({
  n5U1: u1,
  n5S1: s1,
  n5U2: u2,
  n5S2: s2,
  n5U4: u4,
  n5S4: s4,
  n5U8: u8,
  n5S8: s8,
  n5Dec: dec,
});

// ── packed decimal ───────────────────────────────────────────────────────────

const PACKED = fixed(
  '01 PACKED-REC.',
  '   05 PK-U1   PIC 9 COMP-3.',
  '   05 PK-U3   PIC 9(3) COMP-3.',
  '   05 PK-U4   PIC 9(4) COMP-3.',
  '   05 PK-S5   PIC S9(5) COMP-3.',
  '   05 PK-S6   PIC S9(6) PACKED-DECIMAL.',
  '   05 PK-DEC  PIC S9(5)V99 COMP-3.',
  '   05 PK-UDEC PIC 9(2)V9(3) COMPUTATIONAL-3.',
  '   05 PK-S18  PIC S9(18) COMP-3.',
);

const pk = (u1: Num, u3: Num, u4: Num, s5: Num, s6: Num, dec: Num, udec: Num, s18: string) => ({
  pkU1: u1,
  pkU3: u3,
  pkU4: u4,
  pkS5: s5,
  pkS6: s6,
  pkDec: dec,
  pkUdec: udec,
  pkS18: s18,
});

// ── tables ───────────────────────────────────────────────────────────────────

const TABLES = fixed(
  '01 TABLE-REC.',
  '   05 TB-CODES  PIC X(2) OCCURS 3 TIMES.',
  '   05 TB-AMTS   PIC S9(3)V9 COMP-3 OCCURS 2.',
  '   05 TB-LINE   OCCURS 2 TIMES.',
  '      10 TB-SKU   PIC X(4).',
  '      10 TB-QTY   PIC 9(3).',
  '      10 TB-PRICE PIC S9(5)V99 COMP-3.',
  '      10 TB-TAGS  OCCURS 3 TIMES.',
  '         15 TB-TAG  PIC X(2).',
  '         15 TB-WT   PIC S9(2) COMP.',
  '      10 TB-FLAGS PIC X OCCURS 2.',
  '   05 TB-MATRIX OCCURS 2.',
  '      10 TB-ROW OCCURS 3.',
  '         15 TB-CELL PIC S9(3).',
);

const tag = (t: string, w: number) => ({ tbTag: t, tbWt: w });
const row = (a: number, b: number, c: number) => ({ tbRow: [{ tbCell: a }, { tbCell: b }, { tbCell: c }] });
const emptyLine = { tbSku: '', tbQty: 0, tbPrice: 0, tbTags: [tag('', 0), tag('', 0), tag('', 0)], tbFlags: ['', ''] };

const ODO = fixed(
  '01 ODO-REC.',
  '   05 OD-ID     PIC X(4).',
  '   05 OD-COUNT  PIC 9(2).',
  '   05 OD-ITEM OCCURS 0 TO 4 TIMES DEPENDING ON OD-COUNT.',
  '      10 OD-SKU  PIC X(3).',
  '      10 OD-QTY  PIC S9(3) COMP-3.',
);

const ODO_BINARY = fixed(
  '01 ODO-BIN-REC.',
  '   05 OB-HDR.',
  '      10 OB-N    PIC 9(4) COMP.',
  "      10 OB-KIND PIC X VALUE 'K'.",
  '   05 OB-BODY.',
  '      10 OB-VAL PIC S9(5) OCCURS 1 TO 5 TIMES',
  '                DEPENDING ON OB-N.',
);

const ODO_COUNTER_VALUE = fixed(
  '01 ODO-VALUE-REC.',
  '   05 OV-N      PIC 9 VALUE 2.',
  "   05 OV-ITEM   PIC X(2) VALUE 'IT'",
  '                OCCURS 1 TO 3 TIMES DEPENDING ON OV-N.',
);

// ── REDEFINES ────────────────────────────────────────────────────────────────

const REDEFINES = fixed(
  '01 REDEF-REC.',
  '   05 RD-TYPE    PIC X.',
  '   05 RD-PAYLOAD.',
  '      10 RD-NAME   PIC X(10).',
  '      10 RD-AGE    PIC 9(3).',
  '   05 RD-PAY-NUM REDEFINES RD-PAYLOAD.',
  '      10 RD-AMOUNT PIC S9(7)V99 COMP-3.',
  '      10 RD-COUNT  PIC 9(4) COMP.',
  '      10 FILLER    PIC X(6).',
  '   05 RD-PAY-RAW REDEFINES RD-PAYLOAD PIC X(13).',
  '   05 RD-DATE    PIC 9(8).',
  '   05 RD-DATE-PARTS REDEFINES RD-DATE.',
  '      10 RD-YEAR  PIC 9(4).',
  '      10 RD-MONTH PIC 99.',
  '      10 RD-DAY   PIC 99.',
  '   05 RD-TAIL    PIC X(2).',
);

const VIEWS = fixed(
  '01 VIEW-REC.',
  '   05 VW-BASE.',
  '      10 VW-CODE  PIC X(4).',
  '      10 VW-AMT   PIC S9(5)V99 COMP-3.',
  '      10 VW-QTY   PIC 9(4).',
  '   05 VW-CHARS REDEFINES VW-BASE.',
  '      10 VW-CH    PIC X OCCURS 12 TIMES.',
  '   05 VW-SHORT REDEFINES VW-BASE PIC X(3).',
  '   05 VW-END     PIC X.',
);

// ── VALUE and level 88 ───────────────────────────────────────────────────────

const VALUES = fixed(
  '01 VALUE-REC.',
  "   05 VL-STATUS  PIC X VALUE 'A'.",
  "      88 VL-ACTIVE VALUE 'A'.",
  "      88 VL-CLOSED VALUES ARE 'C' 'X'.",
  "   05 VL-NAME    PIC X(8) VALUE 'NONAME'.",
  '   05 VL-COUNT   PIC 9(3) VALUE 100.',
  '   05 VL-RATE    PIC S9(2)V99 VALUE -1.5.',
  '   05 VL-PACKED  PIC S9(5) COMP-3 VALUE -42.',
  '   05 VL-BIN     PIC 9(4) COMP VALUE 512.',
  '   05 VL-NATIVE  PIC S9(4) COMP-5 VALUE -3.',
  '   05 VL-ZERO    PIC 9(4) VALUE ZERO.',
  '   05 VL-SPACE   PIC X(3) VALUE SPACES.',
  '   05 VL-LEVEL   PIC 9 VALUE 1.',
  '      88 VL-LOW  VALUE 1 THRU 3.',
  '      88 VL-HIGH VALUE 7 THROUGH 9.',
  "   05 FILLER     PIC X(3) VALUE 'END'.",
  '   05 VL-NOVAL   PIC X(2).',
  '   05 VL-NONUM   PIC S9(3).',
  '   05 VL-LV      PIC X(2) VALUE LOW-VALUES.',
  '   05 VL-HV      PIC X(2) VALUE HIGH-VALUE.',
  '   05 VL-QUOTED  PIC X(6) VALUE "IT\'S".',
);

const valueDefaults = {
  vlStatus: 'A',
  vlName: 'NONAME',
  vlCount: 100,
  vlRate: -1.5,
  vlPacked: -42,
  vlBin: 512,
  vlNative: -3,
  vlZero: 0,
  vlSpace: '',
  vlLevel: 1,
  vlNoval: '',
  vlNonum: 0,
  vlLv: '\u0000\u0000',
  vlHv: '\u00ff\u00ff',
  vlQuoted: "IT'S",
};

const GROUP_VALUE = fixed(
  '01 GROUP-VALUE-REC.',
  "   05 GV-GROUP   VALUE 'GRPVAL'.",
  '      10 GV-G1   PIC X(3).',
  '      10 GV-G2   PIC X(3).',
  '   05 GV-ZEROS   VALUE ZEROS.',
  '      10 GV-Z1   PIC 9(2).',
  '      10 GV-Z2   PIC X(2).',
  '   05 GV-AFTER   PIC X(2).',
);

// ── large values ─────────────────────────────────────────────────────────────

const LARGE = fixed(
  '01 LARGE-REC.',
  '   05 LG-ZONED   PIC S9(15)V99.',
  '   05 LG-PACKED  PIC S9(15)V99 COMP-3.',
  '   05 LG-BIN     PIC S9(18) COMP.',
  '   05 LG-UBIN    PIC 9(18) COMP.',
  '   05 LG-UZONED  PIC 9(18).',
  '   05 LG-SEP     PIC S9(16)V99 SIGN LEADING SEPARATE.',
  '   05 LG-N15     PIC S9(13)V99 COMP-3.',
);

const lg = (zoned: string, packed: string, bin: string, ubin: string, uzoned: string, sep: string, n15: Num) => ({
  lgZoned: zoned,
  lgPacked: packed,
  lgBin: bin,
  lgUbin: ubin,
  lgUzoned: uzoned,
  lgSep: sep,
  lgN15: n15,
});

// ── source format and inherited clauses ─────────────────────────────────────

const FIXED_FORMAT = [
  '000100* A FIXED-FORMAT COPYBOOK: SEQUENCE NUMBERS, COMMENTS, AN              FIXFMT01',
  '000200* IDENTIFICATION AREA (COLUMNS 73-80) AND A CONTINUED LITERAL.         FIXFMT02',
  '000300 01 FIXED-REC.                                                         FIXFMT03',
  '000400    05 FX-SIGNED SIGN IS LEADING SEPARATE CHARACTER.                   FIXFMT04',
  '000500       10 FX-A     PIC S9(3).                                          FIXFMT05',
  '000600       10 FX-B     PIC S9(2)V9.                                        FIXFMT06',
  '000700/   05 FX-NOT-AN-ITEM PIC X(99).                                       FIXFMT07',
  '000800    05 FX-PACKED USAGE IS COMP-3.                                      FIXFMT08',
  '000900       10 FX-P1    PIC S9(3).                                          FIXFMT09',
  '001000       10 FX-P2    PIC 9(2).                                           FIXFMT10',
  "001100    05 FX-TAGS     PIC X(2) VALUE 'AB' OCCURS 3 TIMES.                 FIXFMT11",
  '001200    05 FX-NUMS     PIC S9(3) VALUE -5 OCCURS 2 TIMES.                  FIXFMT12',
  "001300    05 FX-TEXT     PIC X(60) VALUE 'A LITERAL ENDING AT COLUMN 72 FIXFMT13",
  "001400-    'IS CONTINUED'.                                                   FIXFMT14",
  '001500    05 FX-LAST     PIC X(4).                                           FIXFMT15',
];

const fixedDefaults = {
  fxSigned: { fxA: 0, fxB: 0 },
  fxPacked: { fxP1: 0, fxP2: 0 },
  fxTags: ['AB', 'AB', 'AB'],
  fxNums: [-5, -5],
  fxText: 'A LITERAL ENDING AT COLUMN 72 IS CONTINUED',
  fxLast: '',
};

const FREE_FORMAT = [
  '01 FREE-REC. *> a free-format copybook: code from column 1, *> comments, no column 72',
  "  05 FR-TEXT PIC X(80) VALUE 'a free-format literal runs past column seventy-two without any continuation'.",
  '   05 FR-NUM PIC S9(3)V9 COMP-3 VALUE -12.5.',
  '*> a full-line comment',
  '  05 FR-TAIL PIC X(3).',
];

const ODO_NESTED = fixed(
  '01 ODO-NESTED-REC.',
  '   05 ON-COUNT  PIC 9 COMP-3.',
  '   05 ON-ROW OCCURS 1 TO 3 TIMES DEPENDING ON ON-COUNT.',
  '      10 ON-KEY   PIC X(2).',
  '      10 ON-CELL  PIC S9(3)V9 COMP-3 OCCURS 2 TIMES.',
  '      10 ON-PAIR  OCCURS 2 TIMES.',
  '         15 ON-P1 PIC X.',
  '         15 ON-P2 PIC S9 SIGN TRAILING SEPARATE.',
);

const onRow = (key: string, c1: number, c2: number, p: string, q: number) => ({
  onKey: key,
  onCell: [c1, c2],
  onPair: [
    { onP1: p, onP2: q },
    { onP1: '', onP2: 0 },
  ],
});

// ── CP037 ────────────────────────────────────────────────────────────────────

const CP_ZONED = fixed(
  '01 CP-ZONED-REC.',
  '   05 CZ-UNS     PIC 9(5).',
  '   05 CZ-UDEC    PIC 9(3)V99.',
  '   05 CZ-TRAIL   PIC S9(5).',
  '   05 CZ-LEAD    PIC S9(5) SIGN LEADING.',
  '   05 CZ-LSEP    PIC S9(5) SIGN LEADING SEPARATE.',
  '   05 CZ-TSEP    PIC S9(5) SIGN TRAILING SEPARATE.',
  '   05 CZ-DEC     PIC S9(3)V99.',
  '   05 CZ-BIG     PIC S9(15)V99.',
);

function cpZonedVectors(negative: boolean) {
  const s = negative ? -1 : 1;
  return DIGITS.map((d) => ({
    name: `${negative ? 'negative' : 'positive'}, sign digit ${d}`,
    values: {
      czUns: 12340 + d,
      czUdec: Number(`${d}45.6${d}`),
      czTrail: s * (12340 + d),
      czLead: s * (d * 10000 + 1234),
      czLsep: s * (d * 10000 + 5),
      czTsep: s * (50000 + d),
      czDec: s * Number(`12${d}.5`),
      czBig: `${negative ? '-' : ''}12345678901234${d}.6${d === 0 ? '' : d}`,
    },
  }));
}

const CP_MIXED = fixed(
  '01 CP-MIXED-REC.',
  '   05 CM-NAME    PIC X(20).',
  '   05 CM-ALPHA   PIC A(6).',
  '   05 CM-JUST    PIC X(5) JUST RIGHT.',
  "   05 FILLER     PIC X(2) VALUE '--'.",
  "   05 CM-CODE    PIC X(4) VALUE 'AB/1'.",
  '   05 CM-PACKED  PIC S9(7)V99 COMP-3.',
  '   05 CM-UPACK   PIC 9(4) COMP-3.',
  '   05 CM-QTY     PIC 9(5) VALUE 7.',
  '   05 CM-AMT     PIC S9(5)V99.',
  '   05 CM-BIN     PIC S9(4) COMP.',
  '   05 CM-NAT     PIC 9(4) COMP-5.',
  '   05 CM-LINE OCCURS 2.',
  '      10 CM-SKU  PIC X(3).',
  '      10 CM-CNT  PIC S9(3) COMP-3.',
  '      10 CM-ZN   PIC S9(3) LEADING SEPARATE.',
);

const cmLine = (sku: string, cnt: number, zn: number) => ({ cmSku: sku, cmCnt: cnt, cmZn: zn });

// ── random values (seeded, so the fixtures are stable) ──────────────────────

/** mulberry32: a small seeded PRNG; the same seed gives the same vectors on every run. */
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

interface RandomField {
  key: string;
  /** digits and scale for numbers; length for text */
  kind: 'text' | 'alpha' | 'number' | 'range';
  size: number;
  scale?: number;
  signed?: boolean;
  /** decode gives a decimal string (more than 15 digits in the field or its storage range) */
  asString?: boolean;
  /** 'range': the storage range of a COMP-5 item */
  min?: bigint;
  max?: bigint;
}

/** A value as decode returns it: a JSON number up to 15 digits, else a canonical decimal string. */
function canonical(n: bigint, scale: number, asString: boolean): number | string {
  const neg = n < 0n;
  const abs = neg ? -n : n;
  const p = 10n ** BigInt(scale);
  const frac = scale === 0 ? '' : (abs % p).toString().padStart(scale, '0').replace(/0+$/, '');
  const text = `${neg ? '-' : ''}${abs / p}${frac === '' ? '' : `.${frac}`}`;
  return asString ? text : Number(text);
}

function randomValue(f: RandomField, rnd: () => number, alphabet: string): unknown {
  const pick = (chars: string) => chars[Math.floor(rnd() * chars.length)]!;
  if (f.kind === 'text' || f.kind === 'alpha') {
    const chars = f.kind === 'alpha' ? 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz ' : alphabet;
    const length = Math.floor(rnd() * (f.size + 1));
    return Array.from({ length }, () => pick(chars))
      .join('')
      .replace(/ +$/, '');
  }
  if (f.kind === 'range') {
    const span = f.max! - f.min! + 1n;
    const r =
      (BigInt(Math.floor(rnd() * 2 ** 30)) << 34n) ^
      BigInt(Math.floor(rnd() * 2 ** 30)) ^
      (BigInt(Math.floor(rnd() * 2 ** 30)) << 17n);
    // favour the ends of the range now and then
    const x = rnd() < 0.2 ? (rnd() < 0.5 ? f.min! : f.max!) : f.min! + (r % span);
    return canonical(x, f.scale ?? 0, f.asString === true);
  }
  const count = rnd() < 0.2 ? f.size : Math.floor(rnd() * (f.size + 1));
  const digits = Array.from({ length: count }, () => pick(rnd() < 0.15 ? '9' : '0123456789')).join('') || '0';
  const negative = f.signed === true && rnd() < 0.5;
  return canonical((negative ? -1n : 1n) * BigInt(digits), f.scale ?? 0, f.asString === true);
}

function randomVectors(
  seed: number,
  count: number,
  fields: RandomField[],
  alphabet: string,
  shape: (v: Record<string, unknown>) => Record<string, unknown>,
) {
  const rnd = prng(seed);
  return Array.from({ length: count }, (_, i) => {
    const flat: Record<string, unknown> = {};
    for (const f of fields) flat[f.key] = randomValue(f, rnd, alphabet);
    return { name: `random ${i + 1} (seed ${seed})`, values: shape(flat) };
  });
}

const RANDOM = fixed(
  '01 RANDOM-REC.',
  '   05 RN-X     PIC X(7).',
  '   05 RN-A     PIC A(4).',
  '   05 RN-U     PIC 9(7).',
  '   05 RN-UD    PIC 9(4)V9(3).',
  '   05 RN-T     PIC S9(6)V99.',
  '   05 RN-L     PIC S9(5) LEADING.',
  '   05 RN-LS    PIC S9(4)V9 LEADING SEPARATE.',
  '   05 RN-TS    PIC S9(7) TRAILING SEPARATE.',
  '   05 RN-B1    PIC S99 COMP.',
  '   05 RN-B2    PIC 9(4) COMP.',
  '   05 RN-B4    PIC S9(7)V99 COMP.',
  '   05 RN-B8    PIC S9(17) COMP.',
  '   05 RN-N2    PIC S9(4) COMP-5.',
  '   05 RN-N8    PIC 9(12) COMP-5.',
  '   05 RN-P1    PIC S9(7)V99 COMP-3.',
  '   05 RN-P2    PIC 9(6) COMP-3.',
  '   05 RN-P3    PIC S9(16)V9 COMP-3.',
  '   05 RN-Z17   PIC S9(15)V99.',
  '   05 RN-TAB OCCURS 2.',
  '      10 RN-TX  PIC X(3).',
  '      10 RN-TP  PIC S9(3) COMP-3.',
);

const RANDOM_FIELDS: RandomField[] = [
  { key: 'rnX', kind: 'text', size: 7 },
  { key: 'rnA', kind: 'alpha', size: 4 },
  { key: 'rnU', kind: 'number', size: 7 },
  { key: 'rnUd', kind: 'number', size: 7, scale: 3 },
  { key: 'rnT', kind: 'number', size: 8, scale: 2, signed: true },
  { key: 'rnL', kind: 'number', size: 5, signed: true },
  { key: 'rnLs', kind: 'number', size: 5, scale: 1, signed: true },
  { key: 'rnTs', kind: 'number', size: 7, signed: true },
  { key: 'rnB1', kind: 'number', size: 2, signed: true },
  { key: 'rnB2', kind: 'number', size: 4 },
  { key: 'rnB4', kind: 'number', size: 9, scale: 2, signed: true },
  { key: 'rnB8', kind: 'number', size: 17, signed: true, asString: true },
  { key: 'rnN2', kind: 'range', size: 0, min: -32768n, max: 32767n },
  { key: 'rnN8', kind: 'number', size: 12, asString: true },
  { key: 'rnP1', kind: 'number', size: 9, scale: 2, signed: true },
  { key: 'rnP2', kind: 'number', size: 6 },
  { key: 'rnP3', kind: 'number', size: 17, scale: 1, signed: true, asString: true },
  { key: 'rnZ17', kind: 'number', size: 17, scale: 2, signed: true, asString: true },
  { key: 'tx1', kind: 'text', size: 3 },
  { key: 'tp1', kind: 'number', size: 3, signed: true },
  { key: 'tx2', kind: 'text', size: 3 },
  { key: 'tp2', kind: 'number', size: 3, signed: true },
];

const randomShape = ({ tx1, tp1, tx2, tp2, ...rest }: Record<string, unknown>) => ({
  ...rest,
  rnTab: [
    { rnTx: tx1, rnTp: tp1 },
    { rnTx: tx2, rnTp: tp2 },
  ],
});

const ASCII_PRINTABLE = Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)).join('');
/** Characters on which GnuCOBOL's EBCDIC alphabet and cp037 agree (see gnucobol-ebcdic-table.json). */
const CP037_SAFE = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789 .,-/'";

export const CASES: OracleCase[] = [
  {
    name: 'alphanumeric',
    description: 'PIC X and A, JUSTIFIED RIGHT, FILLER with VALUE, nested groups',
    copybook: ALNUM,
    options: GNUCOBOL,
    vectors: [
      {
        name: 'every field full',
        values: alnum('AB-12/X.', 'JOHN SMITH', '42', 'ABC', '1 MAIN ST.', 'SPRINGS', '12345', 'Z'),
      },
      { name: 'every field empty', values: alnum('', '', '', '', '', '', '', '') },
      {
        name: 'punctuation, lower case, right-justified',
        values: alnum("O'BRIEN,", 'Ann Lee', 'a b', 'xy', 'C/O #4 APT-9', 'ST. LOU', '00000', "'"),
      },
      {
        name: 'full-width right-justified',
        values: alnum('x', 'Z', 'ABCDEF', 'ABCDE', '(a)=[b];{c}', '~!@$%^&', '*+?<>', '"'),
      },
      {
        name: 'fields left out take spaces',
        values: { anName: 'ONLY', anAddr: { anCity: { anZip: '9' } } },
        decoded: alnum('', 'ONLY', '', '', '', '', '9', ''),
      },
    ],
  },
  {
    name: 'zoned-unsigned',
    description:
      'PIC 9 zoned decimal, implied decimals (V), 18 digits, BLANK WHEN ZERO (integer: GnuCOBOL 3.1.2 gives a PIC 9(3)V9 BLANK WHEN ZERO item 5 bytes, counting the V)',
    copybook: ZONED_UNSIGNED,
    options: GNUCOBOL,
    vectors: [
      { name: 'zero', values: zu(0, 0, 0, 0, '0', 0) },
      { name: 'typical', values: zu(7, 12345, 123.45, 0.125, '123456789012345678', 42) },
      { name: 'maximum', values: zu(9, 99999, 999.99, 0.999, '999999999999999999', 9999) },
      { name: 'small', values: zu(1, 1, 0.01, 0.001, '1', 1) },
    ],
  },
  {
    name: 'zoned-signed',
    description: 'PIC S9 zoned: trailing and leading overpunch, LEADING/TRAILING SEPARATE, with decimals',
    copybook: ZONED_SIGNED,
    options: GNUCOBOL,
    vectors: [
      ...signedVectors(false),
      ...signedVectors(true),
      { name: 'zero', values: signedAll(0) },
      {
        name: 'negative zero',
        values: signedAll('-0'),
        decoded: signedAll(0),
        codecDiffers: {
          hex: '303030303030303030302b303030303030303030302b303030303030303030303030302b303030303030302b30',
          why: NEGATIVE_ZERO,
        },
      },
      {
        name: 'maximum',
        values: {
          zsTrail: 99999,
          zsLead: 99999,
          zsLsep: 99999,
          zsTsep: 99999,
          zsTrailT: 999,
          zsDec: 999.99,
          zsLdec: 999.99,
          zsSdec: 9.999,
          zsTdec: 99.9,
          zsOne: 9,
        },
      },
      {
        name: 'minimum',
        values: {
          zsTrail: -99999,
          zsLead: -99999,
          zsLsep: -99999,
          zsTsep: -99999,
          zsTrailT: -999,
          zsDec: -999.99,
          zsLdec: -999.99,
          zsSdec: -9.999,
          zsTdec: -99.9,
          zsOne: -9,
        },
      },
      {
        name: 'negative decimals below one',
        values: {
          zsTrail: -1,
          zsLead: -1,
          zsLsep: -1,
          zsTsep: -1,
          zsTrailT: -1,
          zsDec: -0.01,
          zsLdec: -0.5,
          zsSdec: -0.001,
          zsTdec: -0.1,
          zsOne: -1,
        },
      },
    ],
  },
  {
    name: 'binary',
    description: 'COMP / COMP-4 / BINARY under GnuCOBOL sizes (1/2/4/8 bytes, big-endian), signed and unsigned, with V',
    copybook: BINARY,
    options: GNUCOBOL,
    vectors: [
      { name: 'zero', values: bn(0, 0, 0, 0, 0, 0, 0, 0, '0', '0', 0, 0) },
      {
        name: 'typical positive',
        values: bn(
          7,
          7,
          1234,
          1234,
          123,
          123456789,
          123456789,
          1234567890,
          '123456789012345678',
          '123456789012345678',
          123.45,
          1.5,
        ),
      },
      {
        name: 'typical negative',
        values: bn(1, -7, 1, -1234, 1, 1, -123456789, -1234567890, '1', '-123456789012345678', -123.45, 0.1),
      },
      {
        name: 'maximum',
        values: bn(
          99,
          99,
          9999,
          9999,
          999,
          999999999,
          999999999,
          9999999999,
          '999999999999999999',
          '999999999999999999',
          99999.99,
          99.9,
        ),
      },
      {
        name: 'minimum',
        values: bn(0, -99, 0, -9999, 0, 0, -999999999, -9999999999, '0', '-999999999999999999', -99999.99, 0),
      },
      {
        name: 'negative zero',
        values: bn(0, 0, 0, 0, 0, 0, 0, 0, '0', '-0', '-0.00', 0),
        decoded: bn(0, 0, 0, 0, 0, 0, 0, 0, '0', '0', 0, 0),
      },
    ],
  },
  {
    name: 'comp5',
    description:
      'COMP-5 (native binary, little-endian on x86-64), signed and unsigned, values beyond the picture inside the size',
    copybook: NATIVE,
    options: GNUCOBOL,
    vectors: [
      { name: 'zero', values: n5(0, 0, 0, 0, 0, 0, '0', '0', 0) },
      {
        name: 'inside the picture',
        values: n5(42, -42, 1234, -1234, 123456789, -123456789, '123456789012345678', '-123456789012345678', -123.45),
      },
      {
        name: 'size maximum, beyond the picture',
        values: n5(
          255,
          127,
          65535,
          32767,
          4294967295,
          2147483647,
          '18446744073709551615',
          '9223372036854775807',
          21474836.47,
        ),
      },
      {
        name: 'size minimum, beyond the picture',
        values: n5(0, -128, 0, -32768, 0, -2147483648, '0', '-9223372036854775808', -21474836.48),
      },
    ],
  },
  {
    name: 'packed',
    description:
      'COMP-3 / PACKED-DECIMAL: odd and even digit counts, signed (C/D) and unsigned (F), decimals, 18 digits',
    copybook: PACKED,
    options: GNUCOBOL,
    vectors: [
      { name: 'zero', values: pk(0, 0, 0, 0, 0, 0, 0, '0') },
      { name: 'typical', values: pk(7, 123, 1234, 12345, 123456, 123.45, 12.345, '123456789012345678') },
      { name: 'negative', values: pk(1, 1, 1, -12345, -123456, -123.45, 0.001, '-123456789012345678') },
      { name: 'maximum', values: pk(9, 999, 9999, 99999, 999999, 99999.99, 99.999, '999999999999999999') },
      { name: 'minimum', values: pk(0, 0, 0, -99999, -999999, -99999.99, 0, '-999999999999999999') },
      {
        name: 'negative zero',
        values: pk(0, 0, 0, '-0', '-0', '-0.00', 0, '-0'),
        decoded: pk(0, 0, 0, 0, 0, 0, 0, '0'),
        codecDiffers: { hex: '0f000f00000f00000c0000000c0000000c00000f0000000000000000000c', why: NEGATIVE_ZERO },
      },
    ],
  },
  {
    name: 'occurs',
    description: 'OCCURS on elementary items and on groups, nested OCCURS (group in group, elementary in group)',
    copybook: TABLES,
    options: GNUCOBOL,
    vectors: [
      {
        name: 'every element set',
        values: {
          tbCodes: ['AA', 'BB', 'CC'],
          tbAmts: [12.5, -0.5],
          tbLine: [
            {
              tbSku: 'SKU1',
              tbQty: 1,
              tbPrice: 19.99,
              tbTags: [tag('T1', 1), tag('T2', -2), tag('T3', 99)],
              tbFlags: ['Y', 'N'],
            },
            {
              tbSku: 'SKU2',
              tbQty: 999,
              tbPrice: -0.01,
              tbTags: [tag('U1', -99), tag('U2', 0), tag('U3', 3)],
              tbFlags: ['A', 'B'],
            },
          ],
          tbMatrix: [row(1, -2, 3), row(-4, 5, -999)],
        },
      },
      {
        name: 'short arrays leave the rest at defaults',
        values: { tbCodes: ['X'], tbLine: [{ tbSku: 'ONE', tbTags: [tag('Q', 5)] }], tbMatrix: [row(0, 0, 7)] },
        decoded: {
          tbCodes: ['X', '', ''],
          tbAmts: [0, 0],
          tbLine: [{ ...emptyLine, tbSku: 'ONE', tbTags: [tag('Q', 5), tag('', 0), tag('', 0)] }, emptyLine],
          tbMatrix: [row(0, 0, 7), row(0, 0, 0)],
        },
      },
    ],
  },
  {
    name: 'occurs-depending-on',
    description: 'OCCURS 0 TO 4 DEPENDING ON a zoned counter: variable-length record, group elements',
    copybook: ODO,
    options: GNUCOBOL,
    vectors: [
      { name: 'no elements', values: { odId: 'NONE', odCount: 0, odItem: [] } },
      {
        name: 'two elements',
        values: {
          odId: 'TWO',
          odCount: 2,
          odItem: [
            { odSku: 'ABC', odQty: 5 },
            { odSku: 'XY', odQty: -12 },
          ],
        },
      },
      {
        name: 'counter left out: taken from the array',
        values: {
          odId: 'FULL',
          odItem: [
            { odSku: 'A', odQty: 1 },
            { odSku: 'B', odQty: -2 },
            { odSku: 'C', odQty: 999 },
            { odSku: 'D', odQty: -999 },
          ],
        },
        decoded: {
          odId: 'FULL',
          odCount: 4,
          odItem: [
            { odSku: 'A', odQty: 1 },
            { odSku: 'B', odQty: -2 },
            { odSku: 'C', odQty: 999 },
            { odSku: 'D', odQty: -999 },
          ],
        },
      },
      {
        name: 'element fields left out take defaults',
        values: { odId: 'PART', odItem: [{ odSku: 'P' }] },
        decoded: { odId: 'PART', odCount: 1, odItem: [{ odSku: 'P', odQty: 0 }] },
      },
    ],
  },
  {
    name: 'occurs-depending-on-binary-counter',
    description:
      'OCCURS 1 TO 5 DEPENDING ON a COMP counter in a header group; elementary signed zoned elements; VALUE in the header',
    copybook: ODO_BINARY,
    options: GNUCOBOL,
    vectors: [
      { name: 'one element', values: { obHdr: { obN: 1, obKind: 'K' }, obBody: { obVal: [-1] } } },
      {
        name: 'five elements',
        values: { obHdr: { obN: 5, obKind: 'Z' }, obBody: { obVal: [1, -22, 333, -4444, 99999] } },
      },
      {
        name: 'counter and kind left out',
        values: { obBody: { obVal: [7, -7, 0] } },
        decoded: { obHdr: { obN: 3, obKind: 'K' }, obBody: { obVal: [7, -7, 0] } },
      },
    ],
  },
  {
    name: 'occurs-depending-on-counter-value',
    description:
      "OCCURS DEPENDING ON a counter with a VALUE: with neither counter nor table in the JSON, COBOL's record has VALUE elements",
    copybook: ODO_COUNTER_VALUE,
    options: GNUCOBOL,
    vectors: [
      { name: 'counter and table left out', values: {}, decoded: { ovN: 2, ovItem: ['IT', 'IT'] } },
      { name: 'table given', values: { ovItem: ['A', 'B', 'C'] }, decoded: { ovN: 3, ovItem: ['A', 'B', 'C'] } },
      { name: 'counter given', values: { ovN: 1 }, decoded: { ovN: 1, ovItem: ['IT'] } },
    ],
  },
  {
    name: 'redefines-default-view',
    description: 'REDEFINES of a group and of an elementary item; decode and encode use the first view',
    copybook: REDEFINES,
    options: GNUCOBOL,
    vectors: [
      {
        name: 'first views',
        values: { rdType: 'P', rdPayload: { rdName: 'ALICE', rdAge: 42 }, rdDate: 20240229, rdTail: 'ZZ' },
      },
      {
        name: 'defaults',
        values: { rdType: 'E' },
        decoded: { rdType: 'E', rdPayload: { rdName: '', rdAge: 0 }, rdDate: 0, rdTail: '' },
      },
    ],
  },
  {
    name: 'redefines-selected-view',
    description:
      'REDEFINES views selected with mapping.redefines: packed+binary view over a text group, a group over a zoned date',
    copybook: REDEFINES,
    options: { ...GNUCOBOL, mapping: { redefines: { 'RD-PAYLOAD': 'RD-PAY-NUM', 'RD-DATE': 'RD-DATE-PARTS' } } },
    vectors: [
      {
        name: 'numeric view',
        values: {
          rdType: 'N',
          rdPayNum: { rdAmount: -12345.67, rdCount: 12 },
          rdDateParts: { rdYear: 2024, rdMonth: 2, rdDay: 29 },
          rdTail: 'AB',
        },
      },
      {
        name: 'maximum',
        values: {
          rdType: 'M',
          rdPayNum: { rdAmount: 9999999.99, rdCount: 9999 },
          rdDateParts: { rdYear: 9999, rdMonth: 12, rdDay: 31 },
          rdTail: '',
        },
      },
    ],
  },
  {
    name: 'redefines-selected-elementary-view',
    description: 'REDEFINES: an elementary PIC X view (the third view) selected with mapping.redefines',
    copybook: REDEFINES,
    options: { ...GNUCOBOL, mapping: { redefines: { 'RD-PAYLOAD': 'RD-PAY-RAW' } } },
    vectors: [
      { name: 'raw view', values: { rdType: 'R', rdPayRaw: 'RAW TEXT 123', rdDate: 19991231, rdTail: 'R' } },
      { name: 'raw view full', values: { rdType: 'R', rdPayRaw: 'ABCDEFGHIJKLM', rdDate: 1, rdTail: 'RR' } },
    ],
  },
  {
    name: 'redefines-table-view',
    description: 'REDEFINES: a view that is a table (OCCURS inside the view), selected with mapping.redefines',
    copybook: VIEWS,
    options: { ...GNUCOBOL, mapping: { redefines: { 'VW-BASE': 'VW-CHARS' } } },
    vectors: [
      { name: 'every element', values: { vwChars: { vwCh: 'ABCDEFGHIJKL'.split('') }, vwEnd: 'E' } },
      { name: 'digits and punctuation', values: { vwChars: { vwCh: "0123-/.,'()*".split('') }, vwEnd: '' } },
    ],
  },
  {
    name: 'redefines-short-view',
    description: "REDEFINES: a view shorter than the item it redefines; the rest keeps the first view's defaults",
    copybook: VIEWS,
    options: { ...GNUCOBOL, mapping: { redefines: { 'VW-BASE': 'VW-SHORT' } } },
    vectors: [
      { name: 'short view', values: { vwShort: 'XY', vwEnd: 'Z' } },
      { name: 'short view full', values: { vwShort: 'XYZ', vwEnd: '' } },
    ],
  },
  {
    name: 'value-and-88',
    description:
      'VALUE clauses (literals, ZERO, SPACES, LOW/HIGH-VALUE, quotes) are the defaults of fields left out; level-88 conditions',
    copybook: VALUES,
    options: GNUCOBOL,
    vectors: [
      { name: 'everything left out', values: {}, decoded: valueDefaults },
      {
        name: 'some fields set (allowed level-88 values)',
        values: { vlStatus: 'C', vlCount: 5, vlLevel: 8, vlNonum: -7 },
        decoded: { ...valueDefaults, vlStatus: 'C', vlCount: 5, vlLevel: 8, vlNonum: -7 },
      },
      {
        name: 'every field set',
        values: {
          vlStatus: 'X',
          vlName: 'SOMEONE',
          vlCount: 999,
          vlRate: 12.34,
          vlPacked: 99999,
          vlBin: 0,
          vlNative: 32767,
          vlZero: 1,
          vlSpace: 'ABC',
          vlLevel: 3,
          vlNoval: 'NV',
          vlNonum: 123,
          vlLv: 'LV',
          vlHv: 'HV',
          vlQuoted: 'QUOTED',
        },
      },
    ],
  },
  {
    name: 'group-value',
    description: 'VALUE on a group (alphanumeric literal, ZEROS) initialises its elementary items',
    copybook: GROUP_VALUE,
    options: GNUCOBOL,
    vectors: [
      {
        name: 'everything left out',
        values: {},
        decoded: { gvGroup: { gvG1: 'GRP', gvG2: 'VAL' }, gvZeros: { gvZ1: 0, gvZ2: '00' }, gvAfter: '' },
      },
      {
        name: 'one field set',
        values: { gvGroup: { gvG2: 'NEW' } },
        decoded: { gvGroup: { gvG1: 'GRP', gvG2: 'NEW' }, gvZeros: { gvZ1: 0, gvZ2: '00' }, gvAfter: '' },
      },
    ],
  },
  {
    name: 'large-values',
    description:
      'S9(15)V99 zoned and packed, 18-digit binaries and zoned, S9(16)V99 LEADING SEPARATE, as decimal strings',
    copybook: LARGE,
    options: GNUCOBOL,
    vectors: [
      {
        name: 'maximum',
        values: lg(
          '999999999999999.99',
          '999999999999999.99',
          '999999999999999999',
          '999999999999999999',
          '999999999999999999',
          '9999999999999999.99',
          9999999999999.99,
        ),
      },
      {
        name: 'minimum',
        values: lg(
          '-999999999999999.99',
          '-999999999999999.99',
          '-999999999999999999',
          '0',
          '0',
          '-9999999999999999.99',
          -9999999999999.99,
        ),
      },
      {
        name: 'typical',
        values: lg(
          '123456789012345.67',
          '-123456789012345.67',
          '-100000000000000000',
          '100000000000000001',
          '12345678901234567',
          '-1234567890123456.7',
          1234567890123.45,
        ),
      },
      { name: 'one cent', values: lg('-0.01', '0.01', '-1', '1', '1', '-0.01', -0.01) },
      { name: 'zero', values: lg('0', '0', '0', '0', '0', '0', 0) },
    ],
  },
  {
    name: 'zoned-ebcdic-sign-in-ascii',
    description:
      'zonedSign ebcdic alone over ASCII (options override one setting): cobc -fsign=EBCDIC without translation stores { A-I } J-R',
    copybook: ZONED_SIGNED,
    options: { profile: 'gnucobol', zonedSign: 'ebcdic' },
    flags: ['-fsign=EBCDIC'],
    vectors: [...signedVectors(false), ...signedVectors(true), { name: 'zero', values: signedAll(0) }],
  },
  {
    name: 'binary-ibm-sizes',
    description: 'binarySizes ibm alone (2/4/8 bytes by digits): cobc -fbinary-size=2-4-8',
    copybook: BINARY,
    options: { profile: 'gnucobol', binarySizes: 'ibm' },
    flags: ['-fbinary-size=2-4-8'],
    vectors: [
      {
        name: 'typical negative',
        values: bn(1, -7, 1, -1234, 1, 1, -123456789, -1234567890, '1', '-123456789012345678', -123.45, 0.1),
      },
      {
        name: 'maximum',
        values: bn(
          99,
          99,
          9999,
          9999,
          999,
          999999999,
          999999999,
          9999999999,
          '999999999999999999',
          '999999999999999999',
          99999.99,
          99.9,
        ),
      },
    ],
  },
  {
    name: 'fixed-format',
    description:
      'fixed-format source: sequence area, * and / comment lines, columns 73-80 ignored, a continued literal; SIGN and USAGE on groups; VALUE on table elements',
    copybook: FIXED_FORMAT,
    options: GNUCOBOL,
    vectors: [
      { name: 'everything left out', values: {}, decoded: fixedDefaults },
      {
        name: 'inherited SIGN and USAGE',
        values: { fxSigned: { fxA: -12, fxB: 1.5 }, fxPacked: { fxP1: -123, fxP2: 45 }, fxTags: ['X'], fxLast: 'LAST' },
        decoded: {
          ...fixedDefaults,
          fxSigned: { fxA: -12, fxB: 1.5 },
          fxPacked: { fxP1: -123, fxP2: 45 },
          fxTags: ['X', 'AB', 'AB'],
          fxLast: 'LAST',
        },
      },
    ],
  },
  {
    name: 'free-format',
    description: 'free-format source (format: free): *> comments, a literal past column 72',
    copybook: FREE_FORMAT,
    options: { ...GNUCOBOL, format: 'free' },
    vectors: [
      {
        name: 'defaults',
        values: {},
        decoded: {
          frText: 'a free-format literal runs past column seventy-two without any continuation',
          frNum: -12.5,
          frTail: '',
        },
      },
      { name: 'values', values: { frText: 'short', frNum: 999.9, frTail: 'END' } },
    ],
  },
  {
    name: 'occurs-depending-on-nested',
    description: 'OCCURS DEPENDING ON a packed counter, each element holding fixed OCCURS (elementary and group)',
    copybook: ODO_NESTED,
    options: GNUCOBOL,
    vectors: [
      { name: 'one row', values: { onCount: 1, onRow: [onRow('R1', 1.5, -2.5, 'A', -1)] } },
      {
        name: 'three rows',
        values: {
          onCount: 3,
          onRow: [onRow('R1', 999.9, -999.9, 'A', 9), onRow('R2', 0, 0, '', 0), onRow('R3', -0.1, 0.1, 'Z', -9)],
        },
      },
    ],
  },
  {
    name: 'latin1',
    description:
      'encoding latin1 alone: accented letters stored as one ISO-8859-1 byte each (the program source is written in Latin-1)',
    copybook: fixed(
      '01 LATIN-REC.',
      '   05 LT-NAME  PIC X(12).',
      '   05 LT-CITY  PIC X(8) JUSTIFIED RIGHT.',
      '   05 LT-AMT   PIC S9(3)V99.',
    ),
    options: { profile: 'gnucobol', encoding: 'latin1' },
    vectors: [
      { name: 'accents', values: { ltName: 'Café Noël', ltCity: 'Zürich', ltAmt: -1.5 } },
      { name: 'more accents', values: { ltName: 'ÀÉÎÕÜ ßñ ÿ', ltCity: 'Genève', ltAmt: 999.99 } },
    ],
  },
  {
    name: 'cp037-zoned',
    description: 'CP037: zoned unsigned and signed (trailing, leading, separate), every sign digit, with -fsign=EBCDIC',
    copybook: CP_ZONED,
    options: CP037,
    flags: ['-fsign=EBCDIC'],
    ebcdic: true,
    vectors: [
      ...cpZonedVectors(false),
      ...cpZonedVectors(true),
      {
        name: 'zero',
        values: { czUns: 0, czUdec: 0, czTrail: 0, czLead: 0, czLsep: 0, czTsep: 0, czDec: 0, czBig: '0' },
      },
      {
        name: 'maximum',
        values: {
          czUns: 99999,
          czUdec: 999.99,
          czTrail: 99999,
          czLead: 99999,
          czLsep: 99999,
          czTsep: 99999,
          czDec: 999.99,
          czBig: '999999999999999.99',
        },
      },
      {
        name: 'minimum',
        values: {
          czUns: 0,
          czUdec: 0,
          czTrail: -99999,
          czLead: -99999,
          czLsep: -99999,
          czTsep: -99999,
          czDec: -999.99,
          czBig: '-999999999999999.99',
        },
      },
    ],
  },
  {
    name: 'cp037-mixed',
    description:
      "CP037: alphanumeric (letters, digits, space, . , - / '), PIC A, JUSTIFIED, FILLER/VALUE, packed, zoned, a table; binaries stay native",
    copybook: CP_MIXED,
    options: CP037,
    flags: ['-fsign=EBCDIC'],
    ebcdic: true,
    vectors: [
      {
        name: 'typical',
        values: {
          cmName: "O'NEIL, J. - A/B 12",
          cmAlpha: 'Abc De',
          cmJust: '1.5',
          cmCode: 'XY-9',
          cmPacked: -1234567.89,
          cmUpack: 1234,
          cmQty: 42,
          cmAmt: -123.45,
          cmBin: -2,
          cmNat: 65535,
          cmLine: [cmLine('A1', 5, -5), cmLine('B-2', -999, 999)],
        },
      },
      {
        name: 'defaults',
        values: { cmName: 'abcdefghijklmnopqrst' },
        codecDiffers: {
          hex: '818283848586878889919293949596979899a2a340404040404040404040406060c1c261f1000000000c00000ff0f0f0f0f7f0f0f0f0f0f0c000000000404040000c4ef0f0f0404040000c4ef0f0f0',
          why: "CM-AMT (S9(5)V99, left to its default): GnuCOBOL's INITIALIZE under -fsign=EBCDIC leaves an unsigned F-zone zero; the codec writes +0 with the C sign, as z/OS does (and as cobc does for MOVE 0). decode reads both as 0.",
        },
        decoded: {
          cmName: 'abcdefghijklmnopqrst',
          cmAlpha: '',
          cmJust: '',
          cmCode: 'AB/1',
          cmPacked: 0,
          cmUpack: 0,
          cmQty: 7,
          cmAmt: 0,
          cmBin: 0,
          cmNat: 0,
          cmLine: [cmLine('', 0, 0), cmLine('', 0, 0)],
        },
      },
      {
        name: 'upper case and digits',
        values: {
          cmName: 'ABCDEFGHIJKLMNOPQRST',
          cmAlpha: 'UVWXYZ',
          cmJust: '67890',
          cmCode: '1234',
          cmPacked: 9999999.99,
          cmUpack: 9999,
          cmQty: 99999,
          cmAmt: 99999.99,
          cmBin: 9999,
          cmNat: 0,
          cmLine: [cmLine('UVW', 999, -999), cmLine('XYZ', -1, 1)],
        },
      },
    ],
  },
  {
    name: 'random-ascii',
    description:
      'seeded random values in every kind of field (zoned, separate signs, binaries, COMP-5 over its whole range, packed, a table)',
    copybook: RANDOM,
    options: GNUCOBOL,
    vectors: randomVectors(20261122, 40, RANDOM_FIELDS, ASCII_PRINTABLE, randomShape),
  },
  {
    name: 'random-cp037',
    description: 'CP037: seeded random values in the same record (DISPLAY bytes translated to EBCDIC, binaries native)',
    copybook: RANDOM,
    options: CP037,
    flags: ['-fsign=EBCDIC'],
    ebcdic: true,
    vectors: randomVectors(37, 30, RANDOM_FIELDS, CP037_SAFE, randomShape),
  },
  ...COPY_CASES,
  ...LAYOUT_CASES,
  ...FLOAT_CASES,
  ...EDITED_CASES,
];
