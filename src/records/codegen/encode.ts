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
import type { Generator } from './generator.ts';

/** The runtime function that writes each encoding. */
export const PUT = {
  text: 'putText',
  zoned: 'putZoned',
  packed: 'putPacked',
  binary: 'putBinary',
  edited: 'putEdited',
  scaled: 'putScaled',
} as const;

interface EncodeCtx {
  g: Generator;
  odo: Node | null;
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
      const onSpaces = spec.type === 'text' && spacesInTemplate(c.template, f, spec.spec.table.space);
      const put = onSpaces ? 'putTextOnSpaces' : PUT[spec.type];
      body.push(`${put}(buf, ${offsetJs(fieldAt)}, ${name}, ${value}, ${lit(fieldPath)});`);
      if (c.odo?.counter === f) body.push(`counterJson = ${value};`);
    }
    code.push(`${value} = ${obj}[${lit(key)}];`, ...block(`if (${value} !== undefined)`, body));
  }
  const unknown = `unknownKey(${obj}, ${known}, ${hidden}, ${lit(path)});`;
  code.push(...block(`if (${count} !== countKeys(${obj}))`, [unknown]));
  return code;
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
    body = [`${PUT[f.type]}(buf, at, ${name}, x, '');`];
  }
  c.g.functions.push(...block(`function ${fn}(buf, at, x)`, body));
  const i = c.g.id('i');
  const { min, max } = n.occurs!;
  const isOdo = c.odo === n;
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
  if (isOdo) code.push(`odoCount = ${value}.length;`);
  return code;
}

/** The body of `encode(json)`. */
export function encodeBody(g: Generator, built: BuiltLayout, template: Buffer): Code {
  const { root, odo, maxLength } = built;
  const code: Code = [
    ...throwIf('!isObject(json)', encodeError(lit(''), text('expected a JSON object, got ', typeOf('json')))),
    `const buf = Buffer.allocUnsafe(${maxLength});`,
    'T.copy(buf, 0);',
    // the table's length and its counter's value, when given, for the count written after the members
    ...(odo ? ['let odoCount = -1;', 'let counterJson;'] : []),
    ...encodeMembers({ g, odo, template }, root, 'json', RECORD_START, 0, ''),
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
