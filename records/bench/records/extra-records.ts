/**
 * Two more records for `npm run bench:records`, each with the decoder an engineer would write by hand for it:
 * one of packed decimals (balances by month), one of EBCDIC text (a customer profile in cp037).
 */
import { execFileSync } from 'node:child_process';
import type { CompileOptions } from '../../src/index.ts';

export interface ExtraRecord {
  name: string;
  label: string;
  copybook: string;
  options: CompileOptions;
  value: Record<string, unknown>;
  handDecode(b: Buffer): Record<string, unknown>;
}

// ── packed decimals: 12 months of balances ──
const PACKED = `
       01  ACCOUNT-BALANCES.
           05  AB-ACCOUNT-NO       PIC S9(15) COMP-3.
           05  AB-BRANCH           PIC S9(5) COMP-3.
           05  AB-LIMIT            PIC S9(11)V99 COMP-3.
           05  AB-RATE             PIC S9(3)V9(6) COMP-3.
           05  AB-MONTH OCCURS 12 TIMES.
               10  AB-OPENING      PIC S9(13)V99 COMP-3.
               10  AB-CLOSING      PIC S9(13)V99 COMP-3.
               10  AB-INTEREST     PIC S9(7)V99 COMP-3.
               10  AB-FEES         PIC S9(7)V99 COMP-3.
               10  AB-TXN-COUNT    PIC S9(5) COMP-3.
`;

function packedDigits(b: Buffer, off: number, len: number): number {
  let n = 0;
  for (let i = off; i < off + len - 1; i++) n = n * 100 + (b[i]! >> 4) * 10 + (b[i]! & 15);
  const last = b[off + len - 1]!;
  n = n * 10 + (last >> 4);
  return (last & 15) === 0x0d ? -n : n;
}

const months = Array.from({ length: 12 }, (_, m) => ({
  abOpening: 1_250_000.5 + m * 1_000.25,
  abClosing: 1_251_000.75 + m * 1_000.25,
  abInterest: 412.19 + m,
  abFees: -(12.5 + m),
  abTxnCount: 40 + m,
}));

const packedRecord: ExtraRecord = {
  name: 'packed',
  label: 'zos',
  copybook: PACKED,
  options: { profile: 'zos' },
  value: { abAccountNo: 123456789012345, abBranch: -4021, abLimit: 25000, abRate: 3.125, abMonth: months },
  handDecode(b) {
    const abMonth = new Array(12);
    for (let m = 0; m < 12; m++) {
      const at = 23 + m * 29;
      abMonth[m] = {
        abOpening: packedDigits(b, at, 8) / 100,
        abClosing: packedDigits(b, at + 8, 8) / 100,
        abInterest: packedDigits(b, at + 16, 5) / 100,
        abFees: packedDigits(b, at + 21, 5) / 100,
        abTxnCount: packedDigits(b, at + 26, 3),
      };
    }
    return {
      abAccountNo: packedDigits(b, 0, 8),
      abBranch: packedDigits(b, 8, 3),
      abLimit: packedDigits(b, 11, 7) / 100,
      abRate: packedDigits(b, 18, 5) / 1_000_000,
      abMonth,
    };
  },
};

// ── EBCDIC text: a customer profile in cp037 ──
const TEXT_FIELDS: Array<[string, number, string]> = [
  ['CP-CUSTOMER-ID', 10, 'C000104521'],
  ['CP-TITLE', 4, 'Dr'],
  ['CP-FIRST-NAME', 20, 'Grace'],
  ['CP-MIDDLE-NAME', 20, 'Brewster'],
  ['CP-LAST-NAME', 30, 'Hopper'],
  ['CP-COMPANY', 40, 'Eckert-Mauchly Computer Corporation'],
  ['CP-ADDRESS-1', 40, '3 Penn Center Plaza'],
  ['CP-ADDRESS-2', 40, 'Suite 1200'],
  ['CP-CITY', 25, 'Philadelphia'],
  ['CP-REGION', 20, 'Pennsylvania'],
  ['CP-POSTCODE', 10, '19102'],
  ['CP-COUNTRY', 2, 'US'],
  ['CP-EMAIL', 50, 'grace.hopper@example.com'],
  ['CP-PHONE', 20, '+1 215 555 0142'],
  ['CP-SEGMENT', 10, 'PREMIER'],
  ['CP-LANGUAGE', 5, 'en-US'],
  ['CP-NOTES', 60, 'Prefers contact by letter; statements quarterly.'],
];
const TEXT = `\n       01  CUSTOMER-PROFILE.\n${TEXT_FIELDS.map(
  ([name, length]) => `           05  ${name.padEnd(18)} PIC X(${length}).`,
).join('\n')}\n`;
const jsonName = (cobol: string) => cobol.toLowerCase().replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());

/**
 * cp037 → Latin-1 byte by byte (every cp037 character is in Latin-1), taken from glibc's iconv, so that a
 * field decodes with one table pass and one latin1 slice, as a careful hand-written decoder does.
 */
const CP037_TO_LATIN1 = Uint8Array.from(
  execFileSync('iconv', ['-f', 'IBM037', '-t', 'LATIN1'], {
    input: Buffer.from(Array.from({ length: 256 }, (_, i) => i)),
  }),
);
const scratch = Buffer.allocUnsafe(256);
function ebcdicText(b: Buffer, off: number, len: number): string {
  let end = off + len;
  while (end > off && b[end - 1] === 0x40) end--;
  for (let i = off; i < end; i++) scratch[i - off] = CP037_TO_LATIN1[b[i]!]!;
  return scratch.toString('latin1', 0, end - off);
}

const textRecord: ExtraRecord = {
  name: 'text',
  label: 'cp037',
  copybook: TEXT,
  options: { profile: 'zos', encoding: 'cp037' },
  value: Object.fromEntries(TEXT_FIELDS.map(([name, , value]) => [jsonName(name), value])),
  handDecode(b) {
    return {
      cpCustomerId: ebcdicText(b, 0, 10),
      cpTitle: ebcdicText(b, 10, 4),
      cpFirstName: ebcdicText(b, 14, 20),
      cpMiddleName: ebcdicText(b, 34, 20),
      cpLastName: ebcdicText(b, 54, 30),
      cpCompany: ebcdicText(b, 84, 40),
      cpAddress1: ebcdicText(b, 124, 40),
      cpAddress2: ebcdicText(b, 164, 40),
      cpCity: ebcdicText(b, 204, 25),
      cpRegion: ebcdicText(b, 229, 20),
      cpPostcode: ebcdicText(b, 249, 10),
      cpCountry: ebcdicText(b, 259, 2),
      cpEmail: ebcdicText(b, 261, 50),
      cpPhone: ebcdicText(b, 311, 20),
      cpSegment: ebcdicText(b, 331, 10),
      cpLanguage: ebcdicText(b, 341, 5),
      cpNotes: ebcdicText(b, 346, 60),
    };
  },
};

export const EXTRA_RECORDS: ExtraRecord[] = [packedRecord, textRecord];
