/**
 * fast-check arbitraries for the record codec's property tests: random copybooks (real copybook text, fixed
 * format with sequence numbers, comments and continued literals, or free format), valid JSON values derived
 * from a compiled layout's `root`, other spellings and omissions of them, invalid values at a chosen field,
 * and corrupted record bytes. Expectations here are written from the copybook rules and docs/guide.md,
 * not read back from the codec, so that a property can disagree with it.
 */
import fc from 'fast-check';
import {
  compileCopybook,
  type Charset,
  type CompileOptions,
  type CompiledLayout,
  type LayoutItem,
} from '../src/index.ts';

// ── the copybook model ───────────────────────────────────────────────────────

type Usage = LayoutItem['usage'];

export interface TextPic {
  type: 'X' | 'A';
  length: number;
}
export interface NumericPic {
  type: '9';
  digits: number;
  scale: number;
  signed: boolean;
}

export interface ElemSpec {
  kind: 'elem';
  filler: boolean;
  pic: TextPic | NumericPic;
  usage: Usage;
  sign?: { leading: boolean; separate: boolean };
  /** BLANK WHEN ZERO (unsigned USAGE DISPLAY only). */
  blankWhenZero?: boolean;
  justified: boolean;
  occurs?: number;
  /** A VALUE clause: the literal as written, and the `value` the layout item must show. */
  value?: { literal: string; shown: string | number };
  /** Picks spellings (PIC / PICTURE IS, COMP / BINARY, clause order …). */
  style: number;
  /** An item that REDEFINES this one, right after it. */
  view?: ElemSpec;
  /** The usage comes from the enclosing group: the item does not restate it. */
  inheritsUsage?: boolean;
}

export interface GroupSpec {
  kind: 'group';
  children: ItemSpec[];
  occurs?: number;
  style: number;
  view?: ElemSpec;
  /** USAGE on the group (COMP, COMP-5, COMP-3): every item below is numeric and has it. */
  usage?: Usage;
  /** SIGN on the group: for the signed DISPLAY items below without a SIGN of their own. */
  sign?: { leading: boolean; separate: boolean };
}

export type ItemSpec = ElemSpec | GroupSpec;

/** One OCCURS m TO n DEPENDING ON table, last in the record, with its counter at top level before it. */
export interface OdoSpec {
  min: number;
  max: number;
  withTo: boolean;
  counter: ElemSpec;
  counterAt: number;
  element: ItemSpec;
}

export interface CopybookSpec {
  items: ItemSpec[];
  odo?: OdoSpec;
  style: number;
  /** options.mapping.fields: COBOL name → JSON name, or false to leave the item out of JSON. */
  mapping?: Record<string, string | false>;
}

const MAX_ITEMS = 12;
const MAX_GROUP_DEPTH = 3;

const styleArb = fc.nat({ max: 0x3fffffff });
const occursArb = fc.option(fc.integer({ min: 1, max: 4 }), { freq: 4, nil: undefined });

/** Digit counts biased to the small, with the 15/16 boundary (JSON number / decimal string) well covered. */
const digitsArb = fc.oneof(
  { weight: 5, arbitrary: fc.integer({ min: 1, max: 9 }) },
  { weight: 2, arbitrary: fc.integer({ min: 10, max: 15 }) },
  { weight: 2, arbitrary: fc.integer({ min: 16, max: 31 }) },
);

const usageArb = fc.constantFrom<Usage>('display', 'binary', 'comp-5', 'packed-decimal');

/** Raw material for a VALUE clause, shaped to the picture once it is known. */
const valueRawArb = fc.option(
  fc.record({
    choice: fc.nat({ max: 11 }),
    magnitude: fc.bigInt({ min: 0n, max: 10n ** 31n }),
    negative: fc.boolean(),
    text: fc.string({
      unit: fc.constantFrom(...Array.from({ length: 95 }, (_, i) => String.fromCharCode(0x20 + i))),
      minLength: 1,
      maxLength: 20,
    }),
  }),
  { freq: 3, nil: undefined },
);

type ValueRaw = NonNullable<typeof valueRawArb extends fc.Arbitrary<infer T> ? T : never>;

function numericValue(raw: ValueRaw, pic: NumericPic): NonNullable<ElemSpec['value']> {
  if (raw.choice % 4 === 0) return { literal: ['ZERO', 'ZEROS', 'ZEROES'][raw.choice % 3]!, shown: 'ZERO' };
  let k = raw.magnitude % 10n ** BigInt(pic.digits);
  if (pic.signed && raw.negative) k = -k;
  const text = `${k > 0n && raw.choice % 3 === 1 ? '+' : ''}${decimalText(k, pic.scale)}`;
  return { literal: text, shown: Number.isSafeInteger(Number(text)) && !text.includes('.') ? Number(text) : text };
}

function textValue(raw: ValueRaw, pic: TextPic): NonNullable<ElemSpec['value']> {
  if (raw.choice % 4 === 0) return { literal: raw.choice % 8 === 0 ? 'SPACE' : 'SPACES', shown: 'SPACE' };
  let text = raw.text.slice(0, pic.length);
  if (pic.type === 'A') text = text.replace(/[^A-Za-z ]/g, 'Q');
  const quote = raw.choice % 2 === 0 ? '"' : "'";
  return { literal: `${quote}${text.replaceAll(quote, quote + quote)}${quote}`, shown: text };
}

function numericElem(integerOnly: boolean): fc.Arbitrary<ElemSpec> {
  return fc
    .record({
      usage: usageArb,
      digits: digitsArb,
      scale: integerOnly ? fc.constant(0) : fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 6 })),
      signed: fc.boolean(),
      sign: fc.option(fc.record({ leading: fc.boolean(), separate: fc.boolean() }), { freq: 2, nil: undefined }),
      value: valueRawArb,
      blank: fc.nat({ max: 3 }),
      style: styleArb,
    })
    .map(({ usage, digits: raw, scale, signed, sign, value, blank, style }) => {
      // binary items hold at most 18 digits; DISPLAY and COMP-3 up to 31
      const digits = usage === 'binary' || usage === 'comp-5' ? ((raw - 1) % 18) + 1 : raw;
      const elem: ElemSpec = {
        kind: 'elem',
        filler: false,
        usage,
        justified: false,
        style,
        pic: { type: '9', digits, scale: Math.min(scale, digits), signed },
      };
      if (signed && usage === 'display' && sign !== undefined) elem.sign = sign;
      if (!signed && usage === 'display' && blank === 0) elem.blankWhenZero = true;
      if (value !== undefined) elem.value = numericValue(value, elem.pic as NumericPic);
      return elem;
    });
}

const textElem: fc.Arbitrary<ElemSpec> = fc
  .record({
    type: fc.constantFrom<'X' | 'A'>('X', 'X', 'A'),
    length: fc.oneof(
      { weight: 4, arbitrary: fc.integer({ min: 1, max: 8 }) },
      { weight: 1, arbitrary: fc.integer({ min: 9, max: 40 }) },
    ),
    justified: fc.integer({ min: 0, max: 3 }).map((n) => n === 0),
    value: valueRawArb,
    style: styleArb,
  })
  .map(({ type, length, justified, value, style }) => ({
    kind: 'elem',
    filler: false,
    usage: 'display',
    justified,
    style,
    pic: { type, length },
    ...(value === undefined ? {} : { value: textValue(value, { type, length }) }),
  }));

const elemArb: fc.Arbitrary<ElemSpec> = withView(
  fc
    .tuple(fc.oneof(textElem, numericElem(false)), occursArb, fc.integer({ min: 0, max: 7 }))
    .map(([e, occurs, f]) => ({ ...e, filler: f === 0, ...(occurs === undefined ? {} : { occurs }) })),
);

/** Bytes of an item at its maximum, views left out. */
function specSize(item: ItemSpec, binarySizes: 'ibm' | 'gnucobol'): number {
  const one =
    item.kind === 'elem'
      ? elementLength(item, binarySizes)
      : item.children.reduce((n, c) => n + specSize(c, binarySizes), 0);
  return one * (item.occurs ?? 1);
}

/** A group cut short: its view shrunk to fit it again. */
function fitView(item: ItemSpec): ItemSpec {
  const view = item.view;
  if (view === undefined) return item;
  const size = specSize(item, 'gnucobol');
  const pic =
    view.pic.type === '9'
      ? { ...view.pic, digits: Math.min(view.pic.digits, size) }
      : { ...view.pic, length: Math.min(view.pic.length, size) };
  return { ...item, view: { ...view, pic } };
}

/** Sometimes a PIC X or 9 item that REDEFINES the item (not a table, not FILLER), no larger under any profile. */
function withView<T extends ItemSpec>(arb: fc.Arbitrary<T>): fc.Arbitrary<T> {
  const raw = fc.option(
    fc.record({ size: fc.nat(), numeric: fc.boolean(), filler: fc.nat({ max: 3 }), style: styleArb }),
    { freq: 6, nil: undefined },
  );
  return fc.tuple(arb, raw).map(([item, r]) => {
    if (r === undefined || item.occurs !== undefined || (item.kind === 'elem' && item.filler)) return item;
    const length = 1 + (r.size % Math.min(specSize(item, 'gnucobol'), r.numeric ? 31 : 40));
    const view: ElemSpec = {
      kind: 'elem',
      filler: r.filler === 0,
      usage: 'display',
      justified: false,
      style: r.style,
      pic: r.numeric ? { type: '9', digits: length, scale: 0, signed: false } : { type: 'X', length },
    };
    return { ...item, view };
  });
}

/** An item at `depth` enclosing groups: groups only while depth < 3. */
function itemArb(depth: number): fc.Arbitrary<ItemSpec> {
  if (depth >= MAX_GROUP_DEPTH) return elemArb;
  const group: fc.Arbitrary<ItemSpec> = fc
    .record({
      children: fc.array(itemArb(depth + 1), { minLength: 1, maxLength: 4 }),
      occurs: occursArb,
      usage: fc.option(fc.constantFrom<Usage>('binary', 'comp-5', 'packed-decimal'), { freq: 3, nil: undefined }),
      sign: fc.option(fc.record({ leading: fc.boolean(), separate: fc.boolean() }), { freq: 5, nil: undefined }),
      style: styleArb,
    })
    .map(({ children, occurs, usage, sign, style }) => {
      const g: GroupSpec = {
        kind: 'group',
        children,
        style,
        ...(occurs === undefined ? {} : { occurs }),
        ...(sign === undefined ? {} : { sign }),
      };
      return usage !== undefined && canTakeUsage(children, usage) ? withGroupUsage(g, usage) : g;
    });
  return fc.oneof({ weight: 3, arbitrary: elemArb }, { weight: 1, arbitrary: withView(group) });
}

/** A group USAGE other than DISPLAY needs numeric items below it (binary ones of at most 18 digits), no views. */
function canTakeUsage(items: ItemSpec[], usage: Usage): boolean {
  return items.every(
    (i) =>
      i.view === undefined &&
      (i.kind === 'group'
        ? canTakeUsage(i.children, usage)
        : i.pic.type === '9' && (usage === 'packed-decimal' || i.pic.digits <= 18)),
  );
}

function withGroupUsage(g: GroupSpec, usage: Usage): GroupSpec {
  const below = (i: ItemSpec): ItemSpec => {
    if (i.kind === 'group') {
      const inner = { ...i, children: i.children.map(below) };
      delete inner.usage;
      return inner;
    }
    const e: ElemSpec = { ...i, usage, inheritsUsage: bit(i.style, 17) };
    delete e.sign; // SIGN is for DISPLAY items
    delete e.blankWhenZero;
    return e;
  };
  return { ...g, usage, children: g.children.map(below) };
}

function countItems(items: ItemSpec[]): number {
  return items.reduce((n, i) => n + 1 + (i.view ? 1 : 0) + (i.kind === 'group' ? countItems(i.children) : 0), 0);
}

/** The ODO table's element: no OCCURS of its own, no view after it (the table is the record's last item). */
function withoutOccurs(item: ItemSpec): ItemSpec {
  const copy = { ...item };
  delete copy.occurs;
  delete copy.view;
  return copy;
}

const odoArb: fc.Arbitrary<OdoSpec> = fc
  .record({
    min: fc.integer({ min: 0, max: 4 }),
    max: fc.integer({ min: 1, max: 4 }),
    withTo: fc.boolean(),
    counter: numericElem(true),
    counterAt: fc.nat(),
    element: itemArb(1),
  })
  .map(({ min: rawMin, max, withTo, counter, counterAt, element }) => {
    // OCCURS n DEPENDING ON (without TO) means 0 to n
    const min = withTo ? Math.min(rawMin, max) : 0;
    // a VALUE on the counter is the count when JSON gives neither counter nor table: keep it in range
    const counterValue =
      counter.value === undefined
        ? undefined
        : counter.value.shown === 'ZERO' && min === 0
          ? counter.value.literal
          : String(min + (counterAt % (max - min + 1)));
    const value =
      counterValue === undefined
        ? {}
        : { value: { literal: counterValue, shown: /^Z/.test(counterValue) ? 'ZERO' : Number(counterValue) } };
    return {
      min,
      max,
      withTo,
      counterAt,
      counter: { ...counter, filler: false, ...value },
      element: { ...withoutOccurs(element), ...(element.kind === 'elem' ? { filler: false } : {}) },
    };
  });

export const copybookArb: fc.Arbitrary<CopybookSpec> = fc
  .record({
    items: fc.array(itemArb(0), { minLength: 1, maxLength: 6 }),
    odo: fc.option(odoArb, { freq: 3, nil: undefined }),
    mapping: fc.option(fc.array(fc.nat(), { minLength: 1, maxLength: 3 }), { freq: 4, nil: undefined }),
    style: styleArb,
  })
  .map(({ items, odo, mapping, style }) => {
    // at most 12 items in all, the ODO table and its counter included: drop what does not fit
    let spec: CopybookSpec;
    if (odo === undefined) spec = { items: trimItems(items, MAX_ITEMS), style };
    else {
      const element =
        odo.element.kind === 'group'
          ? { ...odo.element, children: trimItems(odo.element.children, MAX_ITEMS - 2) }
          : odo.element;
      spec = {
        items: trimItems(items, MAX_ITEMS - 2 - countItems(element.kind === 'group' ? element.children : [])),
        style,
        odo: { ...odo, element },
      };
    }
    return mapping === undefined ? spec : { ...spec, mapping: mappingOf(spec, mapping) };
  });

/** Renames (to aliasN) or leaves out a few named items; the ODO table and counter are only renamed. */
function mappingOf(spec: CopybookSpec, choices: number[]): Record<string, string | false> {
  const names: string[] = [];
  const visit = (n: NamedItem) => {
    if (n.name !== null && n.redefines === undefined) names.push(n.name);
    n.children.forEach(visit);
  };
  namedItems(spec).forEach(visit);
  const fields: Record<string, string | false> = {};
  if (names.length === 0) return fields;
  choices.forEach((c, k) => {
    const name = names[c % names.length]!;
    fields[name] = c % 3 === 0 && name !== 'CNT-0' && !name.startsWith('ODO-') ? false : `alias${k}`;
  });
  return fields;
}

/** The first items (groups cut short) that hold at most `budget` items; at least one when budget ≥ 1. */
function trimItems(items: ItemSpec[], budget: number): ItemSpec[] {
  const out: ItemSpec[] = [];
  let used = 0;
  for (const i of items) {
    const own = i.view ? 2 : 1;
    if (used + own > budget) break;
    if (i.kind === 'elem') {
      out.push(i);
      used += own;
      continue;
    }
    const children = trimItems(i.children, budget - used - own);
    if (children.length === 0) break;
    out.push(fitView({ ...i, children }));
    used += own + countItems(children);
  }
  return out;
}

// ── rendering as fixed-format copybook text ─────────────────────────────────

const pick = <T>(options: readonly T[], style: number, shift: number): T =>
  options[Math.floor(style / 2 ** shift) % options.length]!;
const bit = (style: number, shift: number) => Math.floor(style / 2 ** shift) % 2 === 1;

function repeat(symbol: string, n: number, expand: boolean): string {
  if (n === 0) return '';
  if (n === 1) return symbol;
  return expand && n <= 4 ? symbol.repeat(n) : `${symbol}(${n})`;
}

function pictureText(pic: TextPic | NumericPic, style: number): string {
  const expand = bit(style, 0);
  if (pic.type !== '9') return repeat(pic.type, pic.length, expand);
  const intDigits = pic.digits - pic.scale;
  return `${pic.signed ? 'S' : ''}${repeat('9', intDigits, expand)}${pic.scale > 0 ? `V${repeat('9', pic.scale, expand)}` : ''}`;
}

const USAGE_WORDS: Record<Usage, readonly string[]> = {
  display: ['', '', 'DISPLAY', 'USAGE DISPLAY', 'USAGE IS DISPLAY'],
  binary: ['COMP', 'BINARY', 'COMP-4', 'COMPUTATIONAL', 'USAGE IS BINARY', 'COMPUTATIONAL-4'],
  'comp-5': ['COMP-5', 'COMPUTATIONAL-5', 'USAGE COMP-5'],
  'packed-decimal': ['COMP-3', 'PACKED-DECIMAL', 'COMPUTATIONAL-3', 'USAGE IS COMP-3'],
  national: ['NATIONAL', 'USAGE NATIONAL', 'USAGE IS NATIONAL'],
  'display-1': ['DISPLAY-1', 'USAGE DISPLAY-1'],
  'comp-1': ['COMP-1', 'COMPUTATIONAL-1', 'FLOAT-SHORT'],
  'comp-2': ['COMP-2', 'COMPUTATIONAL-2', 'FLOAT-LONG'],
  index: ['INDEX', 'USAGE IS INDEX'],
  pointer: ['POINTER', 'USAGE POINTER'],
};

function signText(sign: { leading: boolean; separate: boolean }, s: number): string {
  return `${pick(['SIGN IS ', 'SIGN ', ''], s, 5)}${sign.leading ? 'LEADING' : 'TRAILING'}${sign.separate ? pick([' SEPARATE', ' SEPARATE CHARACTER'], s, 7) : ''}`;
}

function occursText(n: number, style: number): string {
  return bit(style, 12) ? `OCCURS ${n}` : `OCCURS ${n} TIMES`;
}

function elemClauses(e: ElemSpec): string[] {
  const s = e.style;
  const clauses = [`${bit(s, 1) ? 'PICTURE IS' : 'PIC'} ${pictureText(e.pic, s)}`];
  const usage = e.inheritsUsage ? '' : pick(USAGE_WORDS[e.usage], s, 2);
  if (usage !== '') clauses.push(usage);
  if (e.sign) clauses.push(signText(e.sign, s));
  if (e.justified) clauses.push(pick(['JUSTIFIED RIGHT', 'JUST RIGHT', 'JUSTIFIED', 'JUST'], s, 8));
  if (e.blankWhenZero)
    clauses.push(pick(['BLANK WHEN ZERO', 'BLANK ZERO', 'BLANK WHEN ZEROS', 'BLANK WHEN ZEROES'], s, 16));
  if (e.value) clauses.push(`${bit(s, 15) ? 'VALUE IS' : 'VALUE'} ${e.value.literal}`);
  if (e.occurs !== undefined) clauses.push(occursText(e.occurs, s));
  // clauses may come in any order: rotate them
  const k = Math.floor(s / 2 ** 10) % 3 === 0 ? Math.floor(s / 2 ** 14) % clauses.length : 0;
  return [...clauses.slice(k), ...clauses.slice(0, k)];
}

/** An item of the copybook with the name the text gives it (null: FILLER) and its ODO clause. */
export interface NamedItem {
  spec: ItemSpec;
  name: string | null;
  depth: number;
  children: NamedItem[];
  odo?: { min: number; max: number; counter: string };
  redefines?: string;
}

/** The record's items in text order, named: ITM-n / GRP-n, the counter CNT-0, the table ODO-TBL or ODO-ITM. */
export function namedItems(spec: CopybookSpec): NamedItem[] {
  let next = 1;
  const named = (i: ItemSpec, depth: number, name?: string): NamedItem => {
    if (i.kind === 'group') {
      const n: NamedItem = { spec: i, name: name ?? `GRP-${next++}`, depth, children: [] };
      n.children = i.children.flatMap((c) => withViews(c, depth + 1));
      return n;
    }
    return { spec: i, name: i.filler ? null : (name ?? `ITM-${next++}`), depth, children: [] };
  };
  const withViews = (i: ItemSpec, depth: number): NamedItem[] => {
    const base = named(i, depth);
    return i.view ? [base, { ...named(i.view, depth), redefines: base.name! }] : [base];
  };
  const out: NamedItem[] = [];
  const odo = spec.odo;
  const counterAt = odo ? odo.counterAt % (spec.items.length + 1) : -1;
  spec.items.forEach((i, k) => {
    if (k === counterAt) out.push(named(odo!.counter, 1, 'CNT-0'));
    out.push(...withViews(i, 1));
  });
  if (odo) {
    if (counterAt === spec.items.length) out.push(named(odo.counter, 1, 'CNT-0'));
    const table = named(odo.element, 1, odo.element.kind === 'group' ? 'ODO-TBL' : 'ODO-ITM');
    out.push({ ...table, odo: { min: odo.min, max: odo.max, counter: 'CNT-0' } });
  }
  return out;
}

/** Renders the spec as copybook text: fixed format (sequence area, indicator, code in columns 8–72) or free. */
export function renderCopybook(spec: CopybookSpec, format: 'fixed' | 'free' = 'fixed'): string {
  /** Code (columns 8–72 in fixed format) and the indicator of column 7: ' ', '*' comment or '-' continuation. */
  const lines: Array<{ code: string; indicator: ' ' | '*' | '-' }> = [];
  const numbered = bit(spec.style, 0);
  const continueLiterals = format === 'fixed' && bit(spec.style, 5);
  const emit = (depth: number, words: string[]) => {
    const indent = '   '.repeat(depth);
    let line = indent;
    for (const w of words) {
      const sep = line.trim() === '' ? '' : ' ';
      const room = 65 - line.length - sep.length;
      const quote = w[0];
      if (
        continueLiterals &&
        (quote === '"' || quote === "'") &&
        !w.slice(1, -1).includes(quote) &&
        room >= 2 &&
        w.length - room >= 2
      ) {
        // a literal continued: it fills the line to column 72, the next line has "-" in column 7 and reopens the quote
        flush(line + sep + w.slice(0, room));
        line = `${indent}    ${quote}${w.slice(room)}`;
        pendingContinuation = true;
        continue;
      }
      if (line.length + sep.length + w.length > 64) {
        flush(line);
        line = `${indent}    ${w}`;
      } else line += sep + w;
    }
    flush(`${line}.`);
  };
  let pendingContinuation = false;
  const flush = (code: string) => {
    lines.push({ code, indicator: pendingContinuation ? '-' : ' ' });
    pendingContinuation = false;
  };
  const level = (depth: number) => {
    const n = depth * 5;
    return bit(spec.style, 1) ? String(n) : String(n).padStart(2, '0');
  };
  const item = (n: NamedItem) => {
    const i = n.spec;
    const extra = n.odo
      ? [
          n.odo.min === 0 && !spec.odo!.withTo ? `OCCURS ${n.odo.max}` : `OCCURS ${n.odo.min} TO ${n.odo.max}`,
          pick(['TIMES DEPENDING ON', 'DEPENDING ON', 'TIMES DEPENDING'], spec.style, 3),
          n.odo.counter,
        ]
      : [];
    if (i.kind === 'group') {
      const usage = i.usage === undefined ? [] : [pick(USAGE_WORDS[i.usage], i.style, 2)];
      const sign = i.sign === undefined ? [] : [signText(i.sign, i.style)];
      emit(n.depth, [
        level(n.depth),
        n.name!,
        ...(i.occurs !== undefined ? [occursText(i.occurs, i.style)] : []),
        ...usage,
        ...sign,
        ...extra,
      ]);
      n.children.forEach(item);
      return;
    }
    const head = [
      ...(n.name === null ? (bit(i.style, 13) ? ['FILLER'] : []) : [n.name]),
      ...(n.redefines ? [`REDEFINES ${n.redefines}`] : []),
    ];
    // a literal is a word of its own, so that it can be continued on the next line
    const words = elemClauses(i).flatMap((c) => /^(VALUE(?: IS)?) (["'].*)$/.exec(c)?.slice(1) ?? [c]);
    emit(n.depth, [level(n.depth), ...head, ...words, ...extra]);
  };
  lines.push({ code: '01 REC-A.', indicator: ' ' });
  if (bit(spec.style, 2)) lines.push({ code: '  generated by test/arbitraries.ts', indicator: '*' });
  namedItems(spec).forEach(item);
  if (format === 'free') {
    const text = lines.map(({ code, indicator }) => (indicator === '*' ? `*>${code}` : code));
    return (bit(spec.style, 4) ? ['>>SOURCE FORMAT FREE', ...text] : text).join('\n');
  }
  return lines
    .map(
      ({ code, indicator }, k) => `${numbered ? String((k + 1) * 100).padStart(6, '0') : '      '}${indicator}${code}`,
    )
    .join('\n');
}

// ── profiles ─────────────────────────────────────────────────────────────────

export interface ProfileCase {
  name: string;
  options: CompileOptions;
}

export const PROFILE_CASES: readonly ProfileCase[] = [
  { name: 'gnucobol', options: { profile: 'gnucobol' } },
  { name: 'zos', options: { profile: 'zos' } },
  { name: 'zos+ascii', options: { profile: 'zos', encoding: 'ascii' } },
  { name: 'zos+latin1', options: { profile: 'zos', encoding: 'latin1' } },
  { name: 'zos+cp1140', options: { profile: 'zos', encoding: 'cp1140' } },
];

export const profileArb = fc.constantFrom(...PROFILE_CASES);

/** A compiled random copybook; prints as the copybook text and options. */
export interface LayoutCase {
  spec: CopybookSpec;
  text: string;
  profile: ProfileCase;
  options: CompileOptions;
  layout: CompiledLayout;
}

export function compileCase(spec: CopybookSpec, profile: ProfileCase): LayoutCase {
  const text = renderCopybook(spec);
  const options: CompileOptions = spec.mapping
    ? { ...profile.options, mapping: { fields: spec.mapping } }
    : profile.options;
  const layout = compileCopybook(text, options);
  return {
    spec,
    text,
    profile,
    options,
    layout,
    [fc.toStringMethod]: () => `\ncompileCopybook(${JSON.stringify(text)}, ${JSON.stringify(options)})\n${text}\n`,
  } as LayoutCase;
}

export const layoutCaseArb: fc.Arbitrary<LayoutCase> = fc
  .tuple(copybookArb, profileArb)
  .map(([spec, profile]) => compileCase(spec, profile));

// ── character sets (written from the code pages, not from src/) ──────

/** IBM code page 037: byte → Unicode (a permutation of U+0000–U+00FF); from Python's cp037 codec. */
const CP037 = Buffer.from(
  '000102039c09867f978d8e0b0c0d0e0f101112139d8508871819928f1c1d1e1f' +
    '80818283840a171b88898a8b8c050607909116939495960498999a9b14159e1a' +
    '20a0e2e4e0e1e3e5e7f1a22e3c282b7c26e9eaebe8edeeefecdf21242a293bac' +
    '2d2fc2c4c0c1c3c5c7d1a62c255f3e3ff8c9cacbc8cdcecfcc603a2340273d22' +
    'd8616263646566676869abbbf0fdfeb1b06a6b6c6d6e6f707172aabae6b8c6a4' +
    'b57e737475767778797aa1bfd0dddeae5ea3a5b7a9a7b6bcbdbe5b5dafa8b4d7' +
    '7b414243444546474849adf4f6f2f3f57d4a4b4c4d4e4f505152b9fbfcf9faff' +
    '5cf7535455565758595ab2d4d6d2d3d530313233343536373839b3dbdcd9da9f',
  'hex',
);

export const isEbcdic = (cs: Charset) => cs === 'cp037' || cs === 'cp1140';

/** Unicode character of a byte in a charset (undefined: the byte is not a character of it). */
export function charOfByte(cs: Charset, byte: number): string | undefined {
  if (cs === 'ascii') return byte < 0x80 ? String.fromCharCode(byte) : undefined;
  if (cs === 'latin1') return String.fromCharCode(byte);
  if (cs === 'cp1140' && byte === 0x9f) return '€';
  return String.fromCharCode(CP037[byte]!);
}

/** Byte of a character in a charset, undefined when the charset lacks it. */
export function byteOfChar(cs: Charset, ch: string): number | undefined {
  for (let b = 0; b < 256; b++) if (charOfByte(cs, b) === ch) return b;
  return undefined;
}

const repertoires = new Map<Charset, string[]>();
export function repertoire(cs: Charset): string[] {
  let r = repertoires.get(cs);
  if (r === undefined) {
    r = [];
    for (let b = 0; b < 256; b++) {
      const ch = charOfByte(cs, b);
      if (ch !== undefined) r.push(ch);
    }
    repertoires.set(cs, r);
  }
  return r;
}

/** A character the charset does not hold. */
export function foreignChars(cs: Charset): string[] {
  if (cs === 'ascii') return ['é', '€', 'ÿ', 'Ā', '✓'];
  if (cs === 'cp1140') return ['¤', 'Ā', '✓', '😀'];
  return ['€', 'Ā', '✓', '😀'];
}

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz ';
const PRINTABLE = Array.from({ length: 95 }, (_, i) => String.fromCharCode(0x20 + i));

function charArb(cs: Charset, alphabetic: boolean): fc.Arbitrary<string> {
  if (alphabetic) return fc.constantFrom(...LETTERS);
  return fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...PRINTABLE) },
    { weight: 1, arbitrary: fc.constantFrom(...repertoire(cs)) },
  );
}

// ── numbers ──────────────────────────────────────────────────────────────────

export interface NumericInfo {
  digits: number;
  scale: number;
  signed: boolean;
  native: boolean;
  min: bigint;
  max: bigint;
  asString: boolean;
}

/** The value range of a numeric item (scaled integers) and the JSON type decode gives it. */
export function numericInfo(item: LayoutItem): NumericInfo {
  const digits = item.digits!;
  const scale = item.scale!;
  const signed = item.signed === true;
  const native = item.usage === 'comp-5';
  if (native) {
    const bits = BigInt(item.length * 8);
    const max = signed ? (1n << (bits - 1n)) - 1n : (1n << bits) - 1n;
    const min = signed ? -(1n << (bits - 1n)) : 0n;
    // an 8-byte COMP-5 field holds up to 20 digits whatever its picture: it is a decimal string in JSON
    return { digits, scale, signed, native, min, max, asString: item.length === 8 };
  }
  const max = 10n ** BigInt(digits) - 1n;
  return { digits, scale, signed, native, min: signed ? -max : 0n, max, asString: digits > 15 };
}

/** k × 10^-scale as a canonical decimal string: no leading or trailing fractional zeros, "-" only when non-zero. */
export function decimalText(k: bigint, scale: number): string {
  const negative = k < 0n;
  let s = (negative ? -k : k).toString();
  if (scale > 0) {
    s = s.padStart(scale + 1, '0');
    const frac = s.slice(s.length - scale).replace(/0+$/, '');
    s = s.slice(0, s.length - scale) + (frac === '' ? '' : `.${frac}`);
  }
  return negative ? `-${s}` : s;
}

export function numericJson(k: bigint, scale: number, asString: boolean): number | string {
  if (asString) return decimalText(k, scale);
  const n = Number(k);
  return scale === 0 ? n : n / 10 ** scale;
}

function scaledArb(min: bigint, max: bigint): fc.Arbitrary<bigint> {
  return fc.oneof(
    { weight: 1, arbitrary: fc.constantFrom(min, max, 0n) },
    { weight: 6, arbitrary: fc.bigInt({ min, max }) },
  );
}

// ── valid values ────────────────────────────────────────────────────────────

export const keyOf = (item: LayoutItem) =>
  item.jsonPath!.slice(item.jsonPath!.lastIndexOf('.') + 1).replace(/\[\]$/, '');
export const shownChildren = (item: LayoutItem) => (item.children ?? []).filter((c) => c.jsonPath !== null);

export function odoOf(root: LayoutItem): { table: LayoutItem; counter: LayoutItem } | undefined {
  const all: LayoutItem[] = [];
  const visit = (i: LayoutItem) => {
    all.push(i);
    (i.children ?? []).forEach(visit);
  };
  visit(root);
  const table = all.find((i) => i.occurs?.dependingOn !== undefined);
  if (table === undefined) return undefined;
  const counter = all.find((i) => i.cobolName === table.occurs!.dependingOn);
  return counter ? { table, counter } : undefined;
}

export function elementaryValueArb(item: LayoutItem, cs: Charset): fc.Arbitrary<unknown> {
  if (item.kind === 'numeric') {
    const info = numericInfo(item);
    return scaledArb(info.min, info.max).map((k) => numericJson(k, info.scale, info.asString));
  }
  const alphabetic = item.kind === 'alphabetic';
  return fc.string({ unit: charArb(cs, alphabetic), maxLength: item.length }).map((s) =>
    // decode drops the padding: no trailing spaces when left-justified, no leading ones when right-justified
    item.justifiedRight ? s.replace(/^ +/, '') : s.replace(/ +$/, ''),
  );
}

function occurrenceArb(item: LayoutItem, cs: Charset): fc.Arbitrary<unknown> {
  return item.children ? groupValueArb(item, cs) : elementaryValueArb(item, cs);
}

function groupValueArb(group: LayoutItem, cs: Charset): fc.Arbitrary<Record<string, unknown>> {
  const fields: Record<string, fc.Arbitrary<unknown>> = {};
  for (const c of shownChildren(group)) {
    const one = occurrenceArb(c, cs);
    if (c.occurs === undefined) fields[keyOf(c)] = one;
    else if (c.occurs.dependingOn !== undefined)
      fields[keyOf(c)] = fc.array(one, { minLength: c.occurs.min, maxLength: c.occurs.max });
    else fields[keyOf(c)] = fc.array(one, { minLength: c.occurs.max, maxLength: c.occurs.max });
  }
  return fc.record(fields, { noNullPrototype: true });
}

/** Navigates a (non-table) JSON path template like `grp.cnt`. */
function parentOf(value: Record<string, unknown>, path: string): Record<string, unknown> {
  let o = value;
  for (const k of path.split('.').slice(0, -1)) o = o[k] as Record<string, unknown>;
  return o;
}

/**
 * Bugs the properties found in src/, each pinned by a failing `known bug:` test in property.test.ts.
 * While one is open the generators steer around it so that the properties keep looking for others; set it
 * to false once fixed.
 */

/** Valid values of a layout: every field within its picture, full fixed tables, the counter equal to the ODO length. */
export function valueArb(layout: CompiledLayout): fc.Arbitrary<Record<string, unknown>> {
  const cs = layout.profile.charset;
  const odo = odoOf(layout.root);
  return groupValueArb(layout.root, cs).map((generated) => {
    if (odo === undefined || odo.counter.jsonPath === null || odo.table.jsonPath === null) return generated;
    const v = structuredClone(generated);
    const length = (parentOf(v, odo.table.jsonPath)[keyOf(odo.table)] as unknown[]).length;
    const info = numericInfo(odo.counter);
    parentOf(v, odo.counter.jsonPath)[keyOf(odo.counter)] = numericJson(BigInt(length), 0, info.asString);
    return v;
  });
}

// ── sites: where a value can be made invalid ────────────────────────────────

export interface Site {
  role: 'root' | 'group' | 'field' | 'table';
  /** Concrete JSON path, with indexes: `grp.lines[1].qty`. */
  path: string;
  /** Keys from the record object to the site. */
  keys: Array<string | number>;
  item: LayoutItem;
  /** Byte offset of this occurrence in the record. */
  offset: number;
  /** Current (valid) value. */
  value: unknown;
}

const join = (prefix: string, key: string) => (prefix === '' ? key : `${prefix}.${key}`);

/** Every object, array and elementary value of a valid record value, with its path and byte offset. */
export function sitesOf(layout: CompiledLayout, value: Record<string, unknown>): Site[] {
  const out: Site[] = [];
  const group = (
    g: LayoutItem,
    obj: Record<string, unknown>,
    path: string,
    keys: Array<string | number>,
    delta: number,
    role: Site['role'],
  ) => {
    out.push({ role, path, keys, item: g, offset: g.offset + delta, value: obj });
    for (const c of shownChildren(g)) {
      const key = keyOf(c);
      const v = obj[key];
      const cpath = join(path, key);
      const ckeys = [...keys, key];
      if (c.occurs) {
        const arr = v as unknown[];
        out.push({ role: 'table', path: cpath, keys: ckeys, item: c, offset: c.offset + delta, value: arr });
        arr.forEach((e, i) => {
          const d = delta + i * c.length;
          if (c.children) group(c, e as Record<string, unknown>, `${cpath}[${i}]`, [...ckeys, i], d, 'group');
          else
            out.push({
              role: 'field',
              path: `${cpath}[${i}]`,
              keys: [...ckeys, i],
              item: c,
              offset: c.offset + d,
              value: e,
            });
        });
      } else if (c.children) group(c, v as Record<string, unknown>, cpath, ckeys, delta, 'group');
      else out.push({ role: 'field', path: cpath, keys: ckeys, item: c, offset: c.offset + delta, value: v });
    }
  };
  group(layout.root, value, '', [], 0, 'root');
  return out;
}

/** A copy of `value` with the site replaced. */
export function replaceAt(value: Record<string, unknown>, keys: Array<string | number>, replacement: unknown): unknown {
  if (keys.length === 0) return replacement;
  const copy = structuredClone(value);
  let o: Record<string | number, unknown> = copy;
  for (const k of keys.slice(0, -1)) o = o[k] as Record<string | number, unknown>;
  o[keys[keys.length - 1]!] = replacement;
  return copy;
}

// ── invalid values ──────────────────────────────────────────────────────────

export interface Invalid {
  label: string;
  replacement: unknown;
  expectedPath: string;
}

const pow10 = (n: number) => 10n ** BigInt(n);

function numberOrString(k: bigint, scale: number, digits: number): fc.Arbitrary<number | string> {
  const text = decimalText(k, scale);
  // a JSON number carries at most 15 digits exactly
  return digits <= 15 && Number.isSafeInteger(Number(k))
    ? fc.constantFrom<number | string>(Number(text), text)
    : fc.constant(text);
}

/** Replacement values that the site's picture cannot hold, each with the path encode must name. */
export function invalidArb(site: Site, cs: Charset): fc.Arbitrary<Invalid> {
  const at = (label: string, arb: fc.Arbitrary<unknown>, expectedPath = site.path): fc.Arbitrary<Invalid> =>
    arb.map((replacement) => ({ label, replacement, expectedPath }));
  const options: Array<fc.Arbitrary<Invalid>> = [];
  const item = site.item;
  if (site.role === 'root' || site.role === 'group') {
    options.push(at('not an object', fc.constantFrom<unknown>('x', 1, true, null, [], [{}])));
    // the derived JSON name of an item JSON does not show (left out or renamed by the mapping) is unknown too; a
    // REDEFINES view decode does not show is taken by encode under its key (encodeKey), so that key is not unknown
    const shown = new Set(shownChildren(item).map(keyOf));
    const hidden = (item.children ?? [])
      .filter((c) => c.cobolName !== 'FILLER' && c.encodeKey !== camel(c.cobolName))
      .map((c) => camel(c.cobolName))
      .filter((k) => !shown.has(k));
    const key = fc.constantFrom('zzUnknown', 'extra', 'ITM-1', 'filler', 'rec', ...hidden);
    options.push(
      key.chain((k) => at(`unknown key ${k}`, fc.constant({ ...(site.value as object), [k]: 1 }), join(site.path, k))),
    );
  } else if (site.role === 'table') {
    const arr = site.value as unknown[];
    const { min, max, dependingOn } = item.occurs!;
    const filler = arr[0] ?? (item.children ? {} : item.kind === 'numeric' ? 0 : '');
    options.push(at('not an array', fc.constantFrom<unknown>('x', 1, true, null, {}, { 0: filler })));
    options.push(
      at(
        `${max + 1} elements for OCCURS ${max}`,
        fc.constant([...arr, ...Array<unknown>(max + 1 - arr.length).fill(filler)]),
      ),
    );
    if (dependingOn !== undefined && min > 0)
      options.push(at(`${min - 1} elements for OCCURS ${min} TO ${max}`, fc.constant(arr.slice(0, min - 1))));
  } else if (item.kind === 'numeric') {
    const info = numericInfo(item);
    const { digits, scale, signed } = info;
    const sign = (k: bigint, negative: boolean) => (negative && signed ? -k : k);
    if (info.native) {
      options.push(
        at(
          'beyond the storage range',
          fc
            .tuple(fc.boolean(), fc.bigInt({ min: 1n, max: 1000n }))
            .chain(([low, j]) => numberOrString(low ? info.min - j : info.max + j, scale, info.asString ? 16 : 15)),
        ),
      );
    } else {
      options.push(
        at(
          'one digit too many',
          fc
            .tuple(fc.bigInt({ min: pow10(digits), max: pow10(digits + 1) - 1n }), fc.boolean())
            .chain(([k, neg]) => numberOrString(sign(k, neg), scale, digits + 1)),
        ),
      );
    }
    const intMax = scale >= digits ? 0n : pow10(Math.min(digits - scale, 3)) - 1n;
    options.push(
      at(
        'one decimal too many',
        fc
          .tuple(
            fc.bigInt({ min: 0n, max: intMax }),
            fc.bigInt({ min: 0n, max: pow10(scale) - 1n }),
            fc.integer({ min: 1, max: 9 }),
            fc.boolean(),
          )
          .chain(([i, f, last, neg]) =>
            numberOrString(sign(i * pow10(scale + 1) + f * 10n + BigInt(last), neg), scale + 1, 15),
          ),
      ),
    );
    if (!signed) {
      options.push(
        at(
          'negative into unsigned',
          fc
            .bigInt({ min: 1n, max: info.max < 1n ? 1n : info.max })
            .chain((k) => numberOrString(-k, scale, info.asString ? 16 : digits)),
        ),
      );
    }
    options.push(
      at('wrong JSON type', fc.constantFrom<unknown>(true, false, null, {}, [], [1], '', 'abc', '1e3', '12a')),
    );
  } else {
    const alphabetic = item.kind === 'alphabetic';
    const unit = charArb(cs, alphabetic);
    options.push(
      at('one character too long', fc.string({ unit, minLength: item.length + 1, maxLength: item.length + 1 })),
    );
    if (alphabetic) {
      options.push(
        at(
          'not a letter in PIC A',
          fc
            .tuple(
              fc.string({ unit, maxLength: item.length - 1 }),
              fc.constantFrom('1', '0', '-', '.', '_', 'é', '\t'),
              fc.nat(),
            )
            .map(([s, ch, k]) => {
              const p = k % (s.length + 1);
              return s.slice(0, p) + ch + s.slice(p);
            }),
        ),
      );
    }
    options.push(
      at(
        'a character the charset lacks',
        fc
          .tuple(fc.string({ unit, maxLength: item.length - 1 }), fc.constantFrom(...foreignChars(cs)), fc.nat())
          .filter(([s, ch]) => s.length + ch.length <= item.length)
          .map(([s, ch, k]) => {
            const p = k % (s.length + 1);
            return s.slice(0, p) + ch + s.slice(p);
          }),
      ),
    );
    options.push(at('wrong JSON type', fc.constantFrom<unknown>(0, 12.5, true, null, {}, [], ['a'])));
  }
  return fc.oneof(...options);
}

// ── corrupted bytes ─────────────────────────────────────────────────────────

export interface Corruption {
  label: string;
  bytes: Buffer;
  expectedOffset: number;
  expectedField?: string;
}

/** Bytes valid at each position of a zoned field, per the profile's charset and sign convention. */
export function zonedValidBytes(item: LayoutItem, layout: CompiledLayout, position: number): Set<number> {
  const cs = layout.profile.charset;
  const digits = item.digits!;
  const separate = item.sign?.separate === true;
  const leading = item.sign?.position === 'leading';
  const digitBytes = Array.from({ length: 10 }, (_, d) => byteOfChar(cs, String(d))!);
  if (separate && position === (leading ? 0 : digits)) return new Set([byteOfChar(cs, '+')!, byteOfChar(cs, '-')!]);
  const punchAt = item.signed && !separate ? (leading ? 0 : digits - 1) : -1;
  const valid = new Set(digitBytes);
  if (position === punchAt) {
    if (layout.profile.zonedSign === 'ascii') {
      for (let d = 0; d < 10; d++) valid.add(byteOfChar(cs, String.fromCharCode(0x70 + d))!); // GnuCOBOL: p…y negative
    } else {
      // EBCDIC zones C/D (and, as IBM reads them, A, B, E, F), translated into the charset when it is not EBCDIC
      for (const zone of [0xa0, 0xb0, 0xc0, 0xd0, 0xe0, 0xf0]) {
        for (let d = 0; d < 10; d++) {
          const e = zone | d;
          const b = isEbcdic(cs) ? e : byteOfChar(cs, String.fromCharCode(CP037[e]!));
          if (b !== undefined) valid.add(b);
        }
      }
    }
  }
  return valid;
}

function writeBinary(buf: Buffer, off: number, length: number, signed: boolean, k: bigint): void {
  if (length === 1) signed ? buf.writeInt8(Number(k), off) : buf.writeUInt8(Number(k), off);
  else if (length === 2) signed ? buf.writeInt16BE(Number(k), off) : buf.writeUInt16BE(Number(k), off);
  else if (length === 4) signed ? buf.writeInt32BE(Number(k), off) : buf.writeUInt32BE(Number(k), off);
  else signed ? buf.writeBigInt64BE(k, off) : buf.writeBigUInt64BE(k, off);
}

/** One corruption of a valid record that the decoder must refuse, with the offset it must name. */
export function corruptionArb(
  layout: CompiledLayout,
  value: Record<string, unknown>,
  bytes: Buffer,
): fc.Arbitrary<Corruption> {
  const copy = (f: (b: Buffer) => void) => {
    const b = Buffer.from(bytes);
    f(b);
    return b;
  };
  const options: Array<fc.Arbitrary<Corruption>> = [
    fc.constant({
      label: 'one byte short',
      bytes: bytes.subarray(0, bytes.length - 1),
      expectedOffset: bytes.length - 1,
    }),
    fc.constant({
      label: 'one byte too long',
      bytes: Buffer.concat([bytes, Buffer.from([bytes[0]!])]),
      expectedOffset: bytes.length,
    }),
  ];
  for (const site of sitesOf(layout, value)) {
    const item = site.item;
    if (site.role !== 'field' || item.kind !== 'numeric') continue;
    const field = item.cobolName;
    if (item.usage === 'display') {
      // the first and last bytes (where signs live) more often; any invalid byte, or one at the edges
      const position = fc.oneof(fc.constantFrom(0, item.length - 1), fc.nat({ max: item.length - 1 }));
      options.push(
        fc.tuple(position, fc.nat({ max: 255 }), fc.nat({ max: 2 })).map(([p, r, choice]) => {
          const valid = zonedValidBytes(item, layout, p);
          // BLANK WHEN ZERO: an all-space field is zero; leave spaces out so that the field is not all spaces
          const space = byteOfChar(layout.profile.charset, ' ')!;
          const invalid = Array.from({ length: 256 }, (_, b) => b).filter(
            (b) => !valid.has(b) && !(item.blankWhenZero && b === space),
          );
          const edges = [
            invalid.filter((b) => b === 0 || b === 0xff),
            invalid.filter((b) => b === 0 || b === 0xff || valid.has(b - 1) || valid.has(b + 1)),
          ][choice];
          const from = edges !== undefined && edges.length > 0 ? edges : invalid;
          const byte = from[r % from.length]!;
          const bytes = copy((b) => {
            b[site.offset + p] = byte;
          });
          // the first byte that is not valid where it stands: the corrupted one, or a space of a blank field before it
          let at = 0;
          while (zonedValidBytes(item, layout, at).has(bytes[site.offset + at]!)) at++;
          return {
            label: `zoned ${site.path}: byte ${p} = 0x${byte.toString(16)}`,
            bytes,
            expectedOffset: site.offset + at,
            expectedField: field,
          };
        }),
      );
    } else if (item.usage === 'packed-decimal') {
      const last = item.length - 1;
      options.push(
        fc.tuple(fc.nat({ max: last }), fc.boolean(), fc.nat({ max: 15 })).map(([p, high, r]) => {
          const spare = p === 0 && high && item.digits! % 2 === 0;
          const sign = p === last && !high;
          // a sign nibble must be A–F; a digit nibble 0–9; the spare first nibble of an even picture 0
          const nibble = sign ? r % 10 : spare ? 1 + (r % 15) : 10 + (r % 6);
          const kind = sign ? 'sign' : spare ? 'spare' : 'digit';
          return {
            label: `packed ${site.path}: ${kind} nibble of byte ${p} = ${nibble.toString(16)}`,
            bytes: copy((b) => {
              const o = site.offset + p;
              b[o] = high ? (nibble << 4) | (b[o]! & 0x0f) : (b[o]! & 0xf0) | nibble;
            }),
            expectedOffset: site.offset + p,
            expectedField: field,
          };
        }),
      );
    } else if (item.usage === 'binary') {
      // COMP is bounded by its picture: one past it still fits the storage (2/4/8 or 1/2/4/8 bytes)
      const limit = pow10(item.digits!);
      options.push(
        fc.boolean().map((low) => {
          const k = low && item.signed ? -limit : limit;
          return {
            label: `binary ${site.path} = ${k}`,
            bytes: copy((b) => writeBinary(b, site.offset, item.length, item.signed === true, k)),
            expectedOffset: site.offset,
            expectedField: field,
          };
        }),
      );
    }
  }
  return fc.oneof(...options);
}

/** A valid record with 0–3 random bytes written inside one numeric field: decode may refuse it or not. */
export function numericNoiseArb(
  layout: CompiledLayout,
  value: Record<string, unknown>,
  bytes: Buffer,
): fc.Arbitrary<{ label: string; bytes: Buffer }> {
  const fields = sitesOf(layout, value).filter((s) => s.role === 'field' && s.item.kind === 'numeric');
  if (fields.length === 0) return fc.constant({ label: 'unchanged', bytes });
  return fc
    .tuple(fc.nat({ max: fields.length - 1 }), fc.array(fc.tuple(fc.nat(), fc.nat({ max: 255 })), { maxLength: 3 }))
    .map(([k, writes]) => {
      const site = fields[k]!;
      const item = site.item;
      const b = Buffer.from(bytes);
      for (const [p, byte] of writes) {
        const at = p % item.length;
        b[site.offset + at] = byte;
      }
      return {
        label: `${site.path} (${item.cobolName} PIC ${item.picture} ${item.usage}) at ${site.offset}: ${writes.map(([p, x]) => `+${p % item.length}=0x${x.toString(16)}`).join(' ')}`,
        bytes: b,
      };
    });
}

/** Other spellings of a valid value: `+`, leading zeros, trailing fractional zeros, `-0`, number ⇄ string, padding. */
function spellings(site: Site): unknown[] {
  const item = site.item;
  const v = site.value;
  if (item.kind !== 'numeric') {
    const s = v as string;
    const room = item.length - s.length;
    if (room === 0) return [];
    const pad = ' '.repeat(1 + (s.length % room));
    return [item.justifiedRight ? pad + s : s + pad];
  }
  const text = String(v);
  const negative = text.startsWith('-');
  const abs = negative ? text.slice(1) : text;
  const sign = negative ? '-' : '';
  const out: unknown[] = [text, `${sign}00${abs}`, `${sign}${abs}${abs.includes('.') ? '00' : '.000'}`];
  if (!negative) out.push(`+${abs}`);
  if (/^0(\.0*)?$/.test(abs)) out.push('-0', '-0.0', -0, '+0');
  if (abs.startsWith('0.')) out.push(`${sign}${abs.slice(1)}`); // ".5"
  const significant = abs.replace('.', '').replace(/^0+/, '').replace(/0+$/, '');
  if (typeof v === 'string' && significant.length <= 15) out.push(Number(text));
  return out;
}

/** A valid value with some fields spelled differently; encode must give the same bytes. */
export function respelledArb(
  layout: CompiledLayout,
  value: Record<string, unknown>,
): fc.Arbitrary<{ json: unknown; changes: string[] }> {
  const fields = sitesOf(layout, value).filter((s) => s.role === 'field');
  return fc.array(fc.nat(), { minLength: fields.length, maxLength: fields.length }).map((choices) => {
    let json: unknown = value;
    const changes: string[] = [];
    fields.forEach((site, k) => {
      const options = spellings(site);
      const c = choices[k]! % (options.length + 1);
      if (c === options.length) return;
      json = replaceAt(json as Record<string, unknown>, site.keys, options[c]);
      changes.push(
        `${site.path}: ${JSON.stringify(site.value)} → ${Object.is(options[c], -0) ? '-0' : JSON.stringify(options[c])}`,
      );
    });
    return { json, changes };
  });
}

/** The JSON decode gives an item that encode was not sent: zero, spaces, tables full of such elements. */
export function defaultOf(item: LayoutItem): unknown {
  if (item.children) {
    return Object.fromEntries(
      shownChildren(item).map((c) => [
        keyOf(c),
        c.occurs
          ? Array.from({ length: c.occurs.dependingOn ? c.occurs.min : c.occurs.max }, () => defaultOf(c))
          : defaultOf(c),
      ]),
    );
  }
  const v = item.value;
  if (item.kind === 'numeric') {
    const k = v === undefined || v === 'ZERO' ? 0n : scaledOf(String(v), item.scale!);
    return numericJson(k, item.scale!, numericInfo(item).asString);
  }
  if (v === undefined || v === 'SPACE') return '';
  // COBOL places a VALUE left-justified, JUSTIFIED RIGHT or not (cobc 3.1: `PIC X(5) JUST RIGHT VALUE "AB"` holds "AB
  // ")
  const bytes = String(v).padEnd(item.length, ' ');
  return item.justifiedRight ? bytes.replace(/^ +/, '') : bytes.replace(/ +$/, '');
}

/** A decimal literal ("+12.5") as an integer scaled by 10^scale. */
function scaledOf(text: string, scale: number): bigint {
  const [, sign, int, frac = ''] = /^([+-]?)(\d*)(?:\.(\d*))?$/.exec(text)!;
  const k = BigInt((int || '0') + frac.padEnd(scale, '0').slice(0, scale));
  return sign === '-' ? -k : k;
}

/**
 * A valid value with fields left out and fixed tables cut short, and what decode must give for it: the
 * defaults in their place; without the ODO table its counter's count of default elements, without both the
 * minimum.
 */
export function omissionArb(
  layout: CompiledLayout,
  value: Record<string, unknown>,
): fc.Arbitrary<{ json: Record<string, unknown>; expected: Record<string, unknown>; changes: string[] }> {
  const odo = odoOf(layout.root);
  return fc.array(fc.nat(), { minLength: 1, maxLength: 40 }).map((choices) => {
    let k = 0;
    const next = () => choices[k++ % choices.length]!;
    const changes: string[] = [];
    const occurrence = (item: LayoutItem, v: unknown, path: string): [unknown, unknown] =>
      item.children ? group(item, v as Record<string, unknown>, path) : [v, v];
    const group = (
      g: LayoutItem,
      obj: Record<string, unknown>,
      path: string,
    ): [Record<string, unknown>, Record<string, unknown>] => {
      const input: Record<string, unknown> = {};
      const expected: Record<string, unknown> = {};
      for (const c of shownChildren(g)) {
        const key = keyOf(c);
        const cpath = join(path, key);
        const choice = next() % 4;
        if (choice === 0) {
          changes.push(`${cpath} left out`);
          expected[key] = c.occurs
            ? Array.from({ length: c.occurs.dependingOn ? c.occurs.min : c.occurs.max }, () => defaultOf(c))
            : defaultOf(c);
          continue;
        }
        if (!c.occurs) {
          [input[key], expected[key]] = occurrence(c, obj[key], cpath);
          continue;
        }
        const pairs = (obj[key] as unknown[]).map((e, i) => occurrence(c, e, `${cpath}[${i}]`));
        const keep = choice === 1 && c.occurs.dependingOn === undefined ? next() % c.occurs.max : pairs.length;
        if (keep < pairs.length) changes.push(`${cpath} cut to ${keep} elements`);
        input[key] = pairs.slice(0, keep).map(([i]) => i);
        expected[key] = [
          ...pairs.slice(0, keep).map(([, e]) => e),
          ...Array.from({ length: pairs.length - keep }, () => defaultOf(c)),
        ];
      }
      return [input, expected];
    };
    const [json, expected] = group(layout.root, value, '');
    if (odo && odo.table.jsonPath !== null && odo.counter.jsonPath !== null) {
      const tableKey = keyOf(odo.table);
      const counterKey = keyOf(odo.counter);
      const tableSent = tableKey in parentOf(json, odo.table.jsonPath);
      const counterSent = counterKey in parentOf(json, odo.counter.jsonPath);
      const length = (parentOf(value, odo.table.jsonPath)[tableKey] as unknown[]).length;
      const initial = odo.counter.value;
      const count =
        tableSent || counterSent
          ? length
          : initial === undefined || initial === 'ZERO'
            ? odo.table.occurs!.min
            : Number(initial);
      parentOf(expected, odo.counter.jsonPath)[counterKey] = numericJson(
        BigInt(count),
        0,
        numericInfo(odo.counter).asString,
      );
      if (!tableSent)
        parentOf(expected, odo.table.jsonPath)[tableKey] = Array.from({ length: count }, () => defaultOf(odo.table));
    }
    return { json, expected, changes };
  });
}

// ── the layout a copybook must compile to ───────────────────────────────────

/** The parts of a LayoutItem the copybook text decides (no line and column). */
export type ItemShape = Pick<
  LayoutItem,
  | 'level'
  | 'cobolName'
  | 'jsonPath'
  | 'offset'
  | 'length'
  | 'kind'
  | 'usage'
  | 'picture'
  | 'digits'
  | 'scale'
  | 'signed'
  | 'sign'
  | 'occurs'
  | 'redefines'
  | 'justifiedRight'
  | 'blankWhenZero'
  | 'value'
>;

export function shapeOf(item: LayoutItem): ItemShape {
  const {
    level,
    cobolName,
    jsonPath,
    offset,
    length,
    kind,
    usage,
    picture,
    digits,
    scale,
    signed,
    sign,
    occurs,
    redefines,
    justifiedRight,
    blankWhenZero,
    value,
  } = item;
  const shape: Record<string, unknown> = {
    level,
    cobolName,
    jsonPath,
    offset,
    length,
    kind,
    usage,
    picture,
    digits,
    scale,
    signed,
    sign,
    occurs,
    redefines,
    justifiedRight,
    blankWhenZero,
    value,
  };
  for (const k of Object.keys(shape)) if (shape[k] === undefined) delete shape[k];
  // eslint-disable-next-line no-restricted-syntax -- the shape is built field by field; its type holds once all are set
  return shape as unknown as ItemShape;
}

const camel = (name: string) =>
  name
    .toLowerCase()
    .split('-')
    .map((p, i) => (i === 0 ? p : p[0]!.toUpperCase() + p.slice(1)))
    .join('');
const run = (symbol: string, n: number) => (n === 0 ? '' : n === 1 ? symbol : `${symbol}(${n})`);

/** Bytes of one occurrence of an elementary item, by the rules of the issue (sizes by digit count per profile). */
function elementLength(e: ElemSpec, binarySizes: 'ibm' | 'gnucobol', inheritedSign?: GroupSpec['sign']): number {
  if (e.pic.type !== '9') return e.pic.length;
  const d = e.pic.digits;
  if (e.usage === 'display') return d + (e.pic.signed && (e.sign ?? inheritedSign)?.separate ? 1 : 0);
  if (e.usage === 'packed-decimal') return Math.floor(d / 2) + 1;
  if (binarySizes === 'gnucobol' && d <= 2) return 1;
  return d <= 4 ? 2 : d <= 9 ? 4 : 8;
}

/** Every item below the record, depth first, as the layout must show it; and the record's lengths. */
export function expectedLayout(
  spec: CopybookSpec,
  binarySizes: 'ibm' | 'gnucobol',
): { items: ItemShape[]; minLength: number; maxLength: number } {
  const items: ItemShape[] = [];
  let shrink = 0;
  const visit = (
    n: NamedItem,
    offset: number,
    parentPath: string | null,
    inherited: { usage?: Usage; sign?: GroupSpec['sign'] },
  ): number => {
    const i = n.spec;
    const occurs = n.odo
      ? { min: n.odo.min, max: n.odo.max, dependingOn: n.odo.counter }
      : i.occurs !== undefined
        ? { min: i.occurs, max: i.occurs }
        : undefined;
    // FILLER and REDEFINES views (the first view is the JSON one) have no JSON path, nor has what they contain
    const mapped = n.name === null ? undefined : spec.mapping?.[n.name];
    const jsonPath =
      n.name === null || n.redefines !== undefined || parentPath === null || mapped === false
        ? null
        : `${parentPath === '' ? '' : `${parentPath}.`}${mapped ?? camel(n.name)}${occurs ? '[]' : ''}`;
    const shape: Record<string, unknown> = {
      level: n.depth * 5,
      cobolName: n.name ?? 'FILLER',
      jsonPath,
      offset,
      length: 0,
      kind: 'group',
      usage: inherited.usage ?? 'display',
    };
    // the shape is built field by field; its type holds once all are set
    // eslint-disable-next-line no-restricted-syntax -- the comment above says why
    items.push(shape as unknown as ItemShape);
    if (n.redefines) shape.redefines = n.redefines;
    if (i.kind === 'group') {
      if (i.usage) shape.usage = i.usage;
      shape.length =
        place(n.children, offset, jsonPath, { usage: i.usage ?? inherited.usage, sign: i.sign ?? inherited.sign }) -
        offset;
    } else {
      shape.length = elementLength(i, binarySizes, inherited.sign);
      shape.usage = i.usage;
      if (i.pic.type !== '9') {
        shape.kind = i.pic.type === 'A' ? 'alphabetic' : 'alphanumeric';
        shape.picture = run(i.pic.type, i.pic.length);
        if (i.justified) shape.justifiedRight = true;
      } else {
        const { digits, scale, signed } = i.pic;
        Object.assign(shape, {
          kind: 'numeric',
          picture: `${signed ? 'S' : ''}${run('9', digits - scale)}${scale > 0 ? `V${run('9', scale)}` : ''}`,
          digits,
          scale,
          signed,
        });
        const sign = i.sign ?? inherited.sign;
        if (signed && i.usage === 'display')
          shape.sign = { position: sign?.leading ? 'leading' : 'trailing', separate: sign?.separate === true };
        if (i.blankWhenZero) shape.blankWhenZero = true;
      }
    }
    if (occurs) shape.occurs = occurs;
    if (i.kind === 'elem' && i.value) shape.value = i.value.shown;
    if (n.odo) shrink = (n.odo.max - n.odo.min) * (shape.length as number);
    return (shape.length as number) * (occurs?.max ?? 1);
  };
  /** Places siblings from `offset` (a view where the item before it starts); returns the end. */
  const place = (
    siblings: NamedItem[],
    offset: number,
    parentPath: string | null,
    inherited: { usage?: Usage; sign?: GroupSpec['sign'] },
  ): number => {
    let at = offset;
    let previous = offset;
    for (const c of siblings) {
      if (c.redefines) visit(c, previous, parentPath, inherited);
      else {
        previous = at;
        at += visit(c, at, parentPath, inherited);
      }
    }
    return at;
  };
  const end = place(namedItems(spec), 0, '', {});
  return { items, minLength: end - shrink, maxLength: end };
}
