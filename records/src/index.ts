/**
 * Record translation layer: COBOL copybooks compiled into JSON ⇄ fixed-record codecs
 * (`compileCopybook(text, { profile: 'zos' })`, then `layout.encode(json)` and `layout.decode(bytes)`).
 */
import { compileCodec } from './codegen/compile.ts';
import { registerJsonLineEncoder } from './codegen/json-encode.ts';
import { compileJsonText, jsonLengthBound, type DecodeJsonFn } from './codegen/json-text.ts';
import { expandCopybook, type SourcePlace } from './copy.ts';
import { applyEmptyNumeric } from './empty.ts';
import { CopybookError } from './errors.ts';
import { buildLayout, type Node } from './layout.ts';
import { parseEntries } from './parser.ts';
import { resolveProfile } from './profiles.ts';
import { schemaOf, type JsonSchema } from './schema.ts';
import { detectFormat } from './source.ts';
import { buildTemplate } from './template.ts';
import type { CompileOptions, ConditionName, LayoutItem, RecordLayout } from './types.ts';

export * from './types.ts';
export {
  CopybookError,
  MappingError,
  type IncludeSite,
  RecordDecodeError,
  RecordEncodeError,
  RecordError,
  type EncodeLimit,
  type RecordErrorCode,
} from './errors.ts';
export { PROFILES } from './profiles.ts';
export { copybookCandidates, fileCopybookReader, MAX_COPY_DEPTH } from './copy.ts';
export { CHARSETS, charsetNamed } from './charsets.ts';
export { numberToPlainString, scaledInteger } from './decimal.ts';
export { currencySignProblem } from './edited-picture.ts';
export type { JsonSchema } from './schema.ts';
export { layoutTypeScript, typeNameOf } from './typescript.ts';

export interface CompiledLayout extends RecordLayout {
  /** JSON Schema of the JSON side (decode output, encode input). */
  jsonSchema(options?: { annotate?: boolean }): JsonSchema;
  /** The JavaScript of the generated encoder and decoder, for reading (`corebridge copybook inspect --codegen`). */
  codecSource(): string;
  /**
   * Writes the record's JSON, the bytes of `JSON.stringify(decode(bytes))` in UTF-8, into `out` from `at`, and
   * returns where it ends; throws decode's error for bytes decode refuses. `out` needs `jsonMaxLength` bytes
   * from `at` (a RangeError otherwise). Its code is generated at the first call.
   */
  decodeJson(bytes: Uint8Array, out: Buffer, at: number): number;
  /** The most bytes `decodeJson` writes for one record. */
  readonly jsonMaxLength: number;
}

const layoutNodes = new WeakMap<RecordLayout, Node>();

/** Compiles copybook text into a layout with specialised encode/decode functions. */
export function compileCopybook(source: string, options: CompileOptions & { record?: string } = {}): CompiledLayout {
  const fileName = options.fileName ?? 'copybook.cpy';
  const profile = resolveProfile(options);
  const format = options.format === undefined || options.format === 'auto' ? detectFormat(source) : options.format;
  const expanded = expandCopybook(source, format, {
    fileName,
    ...(options.copybookPath ? { copybookPath: options.copybookPath } : {}),
    ...(options.readCopybook ? { readCopybook: options.readCopybook } : {}),
  });
  const mainLines = source.split(/\r?\n/).length;
  let built, template, codec;
  try {
    const entries = parseEntries(expanded.tokens, fileName);
    built = buildLayout(entries, {
      fileName,
      profile,
      ...(options.record ? { record: options.record } : {}),
      ...(options.mapping ? { mapping: options.mapping } : {}),
      editing: {
        ...(options.currencySign !== undefined ? { currencySign: options.currencySign } : {}),
        ...(options.decimalPointIsComma !== undefined ? { decimalPointIsComma: options.decimalPointIsComma } : {}),
      },
    });
    applyEmptyNumeric(built.root, options.emptyNumeric, options.mapping, profile);
    template = buildTemplate(built.root, built.maxLength, profile, fileName);
    codec = compileCodec(built, template, profile);
  } catch (e) {
    // a line past the compiled file's is in copied text: name that copybook and the COPY chain
    if (e instanceof CopybookError && e.fileName === fileName && e.line > mainLines && e.includes.length === 0) {
      const at = { ...expanded.place(e.line), column: e.column };
      throw new CopybookError(e.reason, at, e.code === 'COPYBOOK_UNSUPPORTED');
    }
    throw e;
  }
  const { encode, decode, source: codecSource } = codec;
  const root = toItem(built.root, expanded.place);
  const jsonOf = built;
  let decodeJson: DecodeJsonFn | undefined;
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
    // the slow path calls the layout's decode by its property, as a caller who wraps it expects
    decodeJson: (bytes, out, at) =>
      (decodeJson ??= compileJsonText(jsonOf, profile, (b) => layout.decode(b)).decodeJson)(bytes, out, at),
    jsonMaxLength: jsonLengthBound(built.root),
  };
  layoutNodes.set(layout, built.root);
  registerJsonLineEncoder(layout, built, template, profile);
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

function toItem(n: Node, place?: (line: number) => SourcePlace): LayoutItem {
  const where = place?.(n.entry.line);
  const item: LayoutItem = {
    level: n.level,
    cobolName: n.name,
    jsonPath: n.path,
    offset: n.offset,
    length: n.length,
    kind: n.kind,
    usage: n.usage,
    ...(where && where.includes.length > 0 ? { fileName: where.fileName } : {}),
    line: where?.line ?? n.entry.line,
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
  if (n.afterOdo) item.afterOdo = n.afterOdo.name;
  if (n.renames) item.renames = { from: n.renames.from.name, thru: n.renames.thru.name };
  if (n.redefines) item.redefines = n.redefines.name;
  if (n.altKey !== undefined) item.encodeKey = n.altKey;
  if (n.choice) {
    const views = Object.fromEntries([...n.choice.byValue].map(([value, view]) => [value, view.name]));
    item.viewChoice = { discriminator: n.choice.discriminator.name, views };
  }
  if (n.entry.justifiedRight) item.justifiedRight = true;
  if (n.entry.blankWhenZero) item.blankWhenZero = true;
  if (n.synchronized) item.synchronized = true;
  if (n.slackBefore !== undefined) item.slackBefore = n.slackBefore;
  if (n.slackAfter !== undefined) item.slackAfter = n.slackAfter;
  const value = literalText(n);
  if (value !== undefined) item.value = value;
  if (n.entry.conditions.length > 0) item.conditions = n.entry.conditions.map(toCondition);
  if (n.children.length > 0) item.children = n.children.map((c) => toItem(c, place));
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
