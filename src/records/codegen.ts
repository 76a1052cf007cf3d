/**
 * Compiles a layout into specialised encode/decode functions: straight-line code per field with
 * constant offsets, a loop per table, one function per table element. Paths for error messages cost
 * nothing until an error: loops re-anchor the relative path of an error thrown inside an element.
 */
import { RecordDecodeError, RecordEncodeError } from './errors.ts';
import { getBinary, putBinary } from './encodings/binary.ts';
import { getPacked, getPackedNumber, putPacked } from './encodings/packed.ts';
import { getText, getTextLatin1, putText, putTextOnSpaces } from './encodings/text.ts';
import { getZoned, getZonedTrailing, putZoned } from './encodings/zoned.ts';
import { jsonNameOf, viewsOf, type BuiltLayout, type Node } from './layout.ts';
import { fieldSpec, type FieldSpec } from './specs.ts';
import { literalJson } from './template.ts';
import { scaledInteger, typeName } from './decimal.ts';
import type { PlatformProfile } from './types.ts';

export type EncodeFn = (json: unknown) => Buffer;
export type DecodeFn = (bytes: Uint8Array) => Record<string, unknown>;

const PUT = { text: 'putText', zoned: 'putZoned', packed: 'putPacked', binary: 'putBinary' } as const;
const GET = { text: 'getText', zoned: 'getZoned', packed: 'getPacked', binary: 'getBinary' } as const;

class Generator {
  readonly constants: unknown[] = [];
  readonly functions: string[] = [];
  private ids = 0;
  private readonly specOf = new Map<Node, string>();

  private readonly profile: PlatformProfile;

  constructor(profile: PlatformProfile) {
    this.profile = profile;
  }

  id(prefix: string): string {
    return `${prefix}${this.ids++}`;
  }

  constant(value: unknown): string {
    this.constants.push(value);
    return `K[${this.constants.length - 1}]`;
  }

  field(n: Node): { name: string; f: FieldSpec } {
    const f = fieldSpec(n, this.profile);
    let name = this.specOf.get(n);
    if (name === undefined) {
      name = this.id('s');
      this.specOf.set(n, name);
      this.functions.push(`const ${name} = ${this.constant(f.spec)};`);
    }
    return { name, f };
  }
}

const lit = (s: string) => JSON.stringify(s);
const join = (prefix: string, key: string) => (prefix === '' ? key : `${prefix}.${key}`);
const shown = (n: Node) => n.children.filter((c) => c.key !== null);

// ── encode ───────────────────────────────────────────────────────────────────

interface EncodeCtx {
  g: Generator;
  odo: Node | null;
  /** The record's defaults, copied into the buffer before any field is written. */
  template: Buffer;
}

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

/** The JSON key encode takes for a child: shown, or a view decode does not show. */
const encodeKey = (n: Node) => n.key ?? n.altKey ?? null;

/**
 * Statements that check the views of each REDEFINES item in group `n`: at most one view given; with a
 * discriminator, the view matches its value, and the value is written when only the view is given.
 * Their messages name JSON keys only: the API passes them on to its clients.
 */
function encodeViews(c: EncodeCtx, n: Node, obj: string, base: string, origin: number, path: string): string {
  let code = '';
  for (const redefined of n.children) {
    if (redefined.redefines) continue;
    // the view decode shows first: with two views given, the error names the other one
    const views = viewsOf(redefined).filter((v) => encodeKey(v) !== null).sort((a, b) => Number(a.key === null) - Number(b.key === null));
    if (views.length < 2 && !redefined.choice) continue;
    const pick = c.g.id('view');
    code += `let ${pick} = null;\n`;
    for (const view of views) {
      const key = lit(encodeKey(view)!);
      code += `if (${obj}[${key}] !== undefined) {\n` +
        `if (${pick} !== null) throw new RecordEncodeError(${lit(join(path, encodeKey(view)!))}, 'is an alternative to ' + ${pick} + ${lit(`: give one of ${views.map(encodeKey).join(', ')}`)});\n` +
        `${pick} = ${key};\n}\n`;
    }
    const choice = redefined.choice;
    if (!choice) continue;
    const disc = choice.discriminator;
    const discKey = disc.key!;
    const discPath = join(path, discKey);
    const values = [...choice.byValue.keys()];
    const keyOfValue = c.g.constant(new Map([...choice.byValue].map(([value, view]) => [value, view.key])));
    const valueOfKey = c.g.constant(new Map([...choice.byValue].map(([value, view]) => [view.key, value])));
    const d = c.g.id('d');
    const want = c.g.id('want');
    const { name, f } = c.g.field(disc);
    code += `const ${d} = ${obj}[${lit(discKey)}];\n` +
      `if (${d} !== undefined) {\n` +
      `const ${want} = ${keyOfValue}.get(String(${d}).replace(/ +$/, ''));\n` +
      `if (${want} === undefined) throw new RecordEncodeError(${lit(discPath)}, JSON.stringify(${d}) + ${lit(` is not one of ${values.map((v) => JSON.stringify(v)).join(', ')}`)});\n` +
      `if (${pick} !== null && ${pick} !== ${want}) throw new RecordEncodeError(${lit(path === '' ? '' : `${path}.`)} + ${pick}, ${lit(`${discKey} `)} + JSON.stringify(${d}) + ' selects ' + ${want});\n` +
      `} else if (${pick} !== null) {\n` +
      `${PUT[f.type]}(buf, ${base} + ${disc.offset - origin}, ${name}, ${valueOfKey}.get(${pick}), ${lit(discPath)});\n}\n`;
  }
  return code;
}

/** Statements that encode the JSON object in `obj` into the children of group `n`. */
function encodeMembers(c: EncodeCtx, n: Node, obj: string, base: string, origin: number, path: string): string {
  const fields = [...shown(n), ...n.children.filter((f) => f.altKey !== undefined)];
  const count = c.g.id('n');
  const v = c.g.id('v');
  const known = c.g.constant(new Set(fields.map(encodeKey)));
  // names of REDEFINES views that JSON cannot name, for a helpful message
  const hidden = c.g.constant(new Map(n.children.filter((f) => encodeKey(f) === null && f.name !== 'FILLER' && (f.redefines || n.children.some((o) => o.redefines === f))).map((f) => [jsonNameOf(f.name), f])));
  let code = `let ${count} = 0; let ${v};\n` + encodeViews(c, n, obj, base, origin, path);
  for (const f of fields) {
    const key = encodeKey(f)!;
    const fpath = join(path, key);
    const at = `${base} + ${f.offset - origin}`;
    code += `${v} = ${obj}[${lit(key)}];\nif (${v} !== undefined) {\n${count}++;\n`;
    if (f.occurs) code += encodeTable(c, f, v, at, fpath);
    else if (f.children.length > 0) code += encodeGroup(c, f, v, at, f.offset, fpath);
    else {
      const { name, f: spec } = c.g.field(f);
      const put = spec.type === 'text' && spacesInTemplate(c.template, f, spec.spec.table.space) ? 'putTextOnSpaces' : PUT[spec.type];
      code += `${put}(buf, ${at}, ${name}, ${v}, ${lit(fpath)});\n`;
      if (c.odo?.counter === f) code += `counterJson = ${v};\n`;
    }
    code += '}\n';
  }
  code += `if (${count} !== countKeys(${obj})) unknownKey(${obj}, ${known}, ${hidden}, ${lit(path)});\n`;
  return code;
}

function encodeGroup(c: EncodeCtx, n: Node, value: string, base: string, origin: number, path: string): string {
  const obj = c.g.id('o');
  return `if (!isObject(${value})) throw new RecordEncodeError(${lit(path)}, 'expected an object, got ' + typeName(${value}));\n` +
    `{ const ${obj} = ${value};\n${encodeMembers(c, n, obj, base, origin, path)}}\n`;
}

/** A loop over the array in `value`, calling a per-element function; records the count of an ODO table. */
function encodeTable(c: EncodeCtx, n: Node, value: string, base: string, path: string): string {
  const fn = c.g.id('encodeElement');
  const x = 'x';
  let body: string;
  if (n.children.length > 0) body = encodeGroup(c, n, x, 'at', n.offset, '');
  else {
    const { name, f } = c.g.field(n);
    body = `${PUT[f.type]}(buf, at, ${name}, ${x}, '');\n`;
  }
  c.g.functions.push(`function ${fn}(buf, at, ${x}) {\n${body}}`);
  const i = c.g.id('i');
  const { min, max } = n.occurs!;
  const isOdo = c.odo === n;
  let code = `if (!Array.isArray(${value})) throw new RecordEncodeError(${lit(path)}, 'expected an array, got ' + typeName(${value}));\n`;
  code += `if (${value}.length > ${max}) throw new RecordEncodeError(${lit(path)}, 'has ' + ${value}.length + ' elements; at most ${max} fit');\n`;
  if (isOdo && min > 0) code += `if (${value}.length < ${min}) throw new RecordEncodeError(${lit(path)}, 'has ' + ${value}.length + ' elements; at least ${min} are required');\n`;
  code += `for (let ${i} = 0; ${i} < ${value}.length; ${i}++) {\n` +
    `try { ${fn}(buf, ${base} + ${i} * ${n.length}, ${value}[${i}]); } catch (e) { throw reanchor(e, ${lit(path)} + '[' + ${i} + ']'); }\n}\n`;
  if (isOdo) code += `odoCount = ${value}.length;\n`;
  return code;
}

// ── decode ───────────────────────────────────────────────────────────────────

/** Statements that decode the view a discriminator's value chooses into `key` and `value`. */
function decodeChoice(g: Generator, redefined: Node, base: string, origin: number, odo: Node | null, key: string, value: string): string {
  const choice = redefined.choice!;
  const disc = choice.discriminator;
  const d = g.id('d');
  let code = `const ${d} = String(${decodeField(g, disc, `${base} + ${disc.offset - origin}`)}).replace(/ +$/, '');\nlet ${key}, ${value};\nswitch (${d}) {\n`;
  for (const [discValue, view] of choice.byValue) {
    const decoded = view.children.length > 0 ? decodeMembers(g, view, base, origin, odo) : { pre: '', expr: decodeField(g, view, `${base} + ${view.offset - origin}`) };
    code += `case ${lit(discValue)}: {\n${decoded.pre}${key} = ${lit(view.key!)}; ${value} = ${decoded.expr};\nbreak;\n}\n`;
  }
  const values = [...choice.byValue.keys()].map((v) => JSON.stringify(v)).join(', ');
  code += `default: throw new RecordDecodeError(${disc.offset}, ${lit(disc.name)}, 'value ' + JSON.stringify(${d}) + ${lit(` selects no view of ${redefined.name} (values: ${values})`)});\n}\n`;
  return code;
}

/** An expression building the JSON object of group `n`, plus statements it needs first. */
function decodeMembers(g: Generator, n: Node, base: string, origin: number, odo: Node | null): { pre: string; expr: string } {
  let pre = '';
  const parts: string[] = [];
  for (const f of shown(n)) {
    const redefined = f.redefines ?? f;
    if (redefined.choice) {
      // the views of a discriminated item: the one its value names, decoded where the item is
      if (f !== viewsOf(redefined).find((v) => v.key !== null)) continue;
      const key = g.id('k');
      const value = g.id('w');
      pre += decodeChoice(g, redefined, base, origin, odo, key, value);
      parts.push(`[${key}]: ${value}`);
      continue;
    }
    const at = `${base} + ${f.offset - origin}`;
    let expr: string;
    if (f.occurs) {
      const fn = g.id('decodeElement');
      const element = f.children.length > 0 ? decodeMembers(g, f, 'at', f.offset, odo) : { pre: '', expr: decodeField(g, f, 'at') };
      g.functions.push(`function ${fn}(b, at) {\n${element.pre}return ${element.expr};\n}`);
      const arr = g.id('a');
      const i = g.id('i');
      const count = odo === f ? 'odoCount' : String(f.occurs.max);
      pre += `const ${arr} = new Array(${count});\nfor (let ${i} = 0; ${i} < ${count}; ${i}++) ${arr}[${i}] = ${fn}(b, ${at} + ${i} * ${f.length});\n`;
      expr = arr;
    } else if (f.children.length > 0) {
      const inner = decodeMembers(g, f, base, origin, odo);
      pre += inner.pre;
      expr = inner.expr;
    } else {
      expr = decodeField(g, f, at);
    }
    parts.push(`${lit(f.key!)}: ${expr}`);
  }
  return { pre, expr: `{ ${parts.join(', ')} }` };
}

function decodeField(g: Generator, f: Node, at: string): string {
  const { name, f: spec } = g.field(f);
  if (spec.type === 'zoned' && !spec.spec.asString && !spec.spec.separate && !spec.spec.blankWhenZero && (!spec.spec.signed || !spec.spec.leading)) {
    return `getZonedTrailing(b, ${at}, ${name}, ${lit(f.name)})`;
  }
  if (spec.type === 'packed' && !spec.spec.asString) return `getPackedNumber(b, ${at}, ${name}, ${lit(f.name)})`;
  if (spec.type !== 'text') return `${GET[spec.type]}(b, ${at}, ${name}, ${lit(f.name)})`;
  // the common case, single-byte ASCII-compatible text, left-justified: constants instead of a spec
  if (!spec.spec.table.ebcdic && !spec.spec.justifiedRight) return `getTextLatin1(b, ${at}, ${spec.spec.length})`;
  return `getText(b, ${at}, ${name})`;
}

// ── runtime helpers the generated code closes over ──────────────────────────

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function countKeys(o: object): number {
  return Object.keys(o).length;
}

function unknownKey(o: object, known: Set<string>, hidden: Map<string, Node>, path: string): never {
  const extra = Object.keys(o).find((k) => !known.has(k)) ?? '?';
  const view = hidden.get(extra);
  const base = view?.redefines ?? view;
  const hint = !view || !base ? ''
    : base.choice ? ` (${view.name} is a view of ${base.name} that the discriminator ${base.choice.discriminator.name} names for no value)`
      : ` (${view.name} is a REDEFINES view that is not selected; select it with mapping.redefines: {"${base.name}": "${view.name}"})`;
  throw new RecordEncodeError(join(path, extra), `unknown field${hint}`);
}

function reanchor(e: unknown, prefix: string): unknown {
  return e instanceof RecordEncodeError ? e.under(prefix) : e;
}

function toBuffer(bytes: Uint8Array): Buffer {
  if (Buffer.isBuffer(bytes)) return bytes;
  if (bytes instanceof Uint8Array) return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  throw new TypeError('decode expects a Buffer or Uint8Array');
}

/** The elementary item covering `offset`, for messages about a record cut short. */
function fieldAt(root: Node, offset: number): string {
  let found = root.name;
  const visit = (n: Node, base: number) => {
    for (const c of n.children) {
      if (c.redefines) continue;
      const start = base + (c.offset - n.offset);
      const k = c.occurs && offset >= start ? Math.min(Math.floor((offset - start) / c.length), c.occurs.max - 1) : 0;
      const at = start + k * c.length;
      if (offset >= at && offset < at + c.length) {
        found = c.name;
        visit(c, at);
      }
    }
  };
  visit(root, 0);
  return found;
}

export function compileCodec(built: BuiltLayout, template: Buffer, profile: PlatformProfile): { encode: EncodeFn; decode: DecodeFn } {
  const { root, odo, maxLength, minLength } = built;
  const g = new Generator(profile);
  const c: EncodeCtx = { g, odo, template };

  let encodeBody = `if (!isObject(json)) throw new RecordEncodeError('', 'expected a JSON object, got ' + typeName(json));\n` +
    `const buf = Buffer.allocUnsafe(${maxLength});\nT.copy(buf, 0);\nlet odoCount = -1; let counterJson;\n` +
    encodeMembers(c, root, 'json', '0', 0, '');
  if (odo) {
    const counter = odo.counter!;
    const { name, f } = g.field(counter);
    const counterPath = counter.path ?? counter.name;
    const tablePath = odo.path?.replace(/\[\]$/, '') ?? odo.name;
    // with neither the table nor its counter given, the counter's VALUE (else the minimum) is the count
    const initial = literalJson(counter);
    const defaultCount = initial === undefined ? odo.occurs!.min : Number(initial);
    encodeBody += `if (odoCount < 0) odoCount = counterJson === undefined ? ${defaultCount} : odoCountOf(counterJson, ${lit(counterPath)});\n` +
      `else if (counterJson !== undefined && odoCountOf(counterJson, ${lit(counterPath)}) !== odoCount) throw new RecordEncodeError(${lit(counterPath)}, 'is ' + counterJson + ' but ${tablePath} has ' + odoCount + ' elements');\n` +
      `if (odoCount < ${odo.occurs!.min} || odoCount > ${odo.occurs!.max}) throw new RecordEncodeError(${lit(counterPath)}, 'OCCURS DEPENDING ON count ' + odoCount + ' is outside ${odo.occurs!.min} to ${odo.occurs!.max}');\n` +
      `${PUT[f.type]}(buf, ${counter.offset}, ${name}, odoCount, ${lit(counterPath)});\n` +
      `return buf.subarray(0, ${odo.offset} + odoCount * ${odo.length});\n`;
  } else {
    encodeBody += 'return buf;\n';
  }

  const decoded = decodeMembers(g, root, '0', 0, odo);
  let decodeBody = `const b = toBuffer(bytes);\nif (b.length < ${minLength}) throw new RecordDecodeError(b.length, fieldAt(b.length), 'the record is ' + b.length + ' bytes; it ends inside this field (the layout needs at least ${minLength})');\n`;
  if (odo) {
    const counter = odo.counter!;
    const { name, f } = g.field(counter);
    const { min, max } = odo.occurs!;
    // a counter wider than 15 digits decodes as a string: the count is its number
    decodeBody += `const odoCount = Number(${GET[f.type]}(b, ${counter.offset}, ${name}${f.type === 'text' ? '' : `, ${lit(counter.name)}`}));\n` +
      `if (!(odoCount >= ${min} && odoCount <= ${max})) throw new RecordDecodeError(${counter.offset}, ${lit(counter.name)}, 'OCCURS DEPENDING ON count ' + odoCount + ' is outside ${min} to ${max}');\n` +
      `const length = ${odo.offset} + odoCount * ${odo.length};\n` +
      `if (b.length < length) throw new RecordDecodeError(b.length, fieldAt(b.length), 'the record is ' + b.length + ' bytes; ' + ${lit(counter.name)} + ' = ' + odoCount + ' needs ' + length);\n` +
      `if (b.length > length) throw new RecordDecodeError(length, ${lit(root.name)}, 'the record is ' + b.length + ' bytes; ' + ${lit(counter.name)} + ' = ' + odoCount + ' makes it ' + length);\n`;
  } else {
    decodeBody += `if (b.length > ${maxLength}) throw new RecordDecodeError(${maxLength}, ${lit(root.name)}, 'the record is ' + b.length + ' bytes; the layout has ${maxLength}');\n`;
  }
  decodeBody += `${decoded.pre}return ${decoded.expr};\n`;

  const source = `"use strict";\n${g.functions.join('\n')}\nreturn { encode: function encode(json) {\n${encodeBody}}, decode: function decode(bytes) {\n${decodeBody}} };`;
  const runtime = {
    K: g.constants, T: template, RecordEncodeError, RecordDecodeError, Buffer, isObject, countKeys, unknownKey, reanchor, typeName,
    toBuffer, fieldAt: (offset: number) => fieldAt(root, offset), odoCountOf, putText, putTextOnSpaces, putZoned, putPacked, putBinary, getText,
    getTextLatin1, getZoned, getZonedTrailing, getPacked, getPackedNumber, getBinary,
  };
  const factory = new Function(...Object.keys(runtime), source) as (...args: unknown[]) => { encode: EncodeFn; decode: DecodeFn };
  return factory(...Object.values(runtime));
}

/** The count a counter's JSON value stands for: any value its picture takes ("2", 2, "2.0", "+2"). */
function odoCountOf(v: unknown, path: string): number {
  return Number(scaledInteger(v, 0, path));
}
