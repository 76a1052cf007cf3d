/**
 * Multi-segment files: each record's type is the value of a segment-id field at the same place in every record,
 * and names what lays it out: a 01 record of the copybook, or a REDEFINES view of one (a common header, then
 * the body each segment redefines), shown alone as a discriminator shows its view; or a 01 record (or view) of a
 * copybook file of its own, as teams that keep one copybook per record type have. A segments file says which,
 * and which segment nests under which: `{"field": "SEG-ID", "segments": {"C": "CUSTOMER-REC", "A": {"copybook":
 * "account.cpy"}}, "children": {"ACCOUNT-REC": "CUSTOMER-REC"}}`. The field is found by its COBOL name in the
 * first segment named, at the same offset and length in every record, and compared as its text, trimmed.
 */
import { charTable, UNMAPPED } from '../charsets.ts';
import { CopybookError, RecordDecodeError, RecordEncodeError, RecordError } from '../errors.ts';
import { compileCopybook, layoutItems, type CompiledLayout } from '../index.ts';
import { jsonNameOf } from '../layout.ts';
import type { CompileOptions, FieldMapping, LayoutItem, RecordDecodeOptions } from '../types.ts';
import type { DecodedRecord, OnError, RecordDecoder } from './decode.ts';
import type { RecordEncoder, SourceValue } from './encode.ts';
import { DatasetError } from './errors.ts';

/**
 * A segment laid out by a copybook file of its own: its one 01 record, or `record`; or a REDEFINES `view` in
 * that record. It is compiled with the options the command's copybook is compiled with.
 */
export interface SegmentFile {
  /** The copybook file, as the segments file gives it (the CLI reads it relative to the segments file). */
  copybook: string;
  /** The 01 record, when the file has several. */
  record?: string | undefined;
  /** A REDEFINES view of the record: its COBOL name, qualified with `OF` its groups when it must be. */
  view?: string | undefined;
}

/**
 * The segments file: the segment-id field's COBOL name, id → 01 record or REDEFINES view of the command's
 * copybook (`VIEW`, or `VIEW OF RECORD` when the copybook has several 01 records) or a `SegmentFile`, and child
 * segment → parent segment (a segment of a file is named by its `view`, else its `record`, else the file's record).
 */
export interface SegmentsSpec {
  field: string;
  segments: Record<string, string | SegmentFile>;
  children?: Record<string, string> | undefined;
}

/** A segments file that does not fit its copybook: names the key at fault (`segments.C`, `children.X`). */
export class SegmentsError extends RecordError {
  readonly code = 'MAPPING_INVALID' as const;
  readonly key: string;
  readonly reason: string;

  constructor(key: string, reason: string) {
    super(`segments "${key}": ${reason}`);
    this.name = 'SegmentsError';
    this.key = key;
    this.reason = reason;
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** A COBOL name as the segments file may write it: any case, `OF` (or `IN`) between qualifiers. */
function cobolName(text: string): string {
  return text
    .trim()
    .toUpperCase()
    .split(/\s+(?:OF|IN)\s+/)
    .join(' OF ');
}

/** The name children use for a segment of a copybook file, when its record is known before it is compiled. */
function fileName(file: SegmentFile): string | undefined {
  if (file.view === undefined) return file.record;
  return file.record === undefined ? file.view : `${file.view} OF ${file.record}`;
}

/** A segment's value in the segments file: a COBOL name, or `{"copybook": FILE, "record"?: NAME, "view"?: NAME}`. */
function segmentValue(value: unknown, key: string): string | SegmentFile {
  if (typeof value === 'string' && value.trim() !== '') return cobolName(value);
  const shape =
    'the COBOL name of a 01 record or a REDEFINES view, or {"copybook": FILE, "record": NAME, "view": NAME}';
  if (!isObject(value)) throw new SegmentsError(key, shape);
  for (const k of Object.keys(value)) {
    if (!['copybook', 'record', 'view'].includes(k)) {
      throw new SegmentsError(key, `"${k}" is not a key of a segment's copybook (copybook, record, view)`);
    }
  }
  const { copybook, record, view } = value;
  if (typeof copybook !== 'string' || copybook.trim() === '') {
    throw new SegmentsError(key, '"copybook" is the copybook file that lays out the segment, a string');
  }
  const file: SegmentFile = { copybook: copybook.trim() };
  for (const [name, v] of [
    ['record', record],
    ['view', view],
  ] as const) {
    if (v === undefined) continue;
    if (typeof v !== 'string' || v.trim() === '') throw new SegmentsError(key, `"${name}" is a COBOL name, a string`);
    file[name] = cobolName(v);
  }
  if (file.record?.includes(' OF ')) throw new SegmentsError(key, '"record" names a 01 record, unqualified');
  return file;
}

/** Checks the shape of a parsed segments file (what it names is checked against the copybooks later). */
export function parseSegments(json: unknown): SegmentsSpec {
  if (!isObject(json))
    throw new SegmentsError('(file)', 'a segments file is a JSON object {field, segments, children}');
  for (const key of Object.keys(json)) {
    if (!['field', 'segments', 'children'].includes(key)) {
      throw new SegmentsError(key, 'not a key of a segments file (field, segments, children)');
    }
  }
  const { field, segments, children } = json;
  if (typeof field !== 'string' || field.trim() === '') {
    throw new SegmentsError('field', 'the COBOL name of the segment-id field, a string');
  }
  if (!isObject(segments) || Object.keys(segments).length === 0) {
    throw new SegmentsError(
      'segments',
      'an object of segment-id value → COBOL name of its 01 record or REDEFINES view, or its copybook, not empty',
    );
  }
  const bySegment: Record<string, string | SegmentFile> = {};
  for (const [id, record] of Object.entries(segments)) {
    const value = segmentValue(record, `segments.${id}`);
    if (id.trim() === '') throw new SegmentsError(`segments.${id}`, 'a segment id is not blank');
    if (id.trim() in bySegment) throw new SegmentsError(`segments.${id}`, `the id "${id.trim()}" is given twice`);
    bySegment[id.trim()] = value;
  }
  if (children === undefined) return { field: field.trim().toUpperCase(), segments: bySegment };
  if (!isObject(children)) throw new SegmentsError('children', 'an object of child record → parent record');
  const named = Object.values(bySegment).map((v) => (typeof v === 'string' ? v : fileName(v)));
  // a file's one record is known once it is compiled: the SegmentedLayout checks children then
  const records = named.includes(undefined) ? undefined : new Set(named);
  const parents: Record<string, string> = {};
  for (const [child, parent] of Object.entries(children)) {
    const key = `children.${child}`;
    if (typeof parent !== 'string') throw new SegmentsError(key, 'the COBOL name of the parent record, a string');
    const c = cobolName(child);
    const p = cobolName(parent);
    if (records !== undefined && !records.has(c)) {
      throw new SegmentsError(key, `${child} is not a record named in "segments"`);
    }
    if (records !== undefined && !records.has(p)) {
      throw new SegmentsError(key, `the parent ${parent} is not a record named in "segments"`);
    }
    parents[c] = p;
  }
  for (const start of Object.keys(parents)) {
    const seen = new Set<string>([start]);
    for (let p = parents[start]; p !== undefined; p = parents[p]) {
      if (seen.has(p)) throw new SegmentsError(`children.${start}`, `a cycle: ${[...seen, p].join(' → ')}`);
      seen.add(p);
    }
  }
  return { field: field.trim().toUpperCase(), segments: bySegment, children: parents };
}

/**
 * The layouts a segments file needs, each with the ids that name it, in the order first named. `key` is what
 * `segmentLayouts` keys its layout by: a COBOL name as the file gives it, or a copybook file with its record
 * and view.
 */
function targetsOf(spec: SegmentsSpec): Array<{ key: string; value: string | SegmentFile; ids: string[] }> {
  const out = new Map<string, { key: string; value: string | SegmentFile; ids: string[] }>();
  for (const [id, value] of Object.entries(spec.segments)) {
    const key = segmentKey(value);
    const target = out.get(key) ?? { key, value, ids: [] };
    target.ids.push(id);
    out.set(key, target);
  }
  return [...out.values()];
}

/** The key of a segment's layout in the map `segmentLayouts` gives: its COBOL name, or its file's. */
export function segmentKey(value: string | SegmentFile): string {
  if (typeof value === 'string') return value;
  return `{"copybook": ${JSON.stringify(value.copybook)}, "record": ${JSON.stringify(value.record ?? null)}, "view": ${JSON.stringify(value.view ?? null)}}`;
}

/** One kind of record of the file. */
export interface Segment {
  /**
   * What the segments file names: a 01 record, or a REDEFINES view (`VIEW` or `VIEW OF RECORD`); for a segment of
   * a copybook file, its view, else its record (its `view OF record` when the file gives both).
   */
  readonly record: string;
  /** For a segment of a copybook file of its own: the file, as the segments file gives it. */
  readonly copybook?: string | undefined;
  /** For a view: the COBOL name of its 01 record (whose other views its JSON leaves out). */
  readonly view?: { readonly record: string; readonly base: string } | undefined;
  /** Its key in the JSON: the JSON name of its record or view (`CUSTOMER-REC` → `customerRec`). */
  readonly key: string;
  readonly layout: CompiledLayout;
  /** The segment ids that name it; encode checks the record's id is one of them. */
  readonly ids: readonly string[];
  /** With `children`: the segment it nests under. */
  readonly parent: Segment | undefined;
}

function inTable(item: LayoutItem, root: LayoutItem): boolean {
  const path = (at: LayoutItem): LayoutItem[] | undefined => {
    if (at === item) return [at];
    for (const c of at.children ?? []) {
      const p = path(c);
      if (p) return [at, ...p];
    }
    return undefined;
  };
  return (path(root) ?? []).some((i) => i.occurs !== undefined);
}

/**
 * Decodes and encodes the records of a multi-segment file. A record decodes to `{"customerRec": {…fields}}`,
 * keyed by the JSON name of its 01 record, as Cobrix shows each segment as a field named by its segment
 * (its other segments null): the key says the type, never clashes with a field, and flattens into CSV columns.
 */
export class SegmentedLayout implements RecordDecoder, RecordEncoder {
  /** The segment-id field, as found in the first record named: its COBOL name and bytes. */
  readonly field: { readonly name: string; readonly offset: number; readonly length: number };
  readonly segments: readonly Segment[];
  /** Whether the spec nests child segments under their parents (`nestSegments`). */
  readonly nested: boolean;
  readonly minLength: number;
  readonly maxLength: number;
  /** A group of every segment's record under its key, for the CSV columns of the flat form. */
  readonly root: LayoutItem;
  readonly #byId = new Map<string, Segment>();
  readonly #byKey = new Map<string, Segment>();
  readonly #text: readonly string[];
  /** Per segment: where its JSON holds the id, and the id's bytes when one id names it (written when left out). */
  readonly #idFill = new Map<Segment, { path: string[] | undefined; bytes: Uint8Array | undefined }>();

  /**
   * `layouts`: what each segment the spec names is laid out by (`segmentLayouts`), by `segmentKey`: a 01 record
   * compiled with the `record` option, or a view's record compiled with a mapping that shows that view.
   */
  constructor(spec: SegmentsSpec, layouts: ReadonlyMap<string, SegmentLayout | CompiledLayout>) {
    const segments = new Map<string, Segment & { parent: Segment | undefined }>();
    for (const target of targetsOf(spec)) {
      const given = layouts.get(target.key);
      if (given === undefined) throw new SegmentsError('segments', `no compiled layout for ${target.key}`);
      const { layout, view } = 'layout' in given ? given : { layout: given, view: undefined };
      const { ids } = target;
      const file = typeof target.value === 'string' ? undefined : target.value;
      const record = file === undefined ? (target.value as string) : (fileName(file) ?? layout.name);
      const key = view === undefined ? jsonNameOf(file === undefined ? record : layout.name) : view.key;
      const at = `segments.${ids[0]}`;
      const clash = this.#byKey.get(key) ?? segments.get(record);
      if (clash !== undefined) {
        const what =
          clash.record === record
            ? `the segment of "${clash.ids[0]}" is named ${record} too: children and the JSON could not tell them apart`
            : `${record} and ${clash.record} both have the JSON name "${key}"`;
        throw new SegmentsError(at, `${what}${file === undefined ? '' : ` (${file.copybook})`}`);
      }
      const segment = {
        record,
        copybook: file?.copybook,
        view: view && { record: view.record, base: view.base },
        key,
        layout,
        ids,
        parent: undefined,
      };
      segments.set(record, segment);
      this.#byKey.set(segment.key, segment);
      for (const id of ids) this.#byId.set(id, segment);
    }
    for (const [child, parent] of Object.entries(spec.children ?? {})) {
      const p = segments.get(parent);
      const c = segments.get(child);
      // parseSegments checks these names, unless a copybook file's record was known only once compiled
      if (c === undefined) throw new SegmentsError(`children.${child}`, `${child} is not a record named in "segments"`);
      if (p === undefined) {
        throw new SegmentsError(`children.${child}`, `the parent ${parent} is not a record named in "segments"`);
      }
      c.parent = p;
      const clash = (p.layout.root.children ?? []).find((f) => f.jsonPath?.replace(/\[\]$/, '') === c.key);
      if (clash) {
        throw new SegmentsError(`children.${child}`, `${parent} has a field ${clash.cobolName} of the same JSON name`);
      }
    }
    this.segments = [...segments.values()];
    this.nested = Object.keys(spec.children ?? {}).length > 0;
    const first = this.segments[0]!.layout;
    const item = [...layoutItems(first.root)].find((i) => i.cobolName === spec.field && i.level !== 66);
    if (item === undefined) {
      const file = this.segments[0]!.copybook;
      throw new SegmentsError(
        'field',
        `${first.name}${file === undefined ? '' : ` (${file})`} has no item ${spec.field}`,
      );
    }
    if (item.kind === 'group' || item.usage !== 'display' || (item.kind === 'numeric' && item.signed === true)) {
      throw new SegmentsError(
        'field',
        `${spec.field} must be text or an unsigned DISPLAY number (it is compared as text)`,
      );
    }
    if (inTable(item, first.root) || item.afterOdo !== undefined) {
      throw new SegmentsError('field', `${spec.field} is in a table or behind one; its place must be fixed`);
    }
    this.field = { name: spec.field, offset: item.offset, length: item.length };
    const bytes = (i: LayoutItem) => `bytes ${i.offset}–${i.offset + i.length - 1}`;
    for (const s of this.segments) {
      const where = `${s.record}${s.copybook === undefined ? '' : ` (${s.copybook})`}`;
      if (s.layout.minLength < item.offset + item.length) {
        throw new SegmentsError(`segments.${s.ids[0]}`, `${where} is shorter than ${spec.field}'s ${bytes(item)}`);
      }
      // an item of the field's name elsewhere in a segment would read another id than the one compared
      const named = [...layoutItems(s.layout.root)].filter(
        (i) => i.cobolName === spec.field && i.level !== 66 && !inTable(i, s.layout.root),
      );
      if (named.length > 0 && !named.some((i) => i.offset === item.offset && i.length === item.length)) {
        throw new SegmentsError(
          `segments.${s.ids[0]}`,
          `${spec.field} is at ${bytes(named[0]!)} of ${where}, not at ${bytes(item)} as in ${first.name}`,
        );
      }
    }
    const table = charTable(first.profile.charset);
    this.#text = table.decode;
    for (const s of this.segments) {
      const at = [...layoutItems(s.layout.root)].find(
        (i) => i.offset === item.offset && i.length === item.length && i.children === undefined && i.jsonPath !== null,
      );
      const id = s.ids.length === 1 ? s.ids[0]! : undefined;
      const text =
        id === undefined
          ? undefined
          : item.kind === 'numeric'
            ? id.padStart(item.length, '0')
            : id.padEnd(item.length, ' ');
      const codes =
        text === undefined || text.length !== item.length
          ? undefined
          : [...text].map((c) => table.encode[c.codePointAt(0)!]);
      this.#idFill.set(s, {
        path: at?.jsonPath?.split('.'),
        bytes:
          codes === undefined || codes.some((b) => b === undefined || b < 0)
            ? undefined
            : Uint8Array.from(codes as number[]),
      });
    }
    this.minLength = Math.min(...this.segments.map((s) => s.layout.minLength));
    this.maxLength = Math.max(...this.segments.map((s) => s.layout.maxLength));
    this.root = {
      ...first.root,
      cobolName: '',
      children: this.segments.map((s) => ({ ...s.layout.root, jsonPath: s.key })),
    };
  }

  /** The segment-id field's text in a record, trimmed. */
  idOf(bytes: Uint8Array): string {
    const { offset, length, name } = this.field;
    if (bytes.length < offset + length) {
      throw new RecordDecodeError(
        0,
        name,
        `the record is ${bytes.length} bytes; the segment id is at ${offset}–${offset + length - 1}`,
      );
    }
    let text = '';
    for (let i = offset; i < offset + length; i++) {
      const c = this.#text[bytes[i]!]!;
      text += c === UNMAPPED ? `\\x${bytes[i]!.toString(16).padStart(2, '0')}` : c;
    }
    return text.trim();
  }

  /** The segment a record's id names; an unknown id is a decode error naming the field and the value. */
  segmentOf(bytes: Uint8Array): Segment {
    const id = this.idOf(bytes);
    const segment = this.#byId.get(id);
    if (segment === undefined) {
      const known = [...this.#byId.keys()].map((k) => `"${k}"`).join(', ');
      throw new RecordDecodeError(
        this.field.offset,
        this.field.name,
        `segment id "${id}" is not in the segments file (${known})`,
      );
    }
    return segment;
  }

  /** `options.trailing: 'ignore'` (decodeDataset gives it for F/FB) lets a short segment sit in a longer slot. */
  decode(bytes: Uint8Array, options?: RecordDecodeOptions): Record<string, unknown> {
    const { layout, key } = this.segmentOf(bytes);
    return { [key]: layout.decode(bytes, options) };
  }

  /**
   * The flat form back to bytes: the one key names the segment; the bytes' segment id must name it too. A JSON
   * that leaves the id out gets the segment's id when only one names it.
   */
  encode(json: unknown): Uint8Array {
    if (!isObject(json)) throw new RecordEncodeError('', 'a segment record is an object with one key, its record');
    const keys = Object.keys(json);
    const segment = keys.length === 1 ? this.#byKey.get(keys[0]!) : undefined;
    if (segment === undefined) {
      const names = [...this.#byKey.keys()].join(', ');
      throw new RecordEncodeError(
        '',
        `a segment record has exactly one key of ${names} (got ${keys.join(', ') || 'none'})`,
      );
    }
    let bytes: Uint8Array;
    try {
      bytes = segment.layout.encode(json[segment.key]);
    } catch (e) {
      throw e instanceof RecordEncodeError ? e.under(segment.key) : e;
    }
    let id = this.idOf(bytes);
    const fill = this.#idFill.get(segment)!;
    if (id === '' && fill.bytes !== undefined && !this.#givesId(json[segment.key], fill.path)) {
      // the JSON leaves the id out: the segment's key says it, as a discriminator's view says its value
      bytes.set(fill.bytes, this.field.offset);
      id = this.idOf(bytes);
    }
    if (this.#byId.get(id) !== segment) {
      throw new RecordEncodeError(
        segment.key,
        `its segment id ${this.field.name} is "${id}", which does not name ${segment.record} (${segment.ids.map((i) => `"${i}"`).join(', ')} do)`,
      );
    }
    return bytes;
  }

  /** Whether a segment's JSON holds a value for the id field (at `path`; none when the mapping leaves it out). */
  #givesId(fields: unknown, path: string[] | undefined): boolean {
    let v = fields;
    for (const k of path ?? []) v = isObject(v) ? v[k] : undefined;
    return path !== undefined && v !== undefined;
  }

  /** The segment of a flat value (`{"customerRec": {…}}`), or undefined. */
  segmentKeyed(value: Record<string, unknown>): Segment | undefined {
    const keys = Object.keys(value);
    return keys.length === 1 ? this.#byKey.get(keys[0]!) : undefined;
  }
}

/** What lays out a segment that is a REDEFINES view: its record, compiled to show that view, and its JSON key. */
export interface SegmentLayout {
  layout: CompiledLayout;
  view?: { record: string; base: string; key: string } | undefined;
}

/**
 * A compile the resolution asks for: a 01 record (undefined: the copybook's one record) of the command's copybook
 * or of `copybook`, with views to show.
 */
export interface SegmentCompile {
  record: string | undefined;
  /** A segment's copybook file, as the segments file gives it; undefined: the command's copybook. */
  copybook?: string | undefined;
  /** Added to the mapping's `redefines`: the redefined item's qualified COBOL name → the view to show. */
  redefines?: Record<string, string>;
}

/** The parent of each item of a layout, for qualified names. */
function parents(root: LayoutItem): Map<LayoutItem, LayoutItem> {
  const out = new Map<LayoutItem, LayoutItem>();
  for (const item of layoutItems(root)) for (const c of item.children ?? []) out.set(c, item);
  return out;
}

/** The item `NAME OF Q1 OF Q2` names in a layout, as a mapping resolves it (qualifiers are ancestors, in order). */
function itemNamed(
  root: LayoutItem,
  qualified: string,
  key: string,
): { item: LayoutItem; up: Map<LayoutItem, LayoutItem> } {
  const [name, ...qualifiers] = qualified.split(' OF ');
  const up = parents(root);
  const found = [...layoutItems(root)].filter((item) => {
    if (item.cobolName !== name || item.level === 66) return false;
    let q = 0;
    for (let p = up.get(item); p !== undefined && q < qualifiers.length; p = up.get(p))
      if (p.cobolName === qualifiers[q]) q++;
    return q === qualifiers.length;
  });
  if (found.length === 0) throw new SegmentsError(key, `${root.cobolName} has no item ${qualified}`);
  if (found.length > 1) throw new SegmentsError(key, `${qualified} names ${found.length} items; qualify it with OF`);
  return { item: found[0]!, up };
}

/** The name that finds exactly this item in its record: its name OF each of its groups, up to the record. */
function qualifiedName(item: LayoutItem, up: Map<LayoutItem, LayoutItem>): string {
  const names = [item.cobolName];
  for (let p = up.get(item); p !== undefined; p = up.get(p)) names.push(p.cobolName);
  return names.join(' OF ');
}

/**
 * Resolves what each segment names, asking for the compiles it needs (a generator, so that one resolution serves a
 * synchronous compile and the CLI's asynchronous one): a 01 record by its name; else a REDEFINES view in the
 * record after its last `OF`, or in the copybook's one record; the view's record is then compiled again with
 * that view shown, so its JSON holds the header and that view only. A segment of a copybook file is its record
 * (or the file's one record), or a view in it. The map is keyed by `segmentKey`.
 */
export function* segmentLayouts(
  spec: SegmentsSpec,
): Generator<SegmentCompile, Map<string, SegmentLayout>, CompiledLayout> {
  const out = new Map<string, SegmentLayout>();
  for (const { key: at, value: target, ids } of targetsOf(spec)) {
    const key = `segments.${ids[0]}`;
    if (typeof target !== 'string') {
      out.set(at, yield* fileLayout(target, key));
      continue;
    }
    const parts = target.split(' OF ');
    let record: CompiledLayout;
    let viewName = target;
    if (parts.length > 1) {
      record = yield { record: parts.at(-1) };
      viewName = parts.slice(0, -1).join(' OF ');
    } else {
      try {
        out.set(target, { layout: yield { record: target } });
        continue;
      } catch (e) {
        if (!(e instanceof CopybookError) || !e.reason.startsWith('no record named')) throw e;
        // not a 01 record: a view of the copybook's one record, if it has one
        try {
          record = yield { record: undefined };
        } catch (several) {
          if (!(several instanceof CopybookError) || !several.reason.includes('several records')) throw several;
          throw new SegmentsError(
            key,
            `${e.reason}; a REDEFINES view of one of several records is named "VIEW OF RECORD"`,
          );
        }
      }
    }
    out.set(at, yield* viewLayout(record, viewName, target, key, undefined));
  }
  return out;
}

/**
 * A segment of a copybook file: its record, or a view in it. What goes wrong there (the file is not read, does
 * not compile, has no such record) is the segment's error, under its key.
 */
function* fileLayout(file: SegmentFile, key: string): Generator<SegmentCompile, SegmentLayout, CompiledLayout> {
  const { copybook, view } = file;
  let record: CompiledLayout;
  try {
    record = yield { record: file.record, copybook };
  } catch (e) {
    if (e instanceof SegmentsError || !(e instanceof Error)) throw e;
    if (e instanceof CopybookError && e.reason.startsWith('no record named')) {
      throw new SegmentsError(key, `${copybook} has ${e.reason}`);
    }
    if (e instanceof CopybookError && e.reason.includes('several records')) {
      const names = /\(([^)]*)\)/.exec(e.reason)?.[1] ?? '';
      throw new SegmentsError(key, `${copybook} declares several records (${names}): name one with "record"`);
    }
    throw new SegmentsError(key, `copybook ${copybook}: ${e.message}`);
  }
  if (view === undefined) return { layout: record };
  try {
    return yield* viewLayout(record, view, `${view} in ${copybook}`, key, copybook);
  } catch (e) {
    if (e instanceof SegmentsError || !(e instanceof Error)) throw e;
    throw new SegmentsError(key, `copybook ${copybook}: ${e.message}`);
  }
}

/** A REDEFINES view of a compiled record: the record compiled again, showing that view. */
function* viewLayout(
  record: CompiledLayout,
  viewName: string,
  target: string,
  key: string,
  copybook: string | undefined,
): Generator<SegmentCompile, SegmentLayout, CompiledLayout> {
  const { item, up } = itemNamed(record.root, viewName, key);
  const siblings = up.get(item)?.children ?? [];
  const base = item.redefines === undefined ? item : siblings.find((s) => s.cobolName === item.redefines);
  if (base === undefined || (base === item && !siblings.some((s) => s.redefines === item.cobolName))) {
    throw new SegmentsError(key, `${target} is neither a 01 record nor an item that REDEFINES or is redefined`);
  }
  const baseName = qualifiedName(base, up);
  const redefines = { [baseName]: qualifiedName(item, up) };
  const layout = yield { record: record.name, redefines, ...(copybook === undefined ? {} : { copybook }) };
  const shown = [...layoutItems(layout.root)].find(
    (i) => i.offset === item.offset && i.cobolName === item.cobolName && i.jsonPath !== null && i.line === item.line,
  );
  if (shown === undefined) throw new SegmentsError(key, `${target} is left out of JSON by the mapping`);
  const viewKey = shown.jsonPath!.split('.').at(-1)!.replace(/\[\]$/, '');
  return { layout, view: { record: record.name, base: base.cobolName, key: viewKey } };
}

/** Runs the resolution with a synchronous compile; a compile's error is given back to it, as thrown. */
function resolveSync(spec: SegmentsSpec, compile: (c: SegmentCompile) => CompiledLayout): Map<string, SegmentLayout> {
  const steps = segmentLayouts(spec);
  let next = steps.next();
  while (!next.done) {
    let layout: CompiledLayout;
    try {
      layout = compile(next.value);
    } catch (e) {
      next = steps.throw(e);
      continue;
    }
    next = steps.next(layout);
  }
  return next.value;
}

/** Runs the resolution with an asynchronous compile (the CLI's, which reads the copybook and the mapping). */
export async function resolveSegments(
  spec: SegmentsSpec,
  compile: (c: SegmentCompile) => Promise<CompiledLayout>,
): Promise<Map<string, SegmentLayout>> {
  const steps = segmentLayouts(spec);
  let next = steps.next();
  while (!next.done) {
    let layout: CompiledLayout;
    try {
      layout = await compile(next.value);
    } catch (e) {
      next = steps.throw(e);
      continue;
    }
    next = steps.next(layout);
  }
  return next.value;
}

/** The mapping with the views a segment shows added to its `redefines`. */
export function withViews(mapping: FieldMapping | undefined, redefines: Record<string, string> | undefined) {
  if (redefines === undefined) return mapping;
  return { ...mapping, redefines: { ...mapping?.redefines, ...redefines } };
}

/** `compileSegments`' options: the compile options, and the text of each copybook file a segment names. */
export interface SegmentsCompileOptions extends CompileOptions {
  /** A segment's copybook (`{"copybook": "account.cpy"}`) → its text. */
  copybooks?: Readonly<Record<string, string>> | undefined;
}

/**
 * Compiles what each segment of a segments file names (01 records, REDEFINES views) from one copybook's text, and
 * the copybook files segments name from `options.copybooks`. `source` may be undefined when every segment names
 * its copybook file.
 */
export function compileSegments(
  source: string | undefined,
  spec: unknown,
  options: SegmentsCompileOptions = {},
): SegmentedLayout {
  const parsed = parseSegments(spec);
  const { copybooks, ...compileOptions } = options;
  const layouts = resolveSync(parsed, ({ record, redefines, copybook }) => {
    const mapping = withViews(compileOptions.mapping, redefines);
    const text = copybook === undefined ? source : copybooks?.[copybook];
    if (text === undefined) {
      if (copybook !== undefined) throw new Error('its text is not in the copybooks option');
      throw new SegmentsError('segments', 'a segment names a record of the copybook, and no copybook text is given');
    }
    return compileCopybook(text, {
      ...compileOptions,
      ...(copybook === undefined ? {} : { fileName: copybook }),
      ...(record === undefined ? {} : { record }),
      ...(mapping === undefined ? {} : { mapping }),
    });
  });
  return new SegmentedLayout(parsed, layouts);
}

/**
 * Nests child segments under their parents, as Cobrix's `segment-children`: each child record goes, as an
 * element of an array under its record's key, into the last record of its parent segment; a record of a root
 * segment (one without a parent) is emitted, with its family, when the next root record or the end comes. So
 * memory holds one root's family. A child with no parent before it is a bad record; a record that did not
 * decode (`value` null) passes through at once.
 */
export async function* nestSegments(
  source: AsyncIterable<DecodedRecord[]>,
  layout: SegmentedLayout,
  options: { onError?: OnError | undefined } = {},
): AsyncGenerator<DecodedRecord[], void, undefined> {
  const onError = options.onError ?? 'fail';
  let family: DecodedRecord | undefined;
  // the open records from the family's root down: where the next child may attach
  const open: Array<{ segment: Segment; fields: Record<string, unknown> }> = [];
  for await (const batch of source) {
    const out: DecodedRecord[] = [];
    for (const record of batch) {
      if (record.value === null) {
        out.push(record);
        continue;
      }
      const segment = layout.segmentKeyed(record.value)!;
      const fields = record.value[segment.key] as Record<string, unknown>;
      if (segment.parent === undefined) {
        if (family !== undefined) out.push(family);
        family = record;
        open.length = 0;
        open.push({ segment, fields });
        continue;
      }
      let at = open.length - 1;
      while (at >= 0 && open[at]!.segment !== segment.parent) at--;
      if (at < 0) {
        const error = new DatasetError(
          { record: record.number, offset: record.offset, field: layout.field.name },
          `a ${segment.record} record with no ${segment.parent.record} record before it`,
        );
        if (onError === 'fail') throw error;
        out.push({ number: record.number, offset: record.offset, value: null, error });
        continue;
      }
      const parent = open[at]!.fields;
      const list = (parent[segment.key] ??= []) as unknown[];
      list.push(fields);
      open.length = at + 1;
      open.push({ segment, fields });
    }
    if (out.length > 0) yield out;
  }
  if (family !== undefined) yield [family];
}

/**
 * The nested form back to the flat one, for encode: each root record, then its children depth first, a child
 * segment's array after another's in the order of the object's keys. The bytes are the file's when each
 * record's children came grouped by segment (as a hierarchical file holds them).
 */
export async function* unnestSegments(
  source: AsyncIterable<SourceValue[]>,
  layout: SegmentedLayout,
): AsyncGenerator<SourceValue[], void, undefined> {
  const childrenOf = new Map<Segment, Segment[]>();
  for (const s of layout.segments) {
    if (s.parent !== undefined) childrenOf.set(s.parent, [...(childrenOf.get(s.parent) ?? []), s]);
  }
  const flatten = (segment: Segment, fields: unknown, line: number | undefined, out: SourceValue[], path: string) => {
    if (!isObject(fields)) {
      throw new DatasetError({ record: 0, offset: 0, line, field: path }, `a ${segment.record} record is an object`);
    }
    const own: Record<string, unknown> = { ...fields };
    const kids: Array<[Segment, unknown[]]> = [];
    for (const child of childrenOf.get(segment) ?? []) {
      const list = own[child.key];
      if (list === undefined) continue;
      delete own[child.key];
      if (!Array.isArray(list)) {
        throw new DatasetError(
          { record: 0, offset: 0, line, field: `${path}.${child.key}` },
          'child records are an array',
        );
      }
      kids.push([child, list]);
    }
    // children follow in the order their arrays come in the object, as decode wrote them
    kids.sort((a, b) => Object.keys(fields).indexOf(a[0].key) - Object.keys(fields).indexOf(b[0].key));
    out.push({ value: { [segment.key]: own }, line });
    for (const [child, list] of kids) {
      list.forEach((c, i) => flatten(child, c, line, out, `${path}.${child.key}[${i}]`));
    }
  };
  for await (const batch of source) {
    const out: SourceValue[] = [];
    for (const { value, line } of batch) {
      const segment = isObject(value) ? layout.segmentKeyed(value) : undefined;
      if (segment === undefined) {
        out.push({ value, line }); // the encoder says what is wrong with it
        continue;
      }
      flatten(segment, (value as Record<string, unknown>)[segment.key], line, out, segment.key);
    }
    if (out.length > 0) yield out;
  }
}
