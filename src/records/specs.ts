/** Field specs (per elementary item, built once) and the record template of defaults and VALUEs. */
import { charTable, fromEbcdic, type CharTable } from './charsets.ts';
import { CopybookError, RecordEncodeError } from './errors.ts';
import { binaryRange, putBinary, putPacked, putText, putZoned, type BinarySpec, type PackedSpec, type TextSpec, type ZonedSpec } from './fields.ts';
import type { Node } from './layout.ts';
import type { Literal } from './parser.ts';
import type { PlatformProfile } from './types.ts';

export type FieldSpec =
  | { type: 'text'; spec: TextSpec }
  | { type: 'zoned'; spec: ZonedSpec }
  | { type: 'packed'; spec: PackedSpec }
  | { type: 'binary'; spec: BinarySpec };

const zonedTables = new Map<string, Pick<ZonedSpec, 'digit' | 'pos' | 'neg' | 'digitOf' | 'punchOf'>>();

function zonedTable(table: CharTable, convention: PlatformProfile['zonedSign']) {
  const id = `${table.name}/${convention}`;
  const cached = zonedTables.get(id);
  if (cached) return cached;
  const digit = new Uint8Array(10);
  const pos = new Uint8Array(10);
  const neg = new Uint8Array(10);
  const digitOf = new Int8Array(256).fill(-1);
  const punchOf = new Int16Array(256).fill(-1);
  for (let d = 0; d < 10; d++) {
    digit[d] = table.encode[48 + d]!;
    digitOf[digit[d]!] = d;
    if (convention === 'ebcdic') {
      pos[d] = fromEbcdic(table, 0xc0 | d);
      neg[d] = fromEbcdic(table, 0xd0 | d);
      // IBM reads A, E and F zones as positive and B as negative too (where the charset has those bytes)
      for (const zone of [0xa0, 0xe0, 0xf0]) {
        const byte = fromEbcdic(table, zone | d);
        if (byte >= 0) punchOf[byte] = 100 + d;
      }
      const b = fromEbcdic(table, 0xb0 | d);
      if (b >= 0) punchOf[b] = 110 + d;
    } else {
      pos[d] = digit[d]!;
      neg[d] = table.encode[0x70 + d]!; // 'p'…'y'
    }
    punchOf[pos[d]!] = 100 + d;
    punchOf[neg[d]!] = 110 + d;
  }
  const built = { digit, pos, neg, digitOf, punchOf };
  zonedTables.set(id, built);
  return built;
}

/** The codec spec of an elementary item. */
export function fieldSpec(n: Node, profile: PlatformProfile): FieldSpec {
  const table = charTable(profile.charset);
  const pic = n.picture!;
  if (n.kind !== 'numeric') {
    return { type: 'text', spec: { length: n.length, table, justifiedRight: n.entry.justifiedRight === true, alphabetic: n.kind === 'alphabetic' } };
  }
  const base = { digits: pic.digits, scale: pic.scale, signed: pic.signed, asString: decodesAsString(n), picture: pic.normalized };
  if (n.usage === 'display') {
    return {
      type: 'zoned',
      spec: {
        ...base, length: n.length, leading: n.sign?.position === 'leading', separate: n.sign?.separate === true,
        blankWhenZero: n.entry.blankWhenZero === true, table, ...zonedTable(table, profile.zonedSign),
      },
    };
  }
  if (n.usage === 'packed-decimal') return { type: 'packed', spec: { ...base, length: n.length } };
  const native = n.usage === 'comp-5';
  const length = n.length as 1 | 2 | 4 | 8;
  const range = binaryRange(native, pic.signed, length, pic.digits);
  return {
    type: 'binary',
    spec: { ...base, asString: decodesAsString(n), length, native, littleEndian: native && profile.comp5ByteOrder === 'little', ...range },
  };
}

/**
 * Whether decode returns the item as a decimal string: when it can hold more than 15 digits — by its
 * picture, or for COMP-5 by its storage size (an 8-byte COMP-5 holds up to 2^64 − 1 whatever the picture).
 */
export function decodesAsString(n: Node): boolean {
  if (n.usage === 'comp-5') return n.length === 8;
  return (n.picture?.digits ?? 0) > 15;
}

export function putField(buf: Buffer, off: number, f: FieldSpec, v: unknown, path: string): void {
  switch (f.type) {
    case 'text': return putText(buf, off, f.spec, v, path);
    case 'zoned': return putZoned(buf, off, f.spec, v, path);
    case 'packed': return putPacked(buf, off, f.spec, v, path);
    case 'binary': return putBinary(buf, off, f.spec, v, path);
  }
}

function literalFail(n: Node, reason: string): never {
  const e = n.entry;
  throw new CopybookError(`VALUE of ${n.name}: ${reason}`, { fileName: '', line: e.line, column: e.column });
}

/** Fills bytes for a figurative constant or a literal in an alphanumeric area (group or elementary). */
function fillText(buf: Buffer, off: number, length: number, lit: Literal, table: CharTable, n: Node): void {
  if (lit.kind === 'figurative') {
    const byte = { ZERO: table.zero, SPACE: table.space, 'HIGH-VALUE': 0xff, 'LOW-VALUE': 0x00, QUOTE: table.encode[34]! }[lit.name];
    buf.fill(byte, off, off + length);
    return;
  }
  if (lit.kind === 'number') literalFail(n, 'a numeric literal cannot initialise an alphanumeric item');
  const bytes = lit.kind === 'hex' ? Buffer.from(lit.text, 'hex') : null;
  const len = bytes ? bytes.length : lit.text.length;
  if (len > length) literalFail(n, `the literal is ${len} characters long; the item holds ${length}`);
  buf.fill(table.space, off, off + length);
  if (bytes) bytes.copy(buf, off);
  else {
    try {
      // VALUE ignores JUSTIFIED: the literal is stored left-justified, as COBOL does
      putText(buf, off, { length, table, justifiedRight: false, alphabetic: false }, lit.text, '');
    } catch (e) {
      literalFail(n, e instanceof RecordEncodeError ? e.reason : String(e));
    }
  }
}

/** The JSON value a VALUE literal stands for (used as the default in the JSON Schema). */
export function literalJson(n: Node): string | number | undefined {
  const lit = n.entry.value;
  if (lit === undefined) return undefined;
  if (n.kind === 'numeric') {
    if (lit.kind === 'figurative' && lit.name === 'ZERO') return 0;
    return lit.kind === 'number' ? (decodesAsString(n) ? lit.text : Number(lit.text)) : undefined;
  }
  if (lit.kind === 'string') return lit.text.replace(/ +$/, '');
  if (lit.kind === 'figurative' && lit.name === 'SPACE') return '';
  return undefined;
}

/**
 * The record with every item at its VALUE or default (spaces, zero), FILLER included, every table at its
 * maximum: what COBOL's INITIALIZE … WITH FILLER ALL TO VALUE THEN TO DEFAULT leaves. Encode starts from it.
 */
export function buildTemplate(root: Node, maxLength: number, profile: PlatformProfile, fileName: string): Buffer {
  const buf = Buffer.alloc(maxLength);
  const table = charTable(profile.charset);
  const visit = (n: Node, base: number, inRedefines: boolean) => {
    const count = n.occurs?.max ?? 1;
    const redefining = inRedefines || n.redefines !== undefined;
    if (redefining && n.entry.value !== undefined) {
      throw new CopybookError(`${n.name}: VALUE is not allowed in or under a REDEFINES item`, { fileName, line: n.entry.line, column: n.entry.column });
    }
    for (let k = 0; k < count; k++) {
      const off = base + k * n.length;
      if (n.children.length > 0) {
        const lit = n.entry.value;
        if (lit !== undefined) {
          for (const d of descendants(n)) {
            if (d.entry.value !== undefined) throw new CopybookError(`${d.name}: VALUE inside group ${n.name}, which has a VALUE itself`, { fileName, line: d.entry.line, column: d.entry.column });
          }
          wrap(fileName, () => fillText(buf, off, n.length, lit, table, n));
          continue;
        }
        // views that redefine an area are visited for their checks only: the base view initialises the bytes
        for (const c of n.children) visit(c, off + (c.offset - n.offset), redefining);
        continue;
      }
      if (redefining) continue;
      wrap(fileName, () => initElementary(buf, off, n, profile, table));
    }
  };
  visit(root, 0, false);
  return buf;
}

function* descendants(n: Node): Generator<Node> {
  for (const c of n.children) {
    yield c;
    yield* descendants(c);
  }
}

function wrap(fileName: string, fn: () => void): void {
  try {
    fn();
  } catch (e) {
    if (e instanceof CopybookError && e.fileName === '') throw new CopybookError(e.reason, { fileName, line: e.line, column: e.column });
    throw e;
  }
}

function initElementary(buf: Buffer, off: number, n: Node, profile: PlatformProfile, table: CharTable): void {
  const lit = n.entry.value;
  const f = fieldSpec(n, profile);
  if (f.type === 'text') {
    if (lit === undefined) buf.fill(table.space, off, off + n.length);
    else fillText(buf, off, n.length, lit, table, n);
    return;
  }
  let value: string | number = 0;
  if (lit !== undefined) {
    if (lit.kind === 'number') value = lit.text;
    else if (!(lit.kind === 'figurative' && lit.name === 'ZERO')) literalFail(n, 'a numeric item needs a numeric literal or ZERO');
  }
  try {
    putField(buf, off, f, value, '');
  } catch (e) {
    literalFail(n, e instanceof RecordEncodeError ? e.reason : String(e));
  }
}
