/**
 * encode straight from a JSON line's UTF-8 bytes: generated per layout, for lines whose keys come in the
 * layout's order (as decode writes them). It reads the text into the record's bytes with no JSON value made,
 * and gives up (returns -1) on anything else — keys out of order or unknown, a value it would have to check
 * by the slow path's rules, bytes that are not valid JSON — so that the caller runs JSON.parse and `encode` on
 * that line, which give the result or the error. What it accepts, it writes exactly as `encode` would.
 */
import type { BuiltLayout, Node } from '../layout.ts';
import type { ZonedSpec } from '../encodings/zoned.ts';
import type { PackedSpec } from '../encodings/packed.ts';
import type { NumberSpec } from '../encodings/numeric.ts';
import type { TextSpec } from '../encodings/text.ts';
import type { PlatformProfile } from '../types.ts';
import { block, offsetBy, offsetJs, render, RECORD_START, type Code, type Offset } from './code.ts';
import { PUT } from './encode.ts';
import { Generator } from './generator.ts';
import { runtimeOf } from './runtime.ts';

/**
 * Writes the record of the JSON object at `src[p]` (the line ending at a `\n` byte at `src[end]`, or at the end
 * of `src`) into `buf` from 0; returns where the object ends, or -1 when the slow path must take the line.
 */
export type EncodeLineFn = (src: Buffer, p: number, buf: Buffer) => number;

export interface JsonLineEncoder {
  encodeLine: EncodeLineFn;
  /** The record's length: every record `encodeLine` writes has it. */
  length: number;
}

// ── the runtime the generated code calls ──

const SPACE = 0x20;
const TAB = 0x09;
const CR = 0x0d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** Skips JSON whitespace but the newline, which ends the line. */
function ws(src: Buffer, p: number): number {
  for (let c = src[p]; c === SPACE || c === TAB || c === CR; c = src[++p]);
  return p;
}

/** After a key: whitespace, a colon, whitespace; where the value starts, or -1. */
function colon(src: Buffer, p: number): number {
  p = ws(src, p);
  return src[p] === 0x3a ? ws(src, p + 1) : -1;
}

const HEX = Int8Array.from({ length: 256 }, (_, c) =>
  c >= 0x30 && c <= 0x39 ? c - 0x30 : c >= 0x41 && c <= 0x46 ? c - 55 : c >= 0x61 && c <= 0x66 ? c - 87 : -1,
);
/** The character of `\x` for the one-letter escapes; -1 for others. */
const ESCAPE = Int16Array.from({ length: 256 }, (_, c) => {
  const i = '"\\/bfnrt'.indexOf(String.fromCharCode(c));
  return i < 0 ? -1 : '"\\/\b\f\n\r\t'.charCodeAt(i);
});

/** Whether a UTF-16 unit is a letter or a space, as a PIC A field takes. */
const isAlphabetic = (c: number) => c === SPACE || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);

/**
 * A JSON string at `p` into a text field: each UTF-16 unit through the code page, the rest spaces. -1 for
 * anything `putText` would refuse or JSON.parse would read otherwise (bad UTF-8, characters beyond the BMP).
 */
function textJson(src: Buffer, p: number, buf: Buffer, off: number, s: TextSpec): number {
  if (src[p] !== QUOTE) return -1;
  p++;
  const enc = s.table.encode;
  const max = s.length;
  let n = 0;
  for (;;) {
    let c = src[p++]!;
    if (c === QUOTE) break;
    if (c < 0x80) {
      if (c < 0x20) return -1;
      if (c === BACKSLASH) {
        const e = src[p++]!;
        if (e === 0x75) {
          const a = HEX[src[p]!]!;
          const b = HEX[src[p + 1]!]!;
          const d = HEX[src[p + 2]!]!;
          const f = HEX[src[p + 3]!]!;
          if ((a | b | d | f) < 0) return -1;
          c = (a << 12) | (b << 8) | (d << 4) | f;
          p += 4;
        } else {
          c = ESCAPE[e]!;
          if (c < 0) return -1;
        }
      }
    } else if (c < 0xe0) {
      const c1 = src[p]!;
      if (c < 0xc2 || (c1 & 0xc0) !== 0x80) return -1;
      c = ((c & 0x1f) << 6) | (c1 & 0x3f);
      p++;
    } else if (c < 0xf0) {
      const c1 = src[p]!;
      const c2 = src[p + 1]!;
      if ((c1 & 0xc0) !== 0x80 || (c2 & 0xc0) !== 0x80) return -1;
      c = ((c & 0x0f) << 12) | ((c1 & 0x3f) << 6) | (c2 & 0x3f);
      if (c < 0x800 || (c >= 0xd800 && c <= 0xdfff)) return -1;
      p += 2;
    } else {
      // four-byte characters (two UTF-16 units) and bytes that are not UTF-8 (or past the buffer)
      return -1;
    }
    if (n === max) return -1;
    const b = enc[c]!;
    if (b < 0 || (s.alphabetic && !isAlphabetic(c))) return -1;
    buf[off + n++] = b;
  }
  const space = s.table.space;
  if (s.justifiedRight && n < max) {
    buf.copyWithin(off + max - n, off, off + n);
    buf.fill(space, off, off + max - n);
  } else {
    for (let i = off + n, end = off + max; i < end; i++) buf[i] = space;
  }
  return p;
}

/** The number `scanNumber` read last: its first digit, the end of its last, the zeros the scale adds, its sign. */
let numStart = 0;
let numLast = 0;
let numZeros = 0;
let numNegative = false;
/** The digits `nextDigit` gave, OR-ed: 0 when the value is zero. */
let numAny = 0;

/**
 * The next digit of the number `scanNumber` read from `src`, right to left: the zeros its scale adds, then its
 * own digits (past the point), then 0 once they are taken.
 */
function nextDigit(src: Buffer): number {
  if (numZeros > 0) {
    numZeros--;
    return 0;
  }
  if (numLast < numStart) return 0;
  let c = src[numLast--]!;
  if (c === 0x2e) c = src[numLast--]!;
  const d = c - 0x30;
  numAny |= d;
  return d;
}

/**
 * Reads the JSON number at `p` for a field of `s.digits` digits and `s.scale` decimals: where it ends, or -1 for
 * a number this path does not take — one with an exponent, more decimals than the scale, or more than
 * min(digits, 15) digits at the scale, which `checkedScaled` takes by its other steps — and for text that is
 * not a number. The value × 10^scale is then the digits from numStart to numLast (past a point) and numZeros
 * zeros: exactly what `checkedScaled` makes of the number JSON.parse reads, as both are exact below 10^15.
 */
function scanNumber(src: Buffer, p: number, s: NumberSpec): number {
  let c = src[p]!;
  const negative = c === 0x2d;
  if (negative) c = src[++p]!;
  const intStart = p;
  if (c === 0x30) c = src[++p]!;
  else if (c >= 0x31 && c <= 0x39)
    do c = src[++p]!;
    while (c >= 0x30 && c <= 0x39);
  else return -1;
  const intEnd = p;
  let fracStart = p;
  if (c === 0x2e) {
    fracStart = ++p;
    c = src[p]!;
    while (c >= 0x30 && c <= 0x39) c = src[++p]!;
    if (p === fracStart) return -1;
  }
  // an exponent, or a digit after a leading zero
  if (c === 0x65 || c === 0x45 || (c >= 0x30 && c <= 0x39)) return -1;
  const intLength = intEnd - intStart === 1 && src[intStart] === 0x30 ? 0 : intEnd - intStart;
  const fracLength = p - fracStart;
  if (fracLength > s.scale || intLength + s.scale > Math.min(s.digits, 15)) return -1;
  numStart = intStart;
  numLast = p - 1;
  numZeros = s.scale - fracLength;
  numNegative = negative;
  return p;
}

type Put = (buf: Buffer, off: number, spec: unknown, v: unknown, path: string) => void;

/** Where the JSON value at `p` ends (not checked: JSON.parse checks it), or -1 at the line's end. */
function skipValue(src: Buffer, p: number): number {
  let depth = 0;
  for (;;) {
    const c = src[p];
    if (c === undefined || c === 0x0a) return -1;
    if (c === QUOTE) {
      p++;
      for (;;) {
        const d = src[p++];
        if (d === QUOTE) break;
        if (d === undefined || d === 0x0a) return -1;
        if (d === BACKSLASH) {
          if (src[p] === 0x0a) return -1;
          p++;
        }
      }
      if (depth === 0) return p;
      continue;
    }
    if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) {
      if (depth === 0) return p;
      if (--depth === 0) return p + 1;
    } else if (depth === 0 && (c === 0x2c || c === SPACE || c === TAB || c === CR)) return p;
    p++;
  }
}

/**
 * Any elementary item by the slow path's own steps for one value: JSON.parse of its text, then the item's put
 * function (after the null filler of an item with an empty policy). -1 where either refuses.
 */
function valueJson(
  src: Buffer,
  p: number,
  buf: Buffer,
  off: number,
  s: unknown,
  put: Put,
  nullByte: number,
  length: number,
): number {
  const q = skipValue(src, p);
  if (q < 0) return -1;
  let v: unknown;
  try {
    v = JSON.parse(src.toString('utf8', p, q));
    if (v === null && nullByte >= 0) buf.fill(nullByte, off, off + length);
    else put(buf, off, s, v, '');
  } catch {
    return -1;
  }
  return q;
}

/**
 * A zoned decimal (not BLANK WHEN ZERO) from the number's digits, right to left; any other value by
 * `valueJson`. A negative value into an unsigned field is an error, which the slow path names.
 */
function zonedJson(src: Buffer, p: number, buf: Buffer, off: number, s: ZonedSpec, put: Put, nullByte: number) {
  const end = s.blankWhenZero ? -1 : scanNumber(src, p, s);
  if (end < 0) return valueJson(src, p, buf, off, s, put, nullByte, s.length);
  const first = s.separate && s.leading ? off + 1 : off;
  const digit = s.digit;
  numAny = 0;
  for (let i = first + s.digits - 1; i >= first; i--) buf[i] = digit[nextDigit(src)]!;
  const negative = numNegative && numAny !== 0;
  if (negative && !s.signed) return valueJson(src, p, buf, off, s, put, nullByte, s.length);
  if (s.separate) buf[s.leading ? off : off + s.digits] = negative ? s.table.minus : s.table.plus;
  else if (s.signed) {
    const at = s.leading ? off : off + s.digits - 1;
    const d = s.digitOf[buf[at]!]!;
    buf[at] = negative ? s.neg[d]! : s.pos[d]!;
  }
  return end;
}

/** A packed decimal from the number's digits, right to left; any other value by `valueJson`. */
function packedJson(src: Buffer, p: number, buf: Buffer, off: number, s: PackedSpec, put: Put, nullByte: number) {
  const end = scanNumber(src, p, s);
  if (end < 0) return valueJson(src, p, buf, off, s, put, nullByte, s.length);
  numAny = 0;
  // the last byte: a digit and the sign nibble, set below; each byte before it: two digits
  let i = off + s.length - 1;
  buf[i] = nextDigit(src) << 4;
  while (--i >= off) {
    const low = nextDigit(src);
    buf[i] = (nextDigit(src) << 4) | low;
  }
  const negative = numNegative && numAny !== 0;
  if (negative && !s.signed) return valueJson(src, p, buf, off, s, put, nullByte, s.length);
  buf[off + s.length - 1] = (buf[off + s.length - 1]! & 0xf0) | (!s.signed ? 0x0f : negative ? 0x0d : 0x0c);
  return end;
}

// ── the generator ──

/** Whether the fast path can take the layout: no REDEFINES views, RENAMES or OCCURS DEPENDING ON. */
function supported(built: BuiltLayout): boolean {
  if (built.odo || built.complex) return false;
  const ok = (n: Node): boolean =>
    !n.redefines &&
    !n.renames &&
    n.altKey === undefined &&
    !n.choice &&
    !n.occurs?.dependingOn &&
    n.children.every((c) => !n.children.some((o) => o.redefines === c) && ok(c));
  return ok(built.root);
}

interface Ctx {
  g: Generator;
}

/** The test that the quoted key `key` is at `p`, a byte at a time (as the line writes it: `"key"`). */
function keyTest(key: string): { test: string; length: number } {
  const bytes = Buffer.from(JSON.stringify(key));
  return { test: [...bytes].map((b, i) => `src[p + ${i}] === ${b}`).join(' && '), length: bytes.length };
}

/** Statements reading the object at `p` into the members of group `n`; `p` after its `}`. */
function members(c: Ctx, n: Node, at: Offset, origin: number): Code {
  const more = c.g.id('more');
  const code: Code = [
    'p = ws(src, p);',
    'if (src[p] !== 0x7b) return -1;',
    'p = ws(src, p + 1);',
    `let ${more} = src[p] !== 0x7d;`,
  ];
  for (const f of n.children) {
    if (f.key === null) continue;
    const key = keyTest(f.key);
    code.push(
      ...block(`if (${more} && ${key.test})`, [
        `p = colon(src, p + ${key.length});`,
        'if (p < 0) return -1;',
        ...value(c, f, offsetBy(at, f.offset - origin), f.offset),
        'p = ws(src, p);',
        `if (src[p] === 0x2c) p = ws(src, p + 1);`,
        `else if (src[p] === 0x7d) ${more} = false;`,
        'else return -1;',
      ]),
    );
  }
  code.push(`if (${more}) return -1;`, 'p++;');
  return code;
}

/** Statements reading the value at `p` into item `f` (a table, a group or an elementary item) at `at`. */
function value(c: Ctx, f: Node, at: Offset, origin: number): Code {
  if (f.occurs) return table(c, f, at);
  return element(c, f, at, origin);
}

/** A group or an elementary item, once. */
function element(c: Ctx, f: Node, at: Offset, origin: number): Code {
  if (f.children.length > 0) return members(c, f, at, origin);
  const { name, f: spec } = c.g.field(f);
  const off = offsetJs(at);
  const nullByte = f.empty?.nullByte ?? -1;
  let call: string;
  if (spec.type === 'text') call = `textJson(src, p, buf, ${off}, ${name})`;
  else if (spec.type === 'zoned') call = `zonedJson(src, p, buf, ${off}, ${name}, putZoned, ${nullByte})`;
  else if (spec.type === 'packed') call = `packedJson(src, p, buf, ${off}, ${name}, putPacked, ${nullByte})`;
  else call = `valueJson(src, p, buf, ${off}, ${name}, ${PUT[spec.type]}, ${nullByte}, ${f.length})`;
  return [`p = ${call};`, 'if (p < 0) return -1;'];
}

/** An array of at most OCCURS elements, each by a function of its own. */
function table(c: Ctx, f: Node, at: Offset): Code {
  const fn = c.g.id('elementJson');
  c.g.functions.push(
    ...block(`function ${fn}(src, p, buf, at)`, [...element(c, f, { base: 'at', delta: 0 }, f.offset), 'return p;']),
  );
  const i = c.g.id('i');
  return [
    'p = ws(src, p);',
    'if (src[p] !== 0x5b) return -1;',
    'p = ws(src, p + 1);',
    ...block(
      'if (src[p] !== 0x5d)',
      block(`for (let ${i} = 0; ; ${i}++)`, [
        `if (${i} === ${f.occurs!.max}) return -1;`,
        `p = ${fn}(src, p, buf, ${offsetJs(at)} + ${i} * ${f.length});`,
        'if (p < 0) return -1;',
        'p = ws(src, p);',
        `if (src[p] === 0x5d) break;`,
        `if (src[p] !== 0x2c) return -1;`,
        'p = ws(src, p + 1);',
      ]),
    ),
    'p++;',
  ];
}

/** The fast JSON line encoder of a layout, or null for a layout it does not take. */
export function compileJsonLineEncoder(
  built: BuiltLayout,
  template: Buffer,
  profile: PlatformProfile,
): JsonLineEncoder | null {
  if (!supported(built) || built.minLength !== built.maxLength) return null;
  const g = new Generator(profile);
  const c: Ctx = { g };
  const body: Code = ['T.copy(buf, 0);', ...members(c, built.root, RECORD_START, 0), 'return ws(src, p);'];
  const code: Code = [
    '"use strict";',
    ...g.declarations,
    ...g.functions,
    ...block('function encodeLine(src, p, buf)', body),
    'return encodeLine;',
  ];
  const runtime = {
    ...runtimeOf(built.root, g.constants, template),
    ws,
    colon,
    textJson,
    zonedJson,
    packedJson,
    valueJson,
  };
  const factory = new Function(...Object.keys(runtime), render(code)) as (...args: unknown[]) => EncodeLineFn;
  return { encodeLine: factory(...Object.values(runtime)), length: built.maxLength };
}

interface Registered {
  encode: unknown;
  compile: () => JsonLineEncoder | null;
  compiled?: JsonLineEncoder | null;
}

const registered = new WeakMap<object, Registered>();

/** Makes a compiled layout's fast JSON line encoder available to `jsonLineEncoderOf`, compiled at first use. */
export function registerJsonLineEncoder(
  layout: { encode: unknown },
  built: BuiltLayout,
  template: Buffer,
  profile: PlatformProfile,
): void {
  registered.set(layout, { encode: layout.encode, compile: () => compileJsonLineEncoder(built, template, profile) });
}

/**
 * The fast JSON line encoder of `encoder` when it is a layout from compileCopybook whose `encode` is its own
 * (not replaced or wrapped); null otherwise, or for a layout the fast path does not take.
 */
export function jsonLineEncoderOf(encoder: object): JsonLineEncoder | null {
  const r = registered.get(encoder);
  if (r === undefined || (encoder as { encode?: unknown }).encode !== r.encode) return null;
  if (r.compiled === undefined) r.compiled = r.compile();
  return r.compiled;
}
