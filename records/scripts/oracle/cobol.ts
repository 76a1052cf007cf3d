/**
 * Writes the COBOL program that produces a fixture's bytes: for each vector it INITIALIZEs the record the way
 * our encoder starts (VALUEs, then spaces and zeros, FILLER included), MOVEs each JSON leaf into its COBOL
 * item (qualified, subscripted), and DISPLAYs the record's bytes as lowercase hex.
 */
import type { LayoutItem, RecordLayout } from '../../src/index.ts';

/** Prefix of the program's own data names; copybooks must not use it. */
const OWN = 'ORX-';
/** Code starts in column 12 (area B) and ends by column 72. */
const INDENT = '           ';
const LAST_COLUMN = 72;

export interface ProgramVector {
  name: string;
  values: Record<string, unknown>;
}

export interface ProgramSpec {
  copybook: string[];
  layout: RecordLayout;
  vectors: ProgramVector[];
  /** Translate the DISPLAY bytes to EBCDIC with GnuCOBOL's EBCDIC alphabet before dumping them. */
  ebcdicDisplay: boolean;
  /** The copybook is in free format: the program switches to it and back with >>SOURCE FORMAT. */
  freeFormat?: boolean;
  /** Clauses of the SPECIAL-NAMES paragraph (`DECIMAL-POINT IS COMMA`, `CURRENCY SIGN IS "£"`). */
  specialNames?: string[];
}

/** A line printed before each vector's hex, so the output parses unambiguously. */
export const HEX_MARK = 'ORX-HEX ';

const keyOf = (item: LayoutItem) => (item.jsonPath ?? '').replace(/\[\]$/, '').split('.').pop() ?? '';

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Wraps tokens into fixed-format lines starting at column 12, never past column 72. */
function wrap(tokens: string[], indent = INDENT): string[] {
  const lines: string[] = [];
  let line = indent;
  for (const t of tokens) {
    const candidate = line === indent ? line + t : `${line} ${t}`;
    if (candidate.length <= LAST_COLUMN) {
      line = candidate;
      continue;
    }
    if (line === indent) throw new Error(`token too long for a fixed-format line: ${t}`);
    lines.push(line);
    line = `${indent}  ${t}`;
    if (line.length > LAST_COLUMN) throw new Error(`token too long for a fixed-format line: ${t}`);
  }
  if (line.trim() !== '') lines.push(line);
  return lines;
}

/** A COBOL literal for a JSON leaf value; under DECIMAL-POINT IS COMMA a numeric literal's point is a comma. */
export function cobolLiteral(v: unknown, item: LayoutItem, decimalComma = false): string {
  if (item.kind === 'numeric') {
    let text: string;
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) throw new Error(`${item.cobolName}: ${v} is not finite`);
      text = plainNumber(v);
    } else if (typeof v === 'string' && /^[+-]?\d+(\.\d+)?$/.test(v)) {
      text = v;
    } else {
      throw new Error(`${item.cobolName}: ${JSON.stringify(v)} is not a number or a decimal string`);
    }
    return decimalComma ? text.replace('.', ',') : text;
  }
  if (typeof v !== 'string') throw new Error(`${item.cobolName}: ${JSON.stringify(v)} is not a string`);
  if (v === '') return 'SPACES';
  return `'${v.replaceAll("'", "''")}'`;
}

/** A number without exponent notation. */
function plainNumber(n: number): string {
  const s = String(n);
  if (!/e/i.test(s)) return s;
  const fixed = n.toFixed(20).replace(/0+$/, '').replace(/\.$/, '');
  if (Number(fixed) !== n) throw new Error(`cannot write ${s} as a COBOL literal exactly; use a decimal string`);
  return fixed;
}

/** `NAME OF GROUP OF RECORD`, skipping FILLER groups (they cannot qualify). */
function qualified(item: LayoutItem, ancestors: LayoutItem[]): string[] {
  const words = [item.cobolName];
  for (let i = ancestors.length - 1; i >= 0; i--) {
    const a = ancestors[i]!;
    if (a.cobolName !== 'FILLER') words.push('OF', a.cobolName);
  }
  return words;
}

function reference(item: LayoutItem, ancestors: LayoutItem[], subscripts: number[]): string[] {
  const words = qualified(item, ancestors);
  if (subscripts.length > 0) words.push(`(${subscripts.join(', ')})`);
  return words;
}

interface Move {
  item: LayoutItem;
  tokens: string[];
}

/** The MOVE statements that put a JSON object's leaves into the record. */
function movesOf(root: LayoutItem, values: Record<string, unknown>, decimalComma = false): Move[] {
  const moves: Move[] = [];
  const visit = (group: LayoutItem, obj: Record<string, unknown>, ancestors: LayoutItem[], subscripts: number[]) => {
    const known = new Set<string>();
    for (const child of group.children ?? []) {
      if (child.jsonPath === null) continue;
      const key = keyOf(child);
      known.add(key);
      if (!(key in obj)) continue;
      const v = obj[key];
      const place = (x: unknown, subs: number[]) => {
        if (child.children !== undefined) {
          if (!isObject(x)) throw new Error(`${child.jsonPath}: expected an object`);
          visit(child, x, [...ancestors, group], subs);
        } else {
          moves.push({
            item: child,
            tokens: [
              'MOVE',
              cobolLiteral(x, child, decimalComma),
              'TO',
              ...reference(child, [...ancestors, group], subs),
            ],
          });
        }
      };
      if (child.occurs !== undefined) {
        if (!Array.isArray(v)) throw new Error(`${child.jsonPath}: expected an array`);
        v.forEach((x, i) => place(x, [...subscripts, i + 1]));
      } else {
        place(v, subscripts);
      }
    }
    for (const key of Object.keys(obj))
      if (!known.has(key)) throw new Error(`unknown JSON key "${key}" in ${group.cobolName}`);
  };
  visit(root, values, [], []);
  return moves;
}

function* walk(
  item: LayoutItem,
  ancestors: LayoutItem[] = [],
): Generator<{ item: LayoutItem; ancestors: LayoutItem[] }> {
  yield { item, ancestors };
  for (const c of item.children ?? []) yield* walk(c, [...ancestors, item]);
}

/** The OCCURS DEPENDING ON table, its counter and the count a vector gives it (as our encoder does). */
function odoOf(
  root: LayoutItem,
): { table: LayoutItem; ancestors: LayoutItem[]; counter: LayoutItem; counterAncestors: LayoutItem[] } | null {
  for (const { item, ancestors } of walk(root)) {
    const dep = item.occurs?.dependingOn;
    if (dep === undefined) continue;
    const name = dep.toUpperCase().split(/\s+/)[0]!;
    const found = [...walk(root)].filter((w) => w.item.cobolName === name);
    if (found.length !== 1) throw new Error(`DEPENDING ON ${dep}: qualify the counter uniquely in oracle cases`);
    return { table: item, ancestors, counter: found[0]!.item, counterAncestors: found[0]!.ancestors };
  }
  return null;
}

function valueAt(values: Record<string, unknown>, item: LayoutItem): unknown {
  if (item.jsonPath === null || (item.jsonPath.includes('[]') && !item.jsonPath.endsWith('[]'))) return undefined;
  let v: unknown = values;
  for (const key of item.jsonPath.replace(/\[\]$/, '').split('.')) {
    if (!isObject(v)) return undefined;
    v = v[key];
  }
  return v;
}

/** Byte mask of the record at its maximum length: true where the byte is USAGE DISPLAY (text or zoned). */
export function displayMask(layout: RecordLayout): boolean[] {
  const mask = new Array<boolean | undefined>(layout.maxLength).fill(undefined);
  const visit = (item: LayoutItem, base: number) => {
    const count = item.occurs?.max ?? 1;
    for (let k = 0; k < count; k++) {
      const at = base + k * item.length;
      if (item.children !== undefined) {
        for (const c of item.children) visit(c, at + (c.offset - item.offset));
        continue;
      }
      const display = item.usage === 'display';
      for (let i = at; i < at + item.length; i++) {
        const before = mask[i];
        if (before !== undefined && before !== display)
          throw new Error(
            `${item.cobolName}: a REDEFINES view mixes DISPLAY and binary bytes at offset ${i}; the EBCDIC translation cannot tell them apart`,
          );
        mask[i] = display;
      }
    }
  };
  visit(layout.root, 0);
  return mask.map((m) => m ?? true);
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

/** The full program text. */
export function cobolProgram(spec: ProgramSpec): string {
  const { layout } = spec;
  const rec = layout.root.cobolName;
  for (const { item } of walk(layout.root)) {
    if (item.cobolName.startsWith(OWN))
      throw new Error(`${item.cobolName}: names starting with ${OWN} are reserved by the oracle program`);
  }
  const odo = odoOf(layout.root);
  const out: string[] = [];
  const line = (s: string) => out.push(s);
  line('       IDENTIFICATION DIVISION.');
  line('       PROGRAM-ID. ORACLE.');
  const specialNames = [...(spec.ebcdicDisplay ? ['ALPHABET ORX-EBCDIC IS EBCDIC'] : []), ...(spec.specialNames ?? [])];
  if (specialNames.length > 0) {
    line('       ENVIRONMENT DIVISION.');
    line('       CONFIGURATION SECTION.');
  }
  if (spec.ebcdicDisplay) {
    // Alphanumeric comparisons follow the program collating sequence: the rank of a byte among all 256
    // under GnuCOBOL's EBCDIC alphabet is its EBCDIC code (the alphabet is a permutation).
    line('       OBJECT-COMPUTER. ORACLE-HOST');
    line('           PROGRAM COLLATING SEQUENCE IS ORX-EBCDIC.');
  }
  if (specialNames.length > 0) {
    line('       SPECIAL-NAMES.');
    specialNames.forEach((clause, i) => line(`           ${clause}${i === specialNames.length - 1 ? '.' : ''}`));
  }
  const decimalComma = specialNames.some((c) => /^DECIMAL-POINT\s+IS\s+COMMA$/i.test(c));
  line('       DATA DIVISION.');
  line('       WORKING-STORAGE SECTION.');
  if (spec.freeFormat === true) line('       >>SOURCE FORMAT IS FREE');
  for (const l of spec.copybook) line(l);
  if (spec.freeFormat === true) line('>>SOURCE FORMAT IS FIXED');
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
  line(`       01 ${OWN}HI PIC 9(4) COMP-5.`);
  line(`       01 ${OWN}LO PIC 9(4) COMP-5.`);
  line(`       01 ${OWN}O PIC XX.`);
  line(`       01 ${OWN}D PIC X(16) VALUE '0123456789abcdef'.`);
  if (spec.ebcdicDisplay) {
    line(`       01 ${OWN}MASK PIC X(${layout.maxLength}).`);
    line(`       01 ${OWN}EBT.`);
    line(`          05 ${OWN}EB PIC 9(4) COMP-5 OCCURS 256 TIMES.`);
  }
  line('       PROCEDURE DIVISION.');
  line(`       ${OWN}MAIN.`);
  if (spec.ebcdicDisplay) {
    line(`${INDENT}PERFORM ${OWN}EBCDIC-TABLE`);
    for (const l of maskMoves(displayMask(layout))) line(l);
  }
  const complex = complexOdo(layout.root);
  for (const vector of spec.vectors) {
    line(`      * vector: ${vector.name.replace(/[^\x20-\x7e]/g, '?').slice(0, 55)}`);
    if (complex !== null) {
      for (const l of complexOdoVector(layout.root, complex, vector.values)) line(l);
      line(`${INDENT}PERFORM ${OWN}DUMP`);
      continue;
    }
    for (const l of wrap(['INITIALIZE', rec, 'WITH', 'FILLER', 'ALL', 'TO', 'VALUE', 'THEN', 'TO', 'DEFAULT'])) line(l);
    let count: number | null = null;
    if (odo !== null) {
      const { table, ancestors, counter, counterAncestors } = odo;
      const max = table.occurs!.max;
      // every element up to the maximum starts from its VALUEs and defaults, as in our encoder's template
      for (const l of wrap(['MOVE', String(max), 'TO', ...qualified(counter, counterAncestors)])) line(l);
      for (let i = 1; i <= max; i++) {
        for (const l of wrap([
          'INITIALIZE',
          ...reference(table, ancestors, [i]),
          'WITH',
          'FILLER',
          'ALL',
          'TO',
          'VALUE',
          'THEN',
          'TO',
          'DEFAULT',
        ]))
          line(l);
      }
      const array = valueAt(vector.values, table);
      const counterValue = valueAt(vector.values, counter);
      // the count COBOL's record would have: the array's length, else the counter's value, else what
      // INITIALIZE left in the counter (its VALUE); a counter without VALUE is taken at the table's minimum
      const initial =
        typeof counter.value === 'number'
          ? counter.value
          : typeof counter.value === 'string' && /^\d+$/.test(counter.value)
            ? Number(counter.value)
            : undefined;
      count = Array.isArray(array)
        ? array.length
        : counterValue !== undefined
          ? Number(counterValue)
          : (initial ?? table.occurs!.min);
    }
    for (const move of movesOf(layout.root, vector.values, decimalComma)) {
      if (odo !== null && move.item === odo.counter) continue;
      for (const l of wrap(move.tokens)) line(l);
    }
    if (odo !== null && count !== null) {
      for (const l of wrap(['MOVE', String(count), 'TO', ...qualified(odo.counter, odo.counterAncestors)])) line(l);
    }
    line(`${INDENT}PERFORM ${OWN}DUMP`);
  }
  line(`${INDENT}STOP RUN.`);
  line(`       ${OWN}DUMP.`);
  line(`${INDENT}DISPLAY '${HEX_MARK}' WITH NO ADVANCING`);
  line(`${INDENT}PERFORM VARYING ${OWN}I FROM 1 BY 1`);
  line(`${INDENT}        UNTIL ${OWN}I > LENGTH OF ${rec}`);
  line(`${INDENT}  MOVE 0 TO ${OWN}N`);
  line(`${INDENT}  MOVE ${rec} (${OWN}I:1) TO ${OWN}B`);
  if (spec.ebcdicDisplay) {
    line(`${INDENT}  IF ${OWN}MASK (${OWN}I:1) = 'D'`);
    line(`${INDENT}    MOVE ${OWN}EB (${OWN}N + 1) TO ${OWN}N`);
    line(`${INDENT}  END-IF`);
  }
  line(`${INDENT}  DIVIDE ${OWN}N BY 16 GIVING ${OWN}HI REMAINDER ${OWN}LO`);
  line(`${INDENT}  ADD 1 TO ${OWN}HI`);
  line(`${INDENT}  ADD 1 TO ${OWN}LO`);
  line(`${INDENT}  MOVE ${OWN}D (${OWN}HI:1) TO ${OWN}O (1:1)`);
  line(`${INDENT}  MOVE ${OWN}D (${OWN}LO:1) TO ${OWN}O (2:1)`);
  line(`${INDENT}  DISPLAY ${OWN}O WITH NO ADVANCING`);
  line(`${INDENT}END-PERFORM`);
  line(`${INDENT}DISPLAY ' '.`);
  if (spec.ebcdicDisplay) out.push(...ebcdicTableParagraph());
  return `${out.join('\n')}\n`;
}

/** Fills ORX-EB: for each byte, its rank among all 256 bytes under the EBCDIC collating sequence. */
function ebcdicTableParagraph(): string[] {
  return [
    `       ${OWN}EBCDIC-TABLE.`,
    `${INDENT}PERFORM VARYING ${OWN}I FROM 0 BY 1 UNTIL ${OWN}I > 255`,
    `${INDENT}  MOVE ${OWN}I TO ${OWN}N`,
    `${INDENT}  MOVE 0 TO ${OWN}K`,
    `${INDENT}  PERFORM VARYING ${OWN}J FROM 0 BY 1 UNTIL ${OWN}J > 255`,
    `${INDENT}    MOVE ${OWN}J TO ${OWN}N2`,
    `${INDENT}    IF ${OWN}B2 < ${OWN}B`,
    `${INDENT}      ADD 1 TO ${OWN}K`,
    `${INDENT}    END-IF`,
    `${INDENT}  END-PERFORM`,
    `${INDENT}  MOVE ${OWN}K TO ${OWN}EB (${OWN}I + 1)`,
    `${INDENT}END-PERFORM.`,
  ];
}

/** A program that prints GnuCOBOL's EBCDIC table: 256 lines of `byte rank`. */
export function ebcdicTableProgram(): string {
  const lines = [
    '       IDENTIFICATION DIVISION.',
    '       PROGRAM-ID. ORXTABLE.',
    '       ENVIRONMENT DIVISION.',
    '       CONFIGURATION SECTION.',
    '       OBJECT-COMPUTER. ORACLE-HOST',
    '           PROGRAM COLLATING SEQUENCE IS ORX-EBCDIC.',
    '       SPECIAL-NAMES.',
    '           ALPHABET ORX-EBCDIC IS EBCDIC.',
    '       DATA DIVISION.',
    '       WORKING-STORAGE SECTION.',
    `       01 ${OWN}I PIC 9(8) COMP-5.`,
    `       01 ${OWN}J PIC 9(8) COMP-5.`,
    `       01 ${OWN}K PIC 9(8) COMP-5.`,
    `       01 ${OWN}W.`,
    `          05 ${OWN}N PIC 9(4) COMP-5 VALUE 0.`,
    `       01 ${OWN}WX REDEFINES ${OWN}W.`,
    `          05 ${OWN}B PIC X.`,
    '          05 FILLER PIC X.',
    `       01 ${OWN}W2.`,
    `          05 ${OWN}N2 PIC 9(4) COMP-5 VALUE 0.`,
    `       01 ${OWN}WX2 REDEFINES ${OWN}W2.`,
    `          05 ${OWN}B2 PIC X.`,
    '          05 FILLER PIC X.',
    `       01 ${OWN}EBT.`,
    `          05 ${OWN}EB PIC 9(4) COMP-5 OCCURS 256 TIMES.`,
    `       01 ${OWN}OUT PIC 9(3).`,
    '       PROCEDURE DIVISION.',
    `       ${OWN}MAIN.`,
    `${INDENT}PERFORM ${OWN}EBCDIC-TABLE`,
    `${INDENT}PERFORM VARYING ${OWN}I FROM 1 BY 1 UNTIL ${OWN}I > 256`,
    `${INDENT}  MOVE ${OWN}EB (${OWN}I) TO ${OWN}OUT`,
    `${INDENT}  DISPLAY ${OWN}OUT`,
    `${INDENT}END-PERFORM`,
    `${INDENT}STOP RUN.`,
    ...ebcdicTableParagraph(),
  ];
  return `${lines.join('\n')}\n`;
}

/** Counters of a record with complex OCCURS DEPENDING ON (cobc -fodoslide), or null for a simpler record. */
function complexOdo(
  root: LayoutItem,
): Map<string, { counter: LayoutItem; ancestors: LayoutItem[]; tables: LayoutItem[] }> | null {
  const all = [...walk(root)];
  const tables = all.filter((w) => w.item.occurs?.dependingOn !== undefined);
  if (!all.some((w) => w.item.afterOdo !== undefined) && tables.length < 2) return null;
  const counters = new Map<string, { counter: LayoutItem; ancestors: LayoutItem[]; tables: LayoutItem[] }>();
  for (const { item } of tables) {
    const name = item.occurs!.dependingOn!.toUpperCase().split(/\s+/)[0]!;
    const found = all.filter((w) => w.item.cobolName === name);
    if (found.length !== 1) throw new Error(`DEPENDING ON ${name}: qualify the counter uniquely in oracle cases`);
    const entry = counters.get(name) ?? { counter: found[0]!.item, ancestors: found[0]!.ancestors, tables: [] };
    entry.tables.push(item);
    counters.set(name, entry);
  }
  return counters;
}

/** The length of a table's array in a vector, looking into the first element of enclosing arrays. */
function arrayLength(values: Record<string, unknown>, table: LayoutItem): number | undefined {
  let v: unknown = values;
  const keys = (table.jsonPath ?? '').split('.');
  for (const [i, key] of keys.entries()) {
    while (Array.isArray(v)) v = v[0];
    if (!isObject(v)) return undefined;
    v = v[key.replace(/\[\]$/, '')];
    if (i === keys.length - 1) return Array.isArray(v) ? v.length : undefined;
  }
  return undefined;
}

/**
 * One vector of a record laid out at its counts (-fodoslide): the counters get their counts first, so that
 * every item sits where the counts put it, then each item is initialised where it lies and the MOVEs follow.
 */
function complexOdoVector(
  root: LayoutItem,
  counters: NonNullable<ReturnType<typeof complexOdo>>,
  values: Record<string, unknown>,
): string[] {
  const out: string[] = [];
  const countOf = new Map<LayoutItem, number>();
  const counterItems = new Set<LayoutItem>();
  for (const { counter, tables } of counters.values()) {
    counterItems.add(counter);
    const given = valueAt(values, counter);
    const lengths = tables.map((t) => arrayLength(values, t)).filter((n) => n !== undefined);
    const initial = typeof counter.value === 'number' ? counter.value : undefined;
    const count =
      given !== undefined ? Number(given) : (lengths[0] ?? initial ?? Math.max(...tables.map((t) => t.occurs!.min)));
    for (const t of tables) countOf.set(t, count);
  }
  for (const { counter, ancestors } of counters.values()) {
    out.push(
      ...wrap([
        'MOVE',
        String(countOf.get(counters.get(counter.cobolName)!.tables[0]!)),
        'TO',
        ...qualified(counter, ancestors),
      ]),
    );
  }
  const holdsCounter = (item: LayoutItem): boolean =>
    counterItems.has(item) || (item.children ?? []).some(holdsCounter);
  const initialize = (ref: string[]) =>
    out.push(...wrap(['INITIALIZE', ...ref, 'WITH', 'FILLER', 'ALL', 'TO', 'VALUE', 'THEN', 'TO', 'DEFAULT']));
  const init = (item: LayoutItem, ancestors: LayoutItem[]) => {
    if (item.level === 66 || counterItems.has(item)) return;
    if (holdsCounter(item)) {
      for (const c of item.children ?? []) {
        if (c.cobolName === 'FILLER') throw new Error(`FILLER beside a counter in ${item.cobolName}: name it`);
        init(c, [...ancestors, item]);
      }
      return;
    }
    if (item.occurs === undefined) return initialize(qualified(item, ancestors));
    const n = countOf.get(item) ?? item.occurs.max;
    for (let i = 1; i <= n; i++) initialize(reference(item, ancestors, [i]));
  };
  init(root, []);
  for (const move of movesOf(root, values)) if (!counterItems.has(move.item)) out.push(...wrap(move.tokens));
  return out;
}
