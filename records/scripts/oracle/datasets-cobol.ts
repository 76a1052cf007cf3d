/**
 * Writes the COBOL program that produces a data set fixture: for each record it INITIALIZEs the record as our
 * encoder starts (VALUEs, then spaces and zeros, FILLER included), MOVEs each JSON leaf into its item,
 * DISPLAYs every item as COBOL sees it, and WRITEs the record to an ORGANIZATION SEQUENTIAL file (fixed, or
 * RECORD VARYING … DEPENDING ON the record's LENGTH OF when the record has OCCURS … DEPENDING ON).
 */
import type { LayoutItem, RecordLayout } from '../../src/index.ts';
import { cobolLiteral, displayMask } from './cobol.ts';

const OWN = 'ORX-';
const INDENT = '           ';
const LAST_COLUMN = 72;

/** Lines the generator reads back: an item's value as DISPLAY shows it, and each record's length. */
export const VALUE_MARK = 'ORX-VAL ';
export const LENGTH_MARK = 'ORX-LEN ';
/** The file the program writes, in its working directory. */
export const DATA_FILE = 'dataset.dat';

export interface DatasetProgramSpec {
  copybook: string[];
  layout: RecordLayout;
  records: Array<Record<string, unknown>>;
  variable: boolean;
  /** Translate the DISPLAY bytes to EBCDIC with GnuCOBOL's EBCDIC alphabet before each WRITE. */
  ebcdicDisplay: boolean;
  /** Per record, bytes MOVEd over the record after its values: `[offset, hex]`. */
  overwrite?: Array<Array<[number, string]>> | undefined;
}

function wrap(tokens: string[]): string[] {
  const lines: string[] = [];
  let line = INDENT;
  for (const t of tokens) {
    const candidate = line === INDENT ? line + t : `${line} ${t}`;
    if (candidate.length <= LAST_COLUMN) {
      line = candidate;
      continue;
    }
    lines.push(line);
    line = `${INDENT}  ${t}`;
    if (line.length > LAST_COLUMN) throw new Error(`token too long for a fixed-format line: ${t}`);
  }
  if (line.trim() !== '') lines.push(line);
  return lines;
}

const keyOf = (item: LayoutItem) => (item.jsonPath ?? '').replace(/\[\]$/, '').split('.').pop() ?? '';

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function* walk(item: LayoutItem): Generator<LayoutItem> {
  yield item;
  for (const c of item.children ?? []) yield* walk(c);
}

/** A leaf of a record's JSON: where it is (`fxLine[2].fxSku`), its item, its subscripts, its value. */
export interface Leaf {
  path: string;
  item: LayoutItem;
  subscripts: number[];
  value: unknown;
}

/** Every leaf of a JSON record, in layout order. */
export function leavesOf(root: LayoutItem, values: Record<string, unknown>): Leaf[] {
  const out: Leaf[] = [];
  const visit = (group: LayoutItem, obj: Record<string, unknown>, prefix: string, subs: number[]) => {
    for (const child of group.children ?? []) {
      if (child.jsonPath === null) continue;
      const key = keyOf(child);
      if (!(key in obj)) throw new Error(`${prefix}${key}: every item must have a value in a data set case`);
      const at = (x: unknown, path: string, s: number[]) => {
        if (child.children === undefined) out.push({ path, item: child, subscripts: s, value: x });
        else if (isObject(x)) visit(child, x, `${path}.`, s);
        else throw new Error(`${path}: expected an object`);
      };
      const v = obj[key];
      if (child.occurs === undefined) at(v, `${prefix}${key}`, subs);
      else if (Array.isArray(v)) v.forEach((x, i) => at(x, `${prefix}${key}[${i + 1}]`, [...subs, i + 1]));
      else throw new Error(`${prefix}${key}: expected an array`);
    }
  };
  visit(root, values, '', []);
  return out;
}

const ref = (item: LayoutItem, subs: number[]) => [
  item.cobolName,
  ...(subs.length > 0 ? [`(${subs.join(', ')})`] : []),
];

/** The full program text. */
export function datasetProgram(spec: DatasetProgramSpec): string {
  const { layout } = spec;
  const rec = layout.root.cobolName;
  const names = new Map<string, number>();
  for (const item of walk(layout.root)) {
    if (item.cobolName.startsWith(OWN)) throw new Error(`${item.cobolName}: ${OWN} names are the program's own`);
    if (item.cobolName !== 'FILLER') names.set(item.cobolName, (names.get(item.cobolName) ?? 0) + 1);
  }
  const repeated = [...names].filter(([, n]) => n > 1).map(([name]) => name);
  if (repeated.length > 0)
    throw new Error(`data set cases use unique names (no qualification): ${repeated.join(', ')}`);
  const odo = [...walk(layout.root)].find((i) => i.occurs?.dependingOn !== undefined);
  if (spec.variable !== (odo !== undefined))
    throw new Error('a variable-length case needs one OCCURS … DEPENDING ON table, a fixed one none');
  const counter = odo?.occurs?.dependingOn?.toUpperCase();
  // items after the table (cobc -fodoslide) move with the count
  const sliding = [...walk(layout.root)].some((i) => i.afterOdo !== undefined);
  if (sliding) {
    if (spec.ebcdicDisplay) throw new Error('the EBCDIC mask is laid out at the maximum: no items after the table');
    if (odo === undefined || !(layout.root.children ?? []).includes(odo))
      throw new Error('items after a table: the table must be an item of the 01 record');
    for (const item of layout.root.children ?? [])
      if (item.cobolName === 'FILLER') throw new Error('items after a table: FILLER cannot be INITIALIZEd by name');
  }
  const max = layout.maxLength;

  const out: string[] = [];
  const line = (s: string) => out.push(s);
  line('       IDENTIFICATION DIVISION.');
  line('       PROGRAM-ID. ORXDATA.');
  line('       ENVIRONMENT DIVISION.');
  if (spec.ebcdicDisplay) {
    // under an EBCDIC program collating sequence a byte's rank among all 256 is its EBCDIC code
    line('       CONFIGURATION SECTION.');
    line('       OBJECT-COMPUTER. ORACLE-HOST');
    line('           PROGRAM COLLATING SEQUENCE IS ORX-EBCDIC.');
    line('       SPECIAL-NAMES.');
    line('           ALPHABET ORX-EBCDIC IS EBCDIC.');
  }
  line('       INPUT-OUTPUT SECTION.');
  line('       FILE-CONTROL.');
  line(`           SELECT ${OWN}FILE ASSIGN TO '${DATA_FILE}'`);
  line('               ORGANIZATION IS SEQUENTIAL.');
  line('       DATA DIVISION.');
  line('       FILE SECTION.');
  if (spec.variable) {
    line(`       FD ${OWN}FILE`);
    line(`           RECORD VARYING IN SIZE FROM ${layout.minLength} TO ${max} CHARACTERS`);
    line(`           DEPENDING ON ${OWN}LEN.`);
  } else {
    line(`       FD ${OWN}FILE.`);
  }
  line(`       01 ${OWN}OUT PIC X(${max}).`);
  line('       WORKING-STORAGE SECTION.');
  for (const l of spec.copybook) line(l);
  line(`       01 ${OWN}LEN PIC 9(8) COMP-5.`);
  line(`       01 ${OWN}LEN-SHOWN PIC 9(8).`);
  line(`       01 ${OWN}BUF PIC X(${max}).`);
  line(`       01 ${OWN}I PIC 9(8) COMP-5.`);
  line(`       01 ${OWN}J PIC 9(8) COMP-5.`);
  line(`       01 ${OWN}K PIC 9(8) COMP-5.`);
  line(`       01 ${OWN}W.`);
  line(`          05 ${OWN}N PIC 9(4) COMP-5 VALUE 0.`);
  line(`       01 ${OWN}WX REDEFINES ${OWN}W.`);
  line(`          05 ${OWN}B PIC X.`);
  line('          05 FILLER PIC X.');
  line(`       01 ${OWN}W2.`);
  line(`          05 ${OWN}N2 PIC 9(4) COMP-5 VALUE 0.`);
  line(`       01 ${OWN}WX2 REDEFINES ${OWN}W2.`);
  line(`          05 ${OWN}B2 PIC X.`);
  line('          05 FILLER PIC X.');
  if (spec.ebcdicDisplay) {
    line(`       01 ${OWN}MASK PIC X(${max}).`);
    line(`       01 ${OWN}EBT.`);
    line(`          05 ${OWN}EB PIC 9(4) COMP-5 OCCURS 256 TIMES.`);
  }
  line('       PROCEDURE DIVISION.');
  line(`       ${OWN}MAIN.`);
  if (spec.ebcdicDisplay) {
    line(`${INDENT}PERFORM ${OWN}EBCDIC-TABLE`);
    for (const l of maskMoves(displayMask(layout))) line(l);
  }
  line(`${INDENT}OPEN OUTPUT ${OWN}FILE`);
  for (const [r, values] of spec.records.entries()) {
    line(`      * record ${r + 1}`);
    const leaves = leavesOf(layout.root, values);
    const initialize = (words: string[]) =>
      wrap(['INITIALIZE', ...words, 'WITH', 'FILLER', 'ALL', 'TO', 'VALUE', 'THEN', 'TO', 'DEFAULT']).forEach(line);
    if (sliding && odo !== undefined && counter !== undefined) {
      // -fodoslide: the count first, so that each item is initialised where the count puts it
      const count = leaves.find((l) => l.item.cobolName === counter)?.value;
      line(`${INDENT}MOVE ${String(count)} TO ${counter}`);
      for (const item of layout.root.children ?? []) {
        if (item.cobolName === counter) continue;
        if (item === odo) for (let i = 1; i <= Number(count); i++) initialize(ref(odo, [i]));
        else initialize([item.cobolName]);
      }
    } else {
      initialize([rec]);
      if (odo !== undefined && counter !== undefined) {
        // every element starts from its VALUEs and defaults, as in our encoder's template
        line(`${INDENT}MOVE ${odo.occurs!.max} TO ${counter}`);
        for (let i = 1; i <= odo.occurs!.max; i++) initialize(ref(odo, [i]));
      }
    }
    for (const leaf of leaves) {
      if (leaf.item.cobolName === counter) continue;
      for (const l of wrap(['MOVE', cobolLiteral(leaf.value, leaf.item), 'TO', ...ref(leaf.item, leaf.subscripts)]))
        line(l);
    }
    // bytes the JSON cannot say (FILLER content, another sign nibble), over the whole record by position
    for (const [offset, hex] of spec.overwrite?.[r] ?? []) {
      if (!/^(?:[0-9a-f]{2})+$/.test(hex) || offset < 0 || offset + hex.length / 2 > layout.minLength)
        throw new Error(`record ${r + 1}: cannot overwrite ${hex} at ${offset}`);
      line(`${INDENT}MOVE X'${hex.toUpperCase()}' TO ${rec} (${offset + 1}:${hex.length / 2})`);
    }
    if (counter !== undefined) {
      const count = leaves.find((l) => l.item.cobolName === counter)?.value;
      if (typeof count !== 'number') throw new Error(`record ${r + 1}: the counter ${counter} needs a number`);
      line(`${INDENT}MOVE ${count} TO ${counter}`);
    }
    for (const leaf of leaves)
      for (const l of wrap([
        'DISPLAY',
        `'${VALUE_MARK}${r + 1} ${leaf.path}='`,
        ...ref(leaf.item, leaf.subscripts),
        `'|'`,
      ]))
        line(l);
    line(`${INDENT}MOVE LENGTH OF ${rec} TO ${OWN}LEN`);
    line(`${INDENT}MOVE ${OWN}LEN TO ${OWN}LEN-SHOWN`);
    line(`${INDENT}DISPLAY '${LENGTH_MARK}${r + 1} ' ${OWN}LEN-SHOWN`);
    line(`${INDENT}MOVE ${rec} TO ${OWN}BUF`);
    if (spec.ebcdicDisplay) line(`${INDENT}PERFORM ${OWN}TRANSLATE`);
    line(`${INDENT}WRITE ${OWN}OUT FROM ${OWN}BUF`);
  }
  line(`${INDENT}CLOSE ${OWN}FILE`);
  line(`${INDENT}STOP RUN.`);
  if (spec.ebcdicDisplay) {
    line(`       ${OWN}TRANSLATE.`);
    line(`${INDENT}PERFORM VARYING ${OWN}I FROM 1 BY 1 UNTIL ${OWN}I > ${OWN}LEN`);
    line(`${INDENT}  IF ${OWN}MASK (${OWN}I:1) = 'D'`);
    line(`${INDENT}    MOVE 0 TO ${OWN}N`);
    line(`${INDENT}    MOVE ${OWN}BUF (${OWN}I:1) TO ${OWN}B`);
    line(`${INDENT}    MOVE ${OWN}EB (${OWN}N + 1) TO ${OWN}N`);
    line(`${INDENT}    MOVE ${OWN}B TO ${OWN}BUF (${OWN}I:1)`);
    line(`${INDENT}  END-IF`);
    line(`${INDENT}END-PERFORM.`);
    line(`       ${OWN}EBCDIC-TABLE.`);
    line(`${INDENT}PERFORM VARYING ${OWN}I FROM 0 BY 1 UNTIL ${OWN}I > 255`);
    line(`${INDENT}  MOVE ${OWN}I TO ${OWN}N`);
    line(`${INDENT}  MOVE 0 TO ${OWN}K`);
    line(`${INDENT}  PERFORM VARYING ${OWN}J FROM 0 BY 1 UNTIL ${OWN}J > 255`);
    line(`${INDENT}    MOVE ${OWN}J TO ${OWN}N2`);
    line(`${INDENT}    IF ${OWN}B2 < ${OWN}B`);
    line(`${INDENT}      ADD 1 TO ${OWN}K`);
    line(`${INDENT}    END-IF`);
    line(`${INDENT}  END-PERFORM`);
    line(`${INDENT}  MOVE ${OWN}K TO ${OWN}EB (${OWN}I + 1)`);
    line(`${INDENT}END-PERFORM.`);
  }
  return `${out.join('\n')}\n`;
}

function maskMoves(mask: boolean[]): string[] {
  const lines = [`${INDENT}MOVE ALL 'B' TO ${OWN}MASK`];
  let i = 0;
  while (i < mask.length) {
    if (!mask[i]) {
      i++;
      continue;
    }
    let j = i;
    while (j < mask.length && mask[j]) j++;
    lines.push(`${INDENT}MOVE ALL 'D' TO ${OWN}MASK (${i + 1}:${j - i})`);
    i = j;
  }
  return lines;
}
