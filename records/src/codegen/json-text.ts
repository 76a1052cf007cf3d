/**
 * The generated JSON writer: `decodeJson(bytes, out, at)` writes the bytes of `JSON.stringify(decode(bytes))`
 * into `out` at `at` and returns where they end, with no object or string made on the way for text, zoned and
 * packed fields: keys are byte constants, text goes through a table of the code page to escaped UTF-8, numbers
 * are written digit by digit. Other fields are read by decode's own readers and their value written.
 * Whatever the fast path does not take (bytes decode refuses included) goes to `decode` itself: its value is
 * written as JSON.stringify prints it, or its error thrown, so output and errors are the decoder's.
 */
import type { BuiltLayout, Node } from '../layout.ts';
import type { PlatformProfile } from '../types.ts';
import { binaryReader } from '../encodings/binary.ts';
import {
  jsonBytes,
  jsonNumber,
  jsonPackedDecimal,
  jsonScaled,
  jsonText,
  jsonTextMap,
  jsonTextRight,
  jsonUint,
  jsonValue,
  jsonZoned,
  jsonZonedDecimal,
  NOT_FAST,
  packedInteger,
  zonedInteger,
} from '../encodings/json.ts';
import { block, lit, offsetBy, offsetJs, RECORD_START, render, type Code, type Offset } from './code.ts';
import { GET } from './decode.ts';
import { decodeEmptyJs } from './empty.ts';
import { Generator } from './generator.ts';
import { runtimeOf } from './runtime.ts';

export type DecodeJsonFn = (bytes: Uint8Array, out: Buffer, at: number) => number;

/** A layout the fast path does not follow (views chosen by a discriminator, complex ODO, keys out of order). */
class NotGenerated extends Error {}

/** Up to this many constant bytes are written as assignments, longer runs by a copy. */
const INLINE_BYTES = 24;

/** Statements of one function, with the constant bytes not yet written. */
class Body {
  readonly code: Code = [];
  private pending: number[] = [];
  private readonly g: Generator;

  constructor(g: Generator) {
    this.g = g;
  }

  /** Bytes every record has here (punctuation, keys), written together before the next statement. */
  text(s: string): void {
    this.pending.push(...Buffer.from(s, 'utf8'));
  }

  /** A statement, after the constant bytes before it. */
  emit(...lines: Code): void {
    this.flush();
    this.code.push(...lines);
  }

  flush(): void {
    const bytes = this.pending;
    if (bytes.length === 0) return;
    this.pending = [];
    const about = Buffer.from(bytes).toString('utf8');
    if (bytes.length <= INLINE_BYTES) {
      // four bytes a store through a DataView of `out`, the rest one by one
      const at = (k: number) => (k === 0 ? 'p' : `p + ${k}`);
      const stores: string[] = [];
      let k = 0;
      for (; k + 4 <= bytes.length; k += 4) {
        const word = ((bytes[k]! << 24) | (bytes[k + 1]! << 16) | (bytes[k + 2]! << 8) | bytes[k + 3]!) >>> 0;
        stores.push(`view.setUint32(${at(k)}, 0x${word.toString(16)});`);
      }
      for (; k < bytes.length; k++) stores.push(`out[${at(k)}] = ${bytes[k]};`);
      this.code.push(`${stores.join(' ')} p += ${bytes.length}; // ${JSON.stringify(about).slice(1, -1)}`);
    } else {
      const name = this.g.constant('bytes', Uint8Array.from(bytes), about);
      this.code.push(`p = jsonBytes(out, p, ${name});`);
    }
  }
}

/** Whether JSON.stringify prints an object's keys in the order decode's object literal gives them. */
function keysInOrder(keys: Iterable<string>): boolean {
  const seen = new Set<string>();
  for (const key of keys) {
    // an array index comes first in a JS object, `__proto__` sets the prototype, a second key replaces the first
    if (/^\d+$/.test(key) || key === '__proto__' || seen.has(key)) return false;
    seen.add(key);
  }
  return true;
}

/** Statements writing elementary item `f` at `at` (an expression) as JSON. */
function writeField(g: Generator, w: Body, f: Node, at: string): void {
  const { name, f: field } = g.field(f);
  const fieldName = lit(f.name);
  if (f.empty && field.type !== 'text' && field.type !== 'national') {
    w.emit(`p = jsonValue(out, p, ${decodeEmptyJs(g, f, at, name, GET[field.type])});`);
    return;
  }
  if (field.type === 'text') {
    const { table, justifiedRight, length } = field.spec;
    const map = jsonTextMap(table);
    const fast = g.constant('jsonFast', map.fast, `${table.name} byte → JSON byte`);
    const rare = g.constant('jsonRare', map.rare, `${table.name} byte → JSON bytes`);
    // decode trims 0x20 from ASCII-based text read left-justified, the page's space elsewhere
    const space = !table.ebcdic && !justifiedRight ? 0x20 : table.space;
    const write = justifiedRight ? 'jsonTextRight' : 'jsonText';
    w.emit(`p = ${write}(out, p, b, ${at}, ${at} + ${length}, ${space}, ${fast}, ${rare});`);
    return;
  }
  if (field.type === 'zoned') {
    const s = field.spec;
    if (!s.separate && !s.blankWhenZero && (!s.signed || !s.leading)) {
      const args = `b, ${at}, ${at} + ${s.digits - 1}, ${s.digit[0]}, ${s.signed ? 0 : 256}`;
      if (s.asString) {
        w.emit(`p = jsonZonedDecimal(out, p, ${args}, ${s.scale}, ${name});`, 'if (p < 0) throw NOT_FAST;');
      } else if (s.scale <= 6) {
        w.emit(`p = jsonZoned(out, p, ${args}, ${s.scale}, ${name});`, 'if (p < 0) throw NOT_FAST;');
      } else {
        w.emit(`n = zonedInteger(${args}, ${name});`, 'if (n !== n) throw NOT_FAST;');
        writeScaled(w, s.scale);
      }
      return;
    }
  }
  if (field.type === 'packed') {
    const { length, signed, digits, scale, asString } = field.spec;
    const args = `b, ${at}, ${at} + ${length - 1}, ${signed ? 0 : 256}, ${digits % 2 === 0 ? 0x10 : 0x100}`;
    if (asString) {
      w.emit(`p = jsonPackedDecimal(out, p, ${args}, ${scale});`, 'if (p < 0) throw NOT_FAST;');
    } else {
      w.emit(`n = packedInteger(${args});`, 'if (n !== n) throw NOT_FAST;');
      writeScaled(w, scale);
    }
    return;
  }
  if (field.type === 'binary') {
    const reader = binaryReader(field.spec);
    const { min, max, scale } = field.spec;
    if (reader !== null) {
      const constants = `${at}, ${String(min)}, ${String(max)}, ${10 ** scale}`;
      w.emit(`p = jsonNumber(out, p, binaryValue(b.${reader}(${at}), ${constants}, b, ${name}, ${fieldName}));`);
      return;
    }
  }
  w.emit(`p = jsonValue(out, p, ${GET[field.type]}(b, ${at}, ${name}, ${fieldName}));`);
}

/** The integer `n` over 10^scale, as decode's number for it prints. */
function writeScaled(w: Body, scale: number): void {
  // JSON.stringify prints below 1e-6 with an exponent: such scales print through the number itself
  if (scale <= 6) w.emit(`p = jsonScaled(out, p, n, ${scale});`);
  else w.emit(`p = jsonNumber(out, p, n / ${10 ** scale} + 0);`);
}

/** Statements writing group `n` as a JSON object, as decode's object literal of it prints. */
function writeMembers(
  g: Generator,
  w: Body,
  n: Node,
  at: Offset,
  origin: number,
  counts: ReadonlyMap<Node, string>,
): void {
  const shown = n.children.filter((f) => f.key !== null);
  if (!keysInOrder(shown.map((f) => f.key!))) throw new NotGenerated();
  w.text('{');
  shown.forEach((f, k) => {
    if ((f.redefines ?? f).choice) throw new NotGenerated();
    w.text(`${k === 0 ? '' : ','}${JSON.stringify(f.key)}:`);
    const fieldAt = offsetJs(offsetBy(at, f.offset - origin));
    if (f.occurs) {
      const fn = g.id('jsonElement');
      const element = new Body(g);
      if (f.children.length > 0) writeMembers(g, element, f, { base: 'at', delta: 0 }, f.offset, counts);
      else writeField(g, element, f, 'at');
      element.flush();
      g.functions.push(...block(`function ${fn}(b, at, out, p)`, ['let n = 0;', ...element.code, 'return p;']));
      const i = g.id('i');
      const count = counts.get(f) ?? String(f.occurs.max);
      w.text('[');
      w.emit(
        ...block(`for (let ${i} = 0; ${i} < ${count}; ${i}++)`, [
          `if (${i} !== 0) out[p++] = 44;`,
          `p = ${fn}(b, ${fieldAt} + ${i} * ${f.length}, out, p);`,
        ]),
      );
      w.text(']');
    } else if (f.children.length > 0) {
      writeMembers(g, w, f, at, origin, counts);
    } else {
      writeField(g, w, f, fieldAt);
    }
  });
  w.text('}');
}

/** The body of `decodeJson`'s fast path: the checks that keep decode's errors away, then the writes. */
function fastBody(g: Generator, built: BuiltLayout): Code {
  const { root, odo, minLength, maxLength } = built;
  if (built.complex) throw new NotGenerated();
  const w = new Body(g);
  w.emit('const b = toBuffer(bytes);');
  if (odo) {
    const counter = odo.counter!;
    const { name, f } = g.field(counter);
    const read = `${GET[f.type]}(b, ${counter.offset}, ${name}${f.type === 'text' ? '' : `, ${lit(counter.name)}`})`;
    const { min, max } = odo.occurs!;
    w.emit(
      `if (b.length < ${minLength}) throw NOT_FAST;`,
      `const odoCount = Number(${read});`,
      `if (!(odoCount >= ${min} && odoCount <= ${max}) || b.length !== ${odo.offset} + odoCount * ${odo.length}) throw NOT_FAST;`,
    );
  } else {
    if (minLength !== maxLength) throw new NotGenerated();
    w.emit(`if (b.length !== ${maxLength}) throw NOT_FAST;`);
  }
  w.emit(
    'if (out !== viewOf) {',
    ['viewOf = out;', 'view = new DataView(out.buffer, out.byteOffset, out.byteLength);'],
    '}',
  );
  w.emit('let p = at;', 'let n = 0;');
  writeMembers(g, w, root, RECORD_START, 0, new Map(odo ? [[odo, 'odoCount']] : []));
  w.emit('return p;');
  return w.code;
}

/**
 * The most bytes one record's JSON takes: keys, punctuation, and per field six bytes a byte (a `\u00XX` escape)
 * and room for a number's sign, point and zeros; counted over every item, shown or not, tables at their maximum.
 */
export function jsonLengthBound(n: Node): number {
  let size =
    n.children.length > 0
      ? n.children.reduce((sum, c) => sum + Buffer.byteLength(JSON.stringify(c.key ?? '')) + 2 + jsonLengthBound(c), 2)
      : 6 * n.length + 40 + Math.abs(n.picture?.scale ?? 0);
  if (n.occurs) size = 2 + n.occurs.max * (size + 1);
  return size;
}

/** The value decode gives (or its error), written as JSON.stringify prints it. */
function slowly(decode: (bytes: Uint8Array) => unknown, bytes: Uint8Array, out: Buffer, at: number): number {
  const s = JSON.stringify(decode(bytes));
  if (Buffer.byteLength(s) > out.length - at) throw new RangeError(`the record's JSON does not fit in out at ${at}`);
  return at + out.write(s, at, 'utf8');
}

/** Compiles the JSON writer of `built`, falling back on `decode` (the layout's own) where it must. */
export function compileJsonText(
  built: BuiltLayout,
  profile: PlatformProfile,
  decode: (bytes: Uint8Array) => unknown,
): { decodeJson: DecodeJsonFn; source: string } {
  const g = new Generator(profile);
  const maxJson = jsonLengthBound(built.root);
  let fast: Code | null;
  try {
    fast = fastBody(g, built);
  } catch (e) {
    if (!(e instanceof NotGenerated)) throw e;
    fast = null;
  }
  const room = `out.length - at >= ${maxJson}`;
  const body: Code = [
    ...block(`if (!(at >= 0 && ${room}))`, [
      `throw new RangeError(${lit(`decodeJson needs ${maxJson} bytes of out from at`)});`,
    ]),
    ...(fast === null
      ? ['return slowly(decode, bytes, out, at);']
      : [...block('try', fast, '} catch (e) {'), ['return slowly(decode, bytes, out, at);'], '}']),
  ];
  const code: Code = [
    '"use strict";',
    `// ${built.root.name} as JSON text: K holds field specs and byte tables.`,
    ...(fast === null
      ? []
      : [
          ...g.declarations,
          '// `out` as a DataView, made again when out changes',
          'let viewOf = null;',
          'let view = null;',
          ...g.functions,
        ]),
    ...block('function decodeJson(bytes, out, at)', body),
    'return decodeJson;',
  ];
  const source = render(code);
  const runtime = {
    ...runtimeOf(built.root, g.constants, Buffer.alloc(0)),
    decode,
    slowly,
    NOT_FAST,
    jsonBytes,
    jsonNumber,
    jsonPackedDecimal,
    jsonScaled,
    jsonText,
    jsonTextRight,
    jsonUint,
    jsonValue,
    jsonZoned,
    jsonZonedDecimal,
    packedInteger,
    zonedInteger,
  };
  const factory = new Function(...Object.keys(runtime), source) as (...args: unknown[]) => DecodeJsonFn;
  return { decodeJson: factory(...Object.values(runtime)), source };
}
