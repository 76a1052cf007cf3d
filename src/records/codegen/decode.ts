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
import type { Generator } from './generator.ts';

/** The runtime function that reads each encoding in general. */
const GET = {
  text: 'getText',
  zoned: 'getZoned',
  packed: 'getPacked',
  binary: 'getBinary',
  edited: 'getEdited',
  scaled: 'getScaled',
} as const;

/** An expression reading elementary item `f` at `at`: the fastest reader its spec allows. */
function decodeField(g: Generator, f: Node, at: string): string {
  const { name, f: field } = g.field(f);
  if (field.type === 'zoned') {
    const s = field.spec;
    if (!s.asString && !s.separate && !s.blankWhenZero && (!s.signed || !s.leading)) {
      return `getZonedTrailing(b, ${at}, ${name}, ${lit(f.name)})`;
    }
  }
  if (field.type === 'packed' && !field.spec.asString) return `getPackedNumber(b, ${at}, ${name}, ${lit(f.name)})`;
  if (field.type !== 'text') return `${GET[field.type]}(b, ${at}, ${name}, ${lit(f.name)})`;
  // the common case, single-byte ASCII-compatible text, left-justified: constants instead of a spec
  if (!field.spec.table.ebcdic && !field.spec.justifiedRight) return `getTextLatin1(b, ${at}, ${field.spec.length})`;
  return `getText(b, ${at}, ${name})`;
}

/** Statements that decode the view a discriminator's value chooses into `key` and `value`. */
function decodeChoice(
  g: Generator,
  redefined: Node,
  at: Offset,
  origin: number,
  odo: Node | null,
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
        ? decodeMembers(g, view, at, origin, odo)
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
function decodeMembers(g: Generator, n: Node, at: Offset, origin: number, odo: Node | null): { pre: Code; expr: Expr } {
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
      pre.push(...decodeChoice(g, redefined, at, origin, odo, key, value));
      entries.push([`[${key}]`, value]);
      continue;
    }
    const fieldAt = offsetJs(offsetBy(at, f.offset - origin));
    let expr: Expr;
    if (f.occurs) {
      const fn = g.id('decodeElement');
      const element =
        f.children.length > 0
          ? decodeMembers(g, f, { base: 'at', delta: 0 }, f.offset, odo)
          : { pre: [], expr: decodeField(g, f, 'at') };
      g.functions.push(...block(`function ${fn}(b, at)`, [...element.pre, ...withExpr('return ', element.expr, ';')]));
      const array = g.id('array');
      const i = g.id('i');
      const count = odo === f ? 'odoCount' : String(f.occurs.max);
      pre.push(
        `const ${array} = new Array(${count});`,
        ...block(`for (let ${i} = 0; ${i} < ${count}; ${i}++)`, [
          `${array}[${i}] = ${fn}(b, ${fieldAt} + ${i} * ${f.length});`,
        ]),
      );
      expr = array;
    } else if (f.children.length > 0) {
      const inner = decodeMembers(g, f, at, origin, odo);
      pre.push(...inner.pre);
      expr = inner.expr;
    } else {
      expr = decodeField(g, f, fieldAt);
    }
    entries.push([lit(f.key!), expr]);
  }
  return { pre, expr: { entries } };
}

/** The body of `decode(bytes)`. */
export function decodeBody(g: Generator, built: BuiltLayout): Code {
  const { root, odo, maxLength, minLength } = built;
  const decoded = decodeMembers(g, root, RECORD_START, 0, odo);
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
    const { name, f } = g.field(counter);
    const { min, max } = odo.occurs!;
    const counterName = lit(counter.name);
    const count = js('odoCount');
    // a counter wider than 15 digits decodes as a string: the count is its number
    const read = `${GET[f.type]}(b, ${counter.offset}, ${name}${f.type === 'text' ? '' : `, ${counterName}`})`;
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
        'b.length > length',
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
        `b.length > ${maxLength}`,
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
