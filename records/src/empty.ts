/**
 * Policies for numeric items that hold only LOW-VALUES, HIGH-VALUES or spaces (unset fields in real files):
 * resolved per item at compile time, so that only items with a policy pay for the check.
 */
import { charTable } from './charsets.ts';
import { scaledToJson } from './decimal.ts';
import { getBinary } from './encodings/binary.ts';
import { getNationalDecimal } from './encodings/national.ts';
import { getPacked } from './encodings/packed.ts';
import { getZoned } from './encodings/zoned.ts';
import { MappingError, RecordDecodeError } from './errors.ts';
import type { EmptySpec } from './empty-spec.ts';
import { findByName, type Node } from './layout.ts';
import { fieldSpec, type FieldSpec } from './specs.ts';
import type { EmptyNumeric, EmptyNumericAction, FieldMapping, PlatformProfile } from './types.ts';

type Filler = 'lowValues' | 'highValues' | 'spaces';
const FILLERS: readonly Filler[] = ['lowValues', 'highValues', 'spaces'];
const ACTIONS: readonly EmptyNumericAction[] = ['error', 'null', 'zero'];
type Policy = Record<Filler, EmptyNumericAction> & { nullFill?: Filler };

/** A policy checked and written out in full; `fail` reports what is wrong with it. */
function normalize(p: EmptyNumeric, fail: (reason: string) => never): Policy {
  if (typeof p === 'string') {
    if (!ACTIONS.includes(p)) fail(`expected one of ${ACTIONS.join(', ')} (got ${JSON.stringify(p)})`);
    return { lowValues: p, highValues: p, spaces: p };
  }
  if (typeof p !== 'object' || p === null || Array.isArray(p)) {
    fail('expected "error", "null", "zero" or { lowValues, highValues, spaces, nullFill }');
  }
  for (const key of Object.keys(p)) {
    if (!FILLERS.includes(key as Filler) && key !== 'nullFill') {
      fail(`unknown key "${key}" (expected lowValues, highValues, spaces, nullFill)`);
    }
  }
  const out = { lowValues: 'error', highValues: 'error', spaces: 'error' } as Record<Filler, EmptyNumericAction>;
  for (const f of FILLERS) {
    const action = p[f];
    if (action === undefined) continue;
    if (!ACTIONS.includes(action)) fail(`${f}: expected one of ${ACTIONS.join(', ')} (got ${JSON.stringify(action)})`);
    out[f] = action;
  }
  if (p.nullFill !== undefined) {
    if (!FILLERS.includes(p.nullFill)) fail(`nullFill: expected lowValues, highValues or spaces`);
    if (out[p.nullFill] !== 'null') fail(`nullFill is ${p.nullFill}, whose action is not "null"`);
    return { ...out, nullFill: p.nullFill };
  }
  return out;
}

/** Whether `bytes` decode without error as item `f`: then they are a value, not an empty field. */
function isValue(f: FieldSpec, bytes: Buffer): boolean {
  try {
    if (f.type === 'zoned') getZoned(bytes, 0, f.spec, '');
    else if (f.type === 'packed') getPacked(bytes, 0, f.spec, '');
    else if (f.type === 'binary') getBinary(bytes, 0, f.spec, '');
    else if (f.type === 'nationalDecimal') getNationalDecimal(bytes, 0, f.spec, '');
    else return true;
    return true;
  } catch (e) {
    if (e instanceof RecordDecodeError) return false;
    throw e;
  }
}

function specFor(n: Node, policy: Policy, profile: PlatformProfile): EmptySpec | undefined {
  const f = fieldSpec(n, profile);
  if (f.type === 'text' || f.type === 'mixed' || f.type === 'dbcs' || f.type === 'national' || f.type === 'float') {
    return undefined;
  }
  const byteOf: Record<Filler, number> = {
    lowValues: 0x00,
    highValues: 0xff,
    spaces: charTable(n.charset ?? profile.charset).space,
  };
  const zero = scaledToJson(0, f.spec.scale, f.spec.asString);
  const spec: EmptySpec = { length: n.length, fills: [] };
  for (const filler of FILLERS) {
    const action = policy[filler];
    const byte = byteOf[filler];
    if (action === 'error' || isValue(f, Buffer.alloc(n.length, byte))) continue;
    // a national item's spaces are NX'0020' pairs, not the code page's single-byte space
    if (filler === 'spaces' && f.type === 'nationalDecimal') continue;
    spec.fills.push({ byte, value: action === 'null' ? null : zero });
  }
  // the chosen filler, unless it is a value of this item: then the first filler that decodes to null
  const nulls = spec.fills.filter((f) => f.value === null).map((f) => f.byte);
  const chosen = policy.nullFill === undefined ? undefined : byteOf[policy.nullFill];
  const nullByte = chosen !== undefined && nulls.includes(chosen) ? chosen : nulls[0];
  if (nullByte !== undefined) spec.nullByte = nullByte;
  return spec.fills.length > 0 ? spec : undefined;
}

function* walk(n: Node): Generator<Node> {
  yield n;
  for (const c of n.children) yield* walk(c);
}

/** Gives every numeric elementary item the policy that applies to it (`node.empty`), if any. */
export function applyEmptyNumeric(
  root: Node,
  global: EmptyNumeric | undefined,
  mapping: FieldMapping | undefined,
  profile: PlatformProfile,
): void {
  // a DEPENDING ON counter must hold a count: it keeps decoding strictly
  const counters = new Set([...walk(root)].flatMap((n) => (n.counter ? [n.counter] : [])));
  const own = new Map<Node, Policy>();
  for (const [key, policy] of Object.entries(mapping?.emptyNumeric ?? {})) {
    const fail = (reason: string): never => {
      throw new MappingError(key, `emptyNumeric: ${reason}`);
    };
    const matches = findByName(root, key);
    if (matches.length === 0) fail('no such item in the copybook');
    if (matches.length > 1) fail('the name is ambiguous; qualify it as "NAME OF GROUP"');
    const n = matches[0]!;
    if (n.children.length === 0 && n.kind !== 'numeric') fail(`${n.name} is not numeric`);
    if (counters.has(n)) fail(`${n.name} is an OCCURS DEPENDING ON counter; it must hold a count`);
    own.set(n, normalize(policy, fail));
  }
  const base =
    global === undefined
      ? undefined
      : normalize(global, (reason) => {
          throw new TypeError(`emptyNumeric: ${reason}`);
        });
  if (base === undefined && own.size === 0) return;
  for (const n of walk(root)) {
    if (n.children.length > 0 || n.kind !== 'numeric' || counters.has(n)) continue;
    let policy = base;
    for (let p: Node | null = n; p !== null; p = p.parent) {
      const set = own.get(p);
      if (set) {
        policy = set;
        break;
      }
    }
    const spec = policy && specFor(n, policy, profile);
    if (spec) n.empty = spec;
  }
}

/** Decode of an item with a policy: the policy's value when every byte is one of its fillers, else `read`. */
export function getOrEmpty<S>(
  b: Buffer,
  off: number,
  e: EmptySpec,
  read: (b: Buffer, off: number, s: S, field: string) => unknown,
  s: S,
  field: string,
): unknown {
  const first = b[off];
  for (const fill of e.fills) {
    if (fill.byte !== first) continue;
    let i = off + 1;
    const end = off + e.length;
    while (i < end && b[i] === first) i++;
    if (i === end) return fill.value;
  }
  return read(b, off, s, field);
}

/** The schema of an item that decodes to null where its policy says so. */
export function nullableSchema(n: Node, schema: Record<string, unknown>): Record<string, unknown> {
  if (n.empty?.nullByte === undefined) return schema;
  schema.type = [schema.type, 'null'];
  if (Array.isArray(schema.enum)) schema.enum = [...(schema.enum as unknown[]), null];
  if (Array.isArray(schema.anyOf)) schema.anyOf = [...(schema.anyOf as unknown[]), { type: 'null' }];
  return schema;
}
