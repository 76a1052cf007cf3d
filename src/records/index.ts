/**
 * Record translation layer: COBOL copybooks compiled into JSON ⇄ fixed-record codecs
 * (`compileCopybook(text, { profile: 'zos' })`, then `layout.encode(json)` and `layout.decode(bytes)`).
 */
import { compileCodec } from './codegen/compile.ts';
import { buildLayout, type Node } from './layout.ts';
import { parseEntries } from './parser.ts';
import { resolveProfile } from './profiles.ts';
import { schemaOf, type JsonSchema } from './schema.ts';
import { detectFormat, tokenize } from './source.ts';
import { buildTemplate } from './template.ts';
import type { CompileOptions, ConditionName, LayoutItem, RecordLayout } from './types.ts';

export * from './types.ts';
export {
  CopybookError,
  MappingError,
  RecordDecodeError,
  RecordEncodeError,
  RecordError,
  type EncodeLimit,
  type RecordErrorCode,
} from './errors.ts';
export { PROFILES } from './profiles.ts';
export { numberToPlainString, scaledInteger } from './decimal.ts';
export type { JsonSchema } from './schema.ts';

export interface CompiledLayout extends RecordLayout {
  /** JSON Schema of the JSON side (decode output, encode input). */
  jsonSchema(options?: { annotate?: boolean }): JsonSchema;
  /** The JavaScript of the generated encoder and decoder, for reading (`corebridge copybook inspect --codegen`). */
  codecSource(): string;
}

const layoutNodes = new WeakMap<RecordLayout, Node>();

/** Compiles copybook text into a layout with specialised encode/decode functions. */
export function compileCopybook(source: string, options: CompileOptions & { record?: string } = {}): CompiledLayout {
  const fileName = options.fileName ?? 'copybook.cpy';
  const profile = resolveProfile(options);
  const format = options.format === undefined || options.format === 'auto' ? detectFormat(source) : options.format;
  const entries = parseEntries(tokenize(source, format, fileName), fileName);
  const built = buildLayout(entries, {
    fileName,
    profile,
    ...(options.record ? { record: options.record } : {}),
    ...(options.mapping ? { mapping: options.mapping } : {}),
    editing: {
      ...(options.currencySign !== undefined ? { currencySign: options.currencySign } : {}),
      ...(options.decimalPointIsComma !== undefined ? { decimalPointIsComma: options.decimalPointIsComma } : {}),
    },
  });
  const template = buildTemplate(built.root, built.maxLength, profile, fileName);
  const { encode, decode, source: codecSource } = compileCodec(built, template, profile);
  const root = toItem(built.root);
  const layout: CompiledLayout = {
    name: built.root.name,
    profile,
    minLength: built.minLength,
    maxLength: built.maxLength,
    root,
    encode,
    decode,
    jsonSchema: (opts) => schemaOf(built.root, opts?.annotate === true),
    codecSource: () => codecSource,
  };
  layoutNodes.set(layout, built.root);
  return layout;
}

export function encodeRecord(layout: RecordLayout, json: unknown): Buffer {
  return layout.encode(json);
}

export function decodeRecord(layout: RecordLayout, bytes: Uint8Array): Record<string, unknown> {
  return layout.decode(bytes);
}

export function layoutJsonSchema(layout: RecordLayout, options?: { annotate?: boolean }): JsonSchema {
  const root = layoutNodes.get(layout);
  if (root === undefined) throw new TypeError('not a layout made by compileCopybook');
  return schemaOf(root, options?.annotate === true);
}

/** Every item of a layout, depth first (groups before their children). */
export function* layoutItems(item: LayoutItem): Generator<LayoutItem> {
  yield item;
  for (const c of item.children ?? []) yield* layoutItems(c);
}

function literalText(n: Node): string | number | undefined {
  const lit = n.entry.value;
  if (lit === undefined) return undefined;
  if (lit.kind === 'figurative') return lit.name;
  if (lit.kind === 'number') {
    return Number.isSafeInteger(Number(lit.text)) && !lit.text.includes('.') ? Number(lit.text) : lit.text;
  }
  if (lit.kind === 'hex') return `X'${lit.text}'`;
  return lit.text;
}

function toItem(n: Node): LayoutItem {
  const item: LayoutItem = {
    level: n.level,
    cobolName: n.name,
    jsonPath: n.path,
    offset: n.offset,
    length: n.length,
    kind: n.kind,
    usage: n.usage,
    line: n.entry.line,
    column: n.entry.column,
  };
  const pic = n.picture;
  if (pic) {
    item.picture = pic.normalized;
    if (pic.kind === 'numeric') {
      item.digits = pic.digits;
      item.scale = pic.scale;
      item.signed = pic.signed;
    }
  }
  if (n.sign) item.sign = { ...n.sign };
  if (n.occurs) item.occurs = { ...n.occurs };
  if (n.redefines) item.redefines = n.redefines.name;
  if (n.altKey !== undefined) item.encodeKey = n.altKey;
  if (n.choice) {
    const views = Object.fromEntries([...n.choice.byValue].map(([value, view]) => [value, view.name]));
    item.viewChoice = { discriminator: n.choice.discriminator.name, views };
  }
  if (n.entry.justifiedRight) item.justifiedRight = true;
  if (n.entry.blankWhenZero) item.blankWhenZero = true;
  const value = literalText(n);
  if (value !== undefined) item.value = value;
  if (n.entry.conditions.length > 0) item.conditions = n.entry.conditions.map(toCondition);
  if (n.children.length > 0) item.children = n.children.map(toItem);
  return item;
}

function toCondition(e: Node['entry']): ConditionName {
  const values: Array<string | number> = [];
  const ranges: Array<{ from: string | number; to: string | number }> = [];
  const text = (l: NonNullable<Node['entry']['value']>) =>
    l.kind === 'figurative' ? l.name : l.kind === 'number' ? Number(l.text) : l.text;
  for (const v of e.conditionValues ?? []) {
    if (v.to) ranges.push({ from: text(v.from), to: text(v.to) });
    else values.push(text(v.from));
  }
  return { name: e.name, values, ranges };
}
