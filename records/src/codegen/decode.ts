/**
 * The generated decoder: one object literal per group, read at constant offsets; a function per table
 * element; the view a discriminator names, chosen by a switch.
 */
import { viewsOf, type BuiltLayout, type Node } from '../layout.ts';
import {
  block,
  decodeError,
  js,
  lit,
  offsetBy,
  offsetJs,
  RECORD_START,
  text,
  throwIf,
  withExpr,
  type Code,
  type Expr,
  type Offset,
} from './code.ts';
import { declareCounts } from './encode.ts';
import { decodeEmptyJs } from './empty.ts';
import type { Generator } from './generator.ts';
import { binaryReader } from '../encodings/binary.ts';
import { latin1Translation, unicodeTranslation } from '../encodings/text.ts';

/** The variable holding each OCCURS DEPENDING ON table's count in the generated code. */
type Counts = ReadonlyMap<Node, string>;

/** The runtime function that reads each encoding in general. */
export const GET = {
  text: 'getText',
  mixed: 'getMixed',
  dbcs: 'getDbcs',
  zoned: 'getZoned',
  packed: 'getPacked',
  binary: 'getBinary',
  national: 'getNational',
  nationalDecimal: 'getNationalDecimal',
  float: 'getFloat',
  edited: 'getEdited',
  scaled: 'getScaled',
} as const;

/** An expression reading elementary item `f` at `at`: the fastest reader its spec allows. */
function decodeField(g: Generator, f: Node, at: string): string {
  const { name, f: field } = g.field(f);
  if (f.empty && field.type !== 'text' && field.type !== 'national')
    return decodeEmptyJs(g, f, at, name, GET[field.type]);
  if (field.type === 'zoned') {
    const s = field.spec;
    if (!s.asString && !s.separate && !s.blankWhenZero && (!s.signed || !s.leading)) {
      const constants = `${s.digit[0]}, ${s.signed ? 0 : 256}, ${10 ** s.scale}`;
      return `getZonedConstants(b, ${at}, ${at} + ${s.digits - 1}, ${constants}, ${name}, ${lit(f.name)})`;
    }
  }
  if (field.type === 'packed' && !field.spec.asString) {
    const { length, signed, digits, scale } = field.spec;
    const constants = `${signed ? 0 : 256}, ${digits % 2 === 0 ? 0x10 : 0x100}, ${10 ** scale}`;
    return `getPackedConstants(b, ${at}, ${at} + ${length - 1}, ${constants}, ${name}, ${lit(f.name)})`;
  }
  if (field.type === 'binary') {
    const reader = binaryReader(field.spec);
    const { min, max, scale } = field.spec;
    if (reader !== null) {
      const constants = `${at}, ${String(min)}, ${String(max)}, ${10 ** scale}`;
      return `binaryValue(b.${reader}(${at}), ${constants}, b, ${name}, ${lit(f.name)})`;
    }
  }
  if (field.type !== 'text') return `${GET[field.type]}(b, ${at}, ${name}, ${lit(f.name)})`;
  // the common case, single-byte ASCII-compatible text, left-justified: constants instead of a spec
  const { table, justifiedRight, length } = field.spec;
  if (!table.ebcdic && !justifiedRight) return `getTextLatin1(b, ${at}, ${length})`;
  // a page with bytes that map to nothing checks each byte, to name the one that does not
  if (table.holes) return `getTextStrict(b, ${at}, ${name}, ${lit(f.name)})`;
  if (!justifiedRight) {
    // EBCDIC: bytes translated through a table of the page, then one string
    const latin1 = latin1Translation(table);
    const map = latin1 ?? unicodeTranslation(table);
    const mapName = g.constant(latin1 ? 'toLatin1' : 'toUnicode', map, `${table.name} byte → character`);
    return `${latin1 ? 'getTextLatin1Mapped' : 'getTextWide'}(b, ${at}, ${length}, ${table.space}, ${mapName})`;
  }
  return `getText(b, ${at}, ${name})`;
}

/** Statements that decode the view a discriminator's value chooses into `key` and `value`. */
function decodeChoice(
  g: Generator,
  redefined: Node,
  at: Offset,
  origin: number,
  counts: Counts,
  key: string,
  value: string,
): Code {
  const choice = redefined.choice!;
  const disc = choice.discriminator;
  const given = g.id('discriminator');
  const cases: Code = [];
  for (const [discValue, view] of choice.byValue) {
    const decoded =
      view.children.length > 0
        ? decodeMembers(g, view, at, origin, counts)
        : { pre: [], expr: decodeField(g, view, offsetJs(offsetBy(at, view.offset - origin))) };
    cases.push(
      ...block(`case ${lit(discValue)}:`, [
        ...decoded.pre,
        `${key} = ${lit(view.key!)};`,
        ...withExpr(`${value} = `, decoded.expr, ';'),
        'break;',
      ]),
    );
  }
  const values = [...choice.byValue.keys()].map((v) => JSON.stringify(v)).join(', ');
  const selectsNone = ` selects no view of ${redefined.name} (values: ${values})`;
  const message = text('value ', js(`JSON.stringify(${given})`), selectsNone);
  cases.push('default:', [`throw ${decodeError(String(disc.offset), lit(disc.name), message)};`]);
  const read = decodeField(g, disc, offsetJs(offsetBy(at, disc.offset - origin)));
  return [
    `const ${given} = String(${read}).replace(/ +$/, '');`,
    `let ${key};`,
    `let ${value};`,
    ...block(`switch (${given})`, cases),
  ];
}

/** The JSON object of group `n` as an expression, and the statements it needs first. */
function decodeMembers(g: Generator, n: Node, at: Offset, origin: number, counts: Counts): { pre: Code; expr: Expr } {
  const pre: Code = [];
  const entries: Array<readonly [string, Expr]> = [];
  for (const f of n.children) {
    if (f.key === null) continue;
    const redefined = f.redefines ?? f;
    if (redefined.choice) {
      // the views of a discriminated item: the one its value names, decoded where the item is
      if (f !== viewsOf(redefined).find((v) => v.key !== null)) continue;
      const key = g.id('viewKey');
      const value = g.id('view');
      pre.push(...decodeChoice(g, redefined, at, origin, counts, key, value));
      entries.push([`[${key}]`, value]);
      continue;
    }
    const fieldAt = offsetJs(offsetBy(at, f.offset - origin));
    let expr: Expr;
    if (f.occurs) {
      const fn = g.id('decodeElement');
      const element =
        f.children.length > 0
          ? decodeMembers(g, f, { base: 'at', delta: 0 }, f.offset, counts)
          : { pre: [], expr: decodeField(g, f, 'at') };
      g.functions.push(...block(`function ${fn}(b, at)`, [...element.pre, ...withExpr('return ', element.expr, ';')]));
      const array = g.id('array');
      const i = g.id('i');
      const count = counts.get(f) ?? String(f.occurs.max);
      pre.push(
        `const ${array} = new Array(${count});`,
        ...block(`for (let ${i} = 0; ${i} < ${count}; ${i}++)`, [
          `${array}[${i}] = ${fn}(b, ${fieldAt} + ${i} * ${f.length});`,
        ]),
      );
      expr = array;
    } else if (f.children.length > 0) {
      const inner = decodeMembers(g, f, at, origin, counts);
      pre.push(...inner.pre);
      expr = inner.expr;
    } else {
      expr = decodeField(g, f, fieldAt);
    }
    entries.push([lit(f.key!), expr]);
  }
  return { pre, expr: { entries } };
}

/** An expression reading a counter: a counter wider than 15 digits decodes as a string, the count is its number. */
function readCounter(g: Generator, counter: Node): string {
  const { name, f } = g.field(counter);
  return `${GET[f.type]}(b, ${counter.offset}, ${name}${f.type === 'text' ? '' : `, ${lit(counter.name)}`})`;
}

/**
 * Complex ODO: the counters (all before the first variable table) give the record's length; the bytes are
 * slid out to the layout at every maximum and read at constant offsets; an error's offset is slid back.
 */
function complexDecodeBody(g: Generator, built: BuiltLayout): Code {
  const { root, minLength } = built;
  const o = built.complex!;
  const countOf = new Map<Node, string>(o.tables.map((t) => [t, `odoCount${o.slotOf.get(t)!}`]));
  declareCounts(g, o.counters.length);
  const decoded = decodeMembers(g, root, RECORD_START, 0, countOf);
  const length = js('b.length');
  const code: Code = [
    'const b0 = toBuffer(bytes);',
    ...throwIf(
      `b0.length < ${minLength}`,
      decodeError(
        'b0.length',
        lit(root.name),
        text('the record is ', js('b0.length'), ` bytes; the layout needs at least ${minLength}`),
      ),
    ),
    'let b = b0;',
  ];
  o.counters.forEach((counter, slot) => {
    const { min, max } = o.tables
      .filter((t) => t.counter === counter)
      .reduce((r, t) => ({ min: Math.max(r.min, t.occurs!.min), max: Math.min(r.max, t.occurs!.max) }), {
        min: 0,
        max: Number.MAX_SAFE_INTEGER,
      });
    const count = js(`odoCount${slot}`);
    code.push(
      `odoCount${slot} = Number(${readCounter(g, counter)});`,
      ...throwIf(
        `!(odoCount${slot} >= ${min} && odoCount${slot} <= ${max})`,
        decodeError(
          String(counter.offset),
          lit(counter.name),
          text('OCCURS DEPENDING ON count ', count, ` is outside ${min} to ${max}`),
        ),
      ),
    );
  });
  const counts = `[${o.counters.map((_, slot) => `odoCount${slot}`).join(', ')}]`;
  const names = o.counters.map((c) => c.name).join(', ');
  code.push(
    `const counts = ${counts};`,
    `const length = odoLength(counts);`,
    ...throwIf(
      'b.length < length || (b.length > length && !ignoreTrailing)',
      decodeError(
        'Math.min(b.length, length)',
        lit(root.name),
        text('the record is ', length, ` bytes; the counts in ${names} make it `, js('length')),
      ),
    ),
    'if (b.length > length) b = b.subarray(0, length);',
    'b = odoSlideOut(b, counts);',
  );
  const body: Code = [...decoded.pre, ...withExpr('return ', decoded.expr, ';')];
  return [...code, ...block('try', body, '} catch (e) {'), ['throw odoReanchor(e, counts);'], '}'];
}

/** The body of `decode(bytes)`. */
export function decodeBody(g: Generator, built: BuiltLayout): Code {
  const { root, odo, maxLength, minLength } = built;
  if (built.complex) return complexDecodeBody(g, built);
  const decoded = decodeMembers(g, root, RECORD_START, 0, new Map(odo ? [[odo, 'odoCount']] : []));
  const length = js('b.length');
  const code: Code = [
    'const b = toBuffer(bytes);',
    ...throwIf(
      `b.length < ${minLength}`,
      decodeError(
        'b.length',
        'fieldAt(b.length)',
        text('the record is ', length, ` bytes; it ends inside this field (the layout needs at least ${minLength})`),
      ),
    ),
  ];
  if (odo) {
    const counter = odo.counter!;
    const { min, max } = odo.occurs!;
    const counterName = lit(counter.name);
    const count = js('odoCount');
    // a counter wider than 15 digits decodes as a string: the count is its number
    const read = readCounter(g, counter);
    code.push(
      `const odoCount = Number(${read});`,
      ...throwIf(
        `!(odoCount >= ${min} && odoCount <= ${max})`,
        decodeError(
          String(counter.offset),
          counterName,
          text('OCCURS DEPENDING ON count ', count, ` is outside ${min} to ${max}`),
        ),
      ),
      `const length = ${odo.offset} + odoCount * ${odo.length};`,
      ...throwIf(
        'b.length < length',
        decodeError(
          'b.length',
          'fieldAt(b.length)',
          text('the record is ', length, ` bytes; ${counter.name} = `, count, ' needs ', js('length')),
        ),
      ),
      ...throwIf(
        'b.length > length && !ignoreTrailing',
        decodeError(
          'length',
          lit(root.name),
          text('the record is ', length, ` bytes; ${counter.name} = `, count, ' makes it ', js('length')),
        ),
      ),
    );
  } else {
    code.push(
      ...throwIf(
        `b.length > ${maxLength} && !ignoreTrailing`,
        decodeError(
          String(maxLength),
          lit(root.name),
          text('the record is ', length, ` bytes; the layout has ${maxLength}`),
        ),
      ),
    );
  }
  return [...code, ...decoded.pre, ...withExpr('return ', decoded.expr, ';')];
}
