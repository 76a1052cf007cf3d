/**
 * The generated encoder: straight-line code per field at constant offsets, a loop per table calling a
 * function per element. Paths for messages cost nothing until an error: loops re-anchor a thrown error's path.
 */
import { viewsOf, jsonNameOf, type BuiltLayout, type Node } from '../layout.ts';
import { literalJson } from '../template.ts';
import {
  block,
  encodeError,
  js,
  lit,
  offsetBy,
  offsetJs,
  RECORD_START,
  text,
  throwIf,
  type Code,
  type Offset,
} from './code.ts';
import { putEmptyJs } from './empty.ts';
import type { Generator } from './generator.ts';

/** The runtime function that writes each encoding. */
export const PUT = {
  text: 'putText',
  mixed: 'putMixed',
  dbcs: 'putDbcs',
  zoned: 'putZoned',
  packed: 'putPacked',
  binary: 'putBinary',
  national: 'putNational',
  nationalDecimal: 'putNationalDecimal',
  float: 'putFloat',
  edited: 'putEdited',
  scaled: 'putScaled',
} as const;

interface EncodeCtx {
  g: Generator;
  /** OCCURS DEPENDING ON table → the variable holding its count. */
  countVar: ReadonlyMap<Node, string>;
  /** Counter → the variable holding its JSON value, when given. */
  counterVar: ReadonlyMap<Node, string>;
  /** The record's defaults, copied into the buffer before any field is written. */
  template: Buffer;
}

/** A path inside `prefix`. */
export const joinPath = (prefix: string, key: string) => (prefix === '' ? key : `${prefix}.${key}`);

/** The generated expression naming the JSON type of `value`, for messages. */
const typeOf = (value: string) => js(`typeName(${value})`);

/** The JSON key encode takes for a child: shown, or a view decode does not show. */
const encodeKey = (n: Node) => n.key ?? n.altKey ?? null;

/**
 * Whether every occurrence of text field `n` holds spaces in the template and nothing else writes there
 * (no REDEFINES view shares its bytes), so that encode need not write its padding.
 */
function spacesInTemplate(template: Buffer, n: Node, space: number): boolean {
  let offsets = [n.offset];
  for (let a: Node | null = n; a !== null; a = a.parent) {
    if (a.redefines || a.parent?.children.some((sibling) => sibling.redefines === a)) return false;
    if (a.occurs && a.occurs.max > 1) {
      const step = a.length;
      offsets = offsets.flatMap((at) => Array.from({ length: a!.occurs!.max }, (_, k) => at + k * step));
      if (offsets.length > 4096) return false;
    }
  }
  return offsets.every((at) => {
    for (let i = at; i < at + n.length; i++) if (template[i] !== space) return false;
    return true;
  });
}

/**
 * Statements that check the views of each REDEFINES item in group `n`: at most one view given; with a
 * discriminator, the view matches its value, and the value is written when only the view is given.
 * Their messages name JSON keys only: the API passes them on to its clients.
 */
function encodeViews(c: EncodeCtx, n: Node, obj: string, at: Offset, origin: number, path: string): Code {
  const code: Code = [];
  for (const redefined of n.children) {
    if (redefined.redefines) continue;
    // the view decode shows first: with two views given, the error names the other one
    const views = viewsOf(redefined)
      .filter((v) => encodeKey(v) !== null)
      .sort((a, b) => Number(a.key === null) - Number(b.key === null));
    if (views.length < 2 && !redefined.choice) continue;
    const pick = c.g.id('view');
    const keys = views.map(encodeKey).join(', ');
    code.push(`let ${pick} = null;`);
    for (const view of views) {
      const key = encodeKey(view)!;
      code.push(
        ...block(`if (${obj}[${lit(key)}] !== undefined)`, [
          ...throwIf(
            `${pick} !== null`,
            encodeError(lit(joinPath(path, key)), text('is an alternative to ', js(pick), `: give one of ${keys}`)),
          ),
          `${pick} = ${lit(key)};`,
        ]),
      );
    }
    const choice = redefined.choice;
    if (!choice) continue;
    const disc = choice.discriminator;
    const discKey = disc.key!;
    const discPath = lit(joinPath(path, discKey));
    const values = [...choice.byValue.keys()].map((v) => JSON.stringify(v)).join(', ');
    const pairs = [...choice.byValue].map(([value, view]) => [value, view.key] as const);
    const keyOfValue = c.g.constant(
      'viewOf',
      new Map(pairs),
      `${disc.name} value → JSON key of ${redefined.name}'s view`,
    );
    const valueOfKey = c.g.constant(
      'valueOf',
      new Map(pairs.map(([value, key]) => [key, value])),
      `JSON key of ${redefined.name}'s view → ${disc.name} value`,
    );
    const given = c.g.id('discriminator');
    const want = c.g.id('wanted');
    const { name, f } = c.g.field(disc);
    const viewPath = path === '' ? js(pick) : js(`${lit(`${path}.`)} + ${pick}`);
    const discAt = offsetJs(offsetBy(at, disc.offset - origin));
    code.push(
      `const ${given} = ${obj}[${lit(discKey)}];`,
      ...block(
        `if (${given} !== undefined)`,
        [
          `const ${want} = ${keyOfValue}.get(String(${given}).replace(/ +$/, ''));`,
          ...throwIf(
            `${want} === undefined`,
            encodeError(discPath, text(js(`JSON.stringify(${given})`), ` is not one of ${values}`)),
          ),
          ...throwIf(
            `${pick} !== null && ${pick} !== ${want}`,
            encodeError(text(viewPath), text(`${discKey} `, js(`JSON.stringify(${given})`), ' selects ', js(want))),
          ),
        ],
        `} else if (${pick} !== null) {`,
      ),
      [`${PUT[f.type]}(buf, ${discAt}, ${name}, ${valueOfKey}.get(${pick}), ${discPath});`],
      '}',
    );
  }
  return code;
}

/** Statements that encode the JSON object in `obj` into the children of group `n`. */
function encodeMembers(c: EncodeCtx, n: Node, obj: string, at: Offset, origin: number, path: string): Code {
  const fields = [...n.children.filter((f) => f.key !== null), ...n.children.filter((f) => f.altKey !== undefined)];
  const count = c.g.id('given');
  const value = c.g.id('value');
  const known = c.g.constant('keys', new Set(fields.map(encodeKey)), `JSON keys of ${n.name}`);
  // names of REDEFINES views that JSON cannot name, for a helpful message
  const hiddenViews = n.children.filter(
    (f) => encodeKey(f) === null && f.name !== 'FILLER' && (f.redefines || n.children.some((o) => o.redefines === f)),
  );
  const hidden = c.g.constant(
    'hidden',
    new Map(hiddenViews.map((f) => [jsonNameOf(f.name), f])),
    `REDEFINES views of ${n.name} that JSON does not name`,
  );
  const code: Code = [`let ${count} = 0;`, `let ${value};`, ...encodeViews(c, n, obj, at, origin, path)];
  for (const f of fields) {
    const key = encodeKey(f)!;
    const fieldPath = joinPath(path, key);
    const fieldAt = offsetBy(at, f.offset - origin);
    const body: Code = [`${count}++;`];
    if (f.occurs) body.push(...encodeTable(c, f, value, fieldAt, fieldPath));
    else if (f.children.length > 0) body.push(...encodeGroup(c, f, value, fieldAt, f.offset, fieldPath));
    else {
      const { name, f: spec } = c.g.field(f);
      const onSpaces = !f.renames && spec.type === 'text' && spacesInTemplate(c.template, f, spec.spec.table.space);
      const put = onSpaces ? 'putTextOnSpaces' : PUT[spec.type];
      const at = offsetJs(fieldAt);
      const write = putEmptyJs(f, `${put}(buf, ${at}, ${name}, ${value}, ${lit(fieldPath)});`, at, value);
      if (f.renames) body.push(...encodeRenames(n, f, obj, write, fieldAt, fieldPath));
      else body.push(write);
      const counterVar = c.counterVar.get(f);
      if (counterVar !== undefined) body.push(`${counterVar} = ${value};`);
    }
    code.push(`${value} = ${obj}[${lit(key)}];`, ...block(`if (${value} !== undefined)`, body));
  }
  const unknown = `unknownKey(${obj}, ${known}, ${hidden}, ${lit(path)});`;
  code.push(...block(`if (${count} !== countKeys(${obj}))`, [unknown]));
  return code;
}

/**
 * A level-66 item is written after the items it renames; given with some of them (as decode shows both when
 * the mapping selects it), its bytes must be the ones they wrote.
 */
function encodeRenames(n: Node, f: Node, obj: string, write: string, at: Offset, path: string): Code {
  const end = f.offset + f.length;
  const keys = n.children
    .filter(
      (o, i, all) => (!o.renames || i < all.indexOf(f)) && o !== f && o.offset < end && o.offset + o.size > f.offset,
    )
    .map(encodeKey)
    .filter((k) => k !== null);
  if (keys.length === 0) return [write];
  const range = `${offsetJs(at)}, ${offsetJs(offsetBy(at, f.length))}`;
  const given = keys.map((k) => `${obj}[${lit(k)}] !== undefined`).join(' || ');
  const message = lit(`disagrees with ${keys.join(', ')}, which it renames`);
  return [
    `const saved = Buffer.from(buf.subarray(${range}));`,
    write,
    ...throwIf(`(${given}) && !saved.equals(buf.subarray(${range}))`, encodeError(lit(path), message)),
  ];
}

function encodeGroup(c: EncodeCtx, n: Node, value: string, at: Offset, origin: number, path: string): Code {
  const obj = c.g.id('object');
  return [
    ...throwIf(`!isObject(${value})`, encodeError(lit(path), text('expected an object, got ', typeOf(value)))),
    `const ${obj} = ${value};`,
    ...encodeMembers(c, n, obj, at, origin, path),
  ];
}

/** A loop over the array in `value`, calling a per-element function; records the count of an ODO table. */
function encodeTable(c: EncodeCtx, n: Node, value: string, at: Offset, path: string): Code {
  const fn = c.g.id('encodeElement');
  const element: Offset = { base: 'at', delta: 0 };
  let body: Code;
  if (n.children.length > 0) body = encodeGroup(c, n, 'x', element, n.offset, '');
  else {
    const { name, f } = c.g.field(n);
    body = [putEmptyJs(n, `${PUT[f.type]}(buf, at, ${name}, x, '');`, 'at', 'x')];
  }
  c.g.functions.push(...block(`function ${fn}(buf, at, x)`, body));
  const i = c.g.id('i');
  const { min, max } = n.occurs!;
  const countVar = c.countVar.get(n);
  const isOdo = countVar !== undefined;
  const length = js(`${value}.length`);
  const code: Code = [
    ...throwIf(`!Array.isArray(${value})`, encodeError(lit(path), text('expected an array, got ', typeOf(value)))),
    ...throwIf(
      `${value}.length > ${max}`,
      encodeError(lit(path), text('has ', length, ` elements; at most ${max} fit`)),
    ),
  ];
  if (isOdo && min > 0) {
    code.push(
      ...throwIf(
        `${value}.length < ${min}`,
        encodeError(lit(path), text('has ', length, ` elements; at least ${min} are required`)),
      ),
    );
  }
  code.push(
    ...block(`for (let ${i} = 0; ${i} < ${value}.length; ${i}++)`, [
      ...block('try', [`${fn}(buf, ${offsetJs(at)} + ${i} * ${n.length}, ${value}[${i}]);`], '} catch (e) {'),
      [`throw reanchor(e, ${text(path, '[', js(i), ']')});`],
      '}',
    ]),
  );
  if (countVar === 'odoCount') code.push(`odoCount = ${value}.length;`);
  else if (countVar !== undefined) {
    // one counter counts this table in every element around it: all its arrays have one length
    const counter = n.counter!.name;
    const other = text('has ', length, ` elements, but ${counter} counts `, js(countVar), ' elsewhere');
    code.push(
      ...throwIf(`${countVar} >= 0 && ${countVar} !== ${value}.length`, encodeError(lit(path), other)),
      `${countVar} = ${value}.length;`,
    );
  }
  return code;
}

/** The counts, shared with the per-element functions: encode and decode set them before any use. */
export function declareCounts(g: Generator, n: number): void {
  for (let slot = 0; slot < n; slot++) {
    const declaration = `let odoCount${slot} = -1;`;
    if (!g.declarations.includes(declaration)) g.declarations.push(declaration);
  }
}

/**
 * Complex ODO: the record is written at every maximum (constant offsets), each counter's count taken from
 * its tables' arrays, its JSON value or its default, then slid in to the actual counts.
 */
function complexEncodeBody(g: Generator, built: BuiltLayout, template: Buffer): Code {
  const { root, maxLength } = built;
  const o = built.complex!;
  const countVar = new Map(o.tables.map((t) => [t, `odoCount${o.slotOf.get(t)!}`]));
  declareCounts(g, o.counters.length);
  const counterVar = new Map(o.counters.map((c, slot) => [c, `counterJson${slot}`]));
  const code: Code = [
    ...throwIf('!isObject(json)', encodeError(lit(''), text('expected a JSON object, got ', typeOf('json')))),
    `const buf = Buffer.allocUnsafe(${maxLength});`,
    'T.copy(buf, 0);',
    ...o.counters.flatMap((_, slot) => [`odoCount${slot} = -1;`, `let counterJson${slot};`]),
    ...encodeMembers({ g, template, countVar, counterVar }, root, 'json', RECORD_START, 0, ''),
  ];
  o.counters.forEach((counter, slot) => {
    const tables = o.tables.filter((t) => t.counter === counter);
    const min = Math.max(...tables.map((t) => t.occurs!.min));
    const max = Math.min(...tables.map((t) => t.occurs!.max));
    const { name, f } = g.field(counter);
    const counterPath = lit(counter.path ?? counter.name);
    const count = `odoCount${slot}`;
    const json = `counterJson${slot}`;
    const initial = literalJson(counter);
    const defaultCount = initial === undefined ? min : Number(initial);
    const tableNames = tables.map((t) => t.path?.replace(/\[\]$/, '') ?? t.name).join(', ');
    const mismatch = text('is ', js(json), ` but ${tableNames} has `, js(count), ' elements');
    code.push(
      ...block(
        `if (${count} < 0)`,
        [`${count} = ${json} === undefined ? ${defaultCount} : odoCountOf(${json}, ${counterPath});`],
        `} else if (${json} !== undefined && odoCountOf(${json}, ${counterPath}) !== ${count}) {`,
      ),
      [`throw ${encodeError(counterPath, mismatch)};`],
      '}',
      ...throwIf(
        `${count} < ${min} || ${count} > ${max}`,
        encodeError(counterPath, text('OCCURS DEPENDING ON count ', js(count), ` is outside ${min} to ${max}`)),
      ),
      `${PUT[f.type]}(buf, ${counter.offset}, ${name}, ${count}, ${counterPath});`,
    );
  });
  return [...code, `return odoSlideIn(buf, [${o.counters.map((_, slot) => `odoCount${slot}`).join(', ')}]);`];
}

/** The body of `encode(json)`. */
export function encodeBody(g: Generator, built: BuiltLayout, template: Buffer): Code {
  const { root, odo, maxLength } = built;
  if (built.complex) return complexEncodeBody(g, built, template);
  const code: Code = [
    ...throwIf('!isObject(json)', encodeError(lit(''), text('expected a JSON object, got ', typeOf('json')))),
    `const buf = Buffer.allocUnsafe(${maxLength});`,
    'T.copy(buf, 0);',
    // the table's length and its counter's value, when given, for the count written after the members
    ...(odo ? ['let odoCount = -1;', 'let counterJson;'] : []),
    ...encodeMembers(
      {
        g,
        template,
        countVar: new Map(odo ? [[odo, 'odoCount']] : []),
        counterVar: new Map(odo ? [[odo.counter!, 'counterJson']] : []),
      },
      root,
      'json',
      RECORD_START,
      0,
      '',
    ),
  ];
  if (!odo) return [...code, 'return buf;'];
  const counter = odo.counter!;
  const { name, f } = g.field(counter);
  const counterPath = lit(counter.path ?? counter.name);
  const tablePath = odo.path?.replace(/\[\]$/, '') ?? odo.name;
  const { min, max } = odo.occurs!;
  // with neither the table nor its counter given, the counter's VALUE (else the minimum) is the count
  const initial = literalJson(counter);
  const defaultCount = initial === undefined ? min : Number(initial);
  const mismatch = text('is ', js('counterJson'), ` but ${tablePath} has `, js('odoCount'), ' elements');
  return [
    ...code,
    ...block(
      'if (odoCount < 0)',
      [`odoCount = counterJson === undefined ? ${defaultCount} : odoCountOf(counterJson, ${counterPath});`],
      `} else if (counterJson !== undefined && odoCountOf(counterJson, ${counterPath}) !== odoCount) {`,
    ),
    [`throw ${encodeError(counterPath, mismatch)};`],
    '}',
    ...throwIf(
      `odoCount < ${min} || odoCount > ${max}`,
      encodeError(counterPath, text('OCCURS DEPENDING ON count ', js('odoCount'), ` is outside ${min} to ${max}`)),
    ),
    `${PUT[f.type]}(buf, ${counter.offset}, ${name}, odoCount, ${counterPath});`,
    `return buf.subarray(0, ${odo.offset} + odoCount * ${odo.length});`,
  ];
}
