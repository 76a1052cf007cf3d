/**
 * Parquet output of decoded records: the Parquet schema follows the layout (groups as structs, OCCURS as lists,
 * decimals as DECIMAL), and rows are written one row group at a time, so memory holds one row group, never the file.
 * A multi-segment file is one Parquet file, as Cobrix writes it: the segment id, then a struct column per segment,
 * null in the rows of the other segments (with children, each child segment a list in its parent's struct).
 */
import { open, type FileHandle } from 'node:fs/promises';
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { layoutItems, numberToPlainString, type CompiledLayout, type LayoutItem } from '@corebridge/records';
import { SegmentedLayout, type Segment } from '@corebridge/records/dataset';
import { ByteWriter, ParquetWriter } from 'hyparquet-writer';

type SchemaElement = ParquetWriter['schema'][number];

export interface ParquetSink {
  /** Adds rows as decode returns them; `null` (a record decode gave up on) is a row of nulls. */
  write(rows: readonly (Record<string, unknown> | null)[]): Promise<void>;
  /** Writes the last row group and the footer, and closes the file (a stream is left open: stdout stays usable). */
  close(): Promise<void>;
  /** Closes the output after a failure; the caller removes the file, unreadable without its footer. */
  abort(): Promise<void>;
  /** Rows written so far. */
  readonly rows: number;
}

export interface ParquetOptions {
  /** Rows per row group; default from the values a record holds (about half a million per group). */
  rowGroupSize?: number;
}

/** A column of the Parquet schema: a struct, a list (OCCURS) or a leaf with the conversion of its JSON value. */
interface Column {
  key: string;
  path: string;
  list: boolean;
  /** The most elements of a list (OCCURS … TIMES, or the TO of DEPENDING ON). */
  occurs: number;
  children?: Column[];
  /** Leaf: its schema element (without name and repetition) and JSON value → what the writer takes. */
  leaf?: SchemaElement;
  convert?: (v: unknown) => unknown;
  /** Whether values under this column must be converted (any bigint leaf), or pass as decode gave them. */
  converts: boolean;
}

type Leaf = Pick<Column, 'leaf' | 'convert' | 'converts'>;

/** Parquet DECIMAL stops where DuckDB and Spark do; a wider value is written as its decimal text. */
const MAX_PRECISION = 38;
/** Decode gives a JSON number for at most this many digits, a decimal string beyond. */
const EXACT_DIGITS = 15;
const INT32_MAX = 2n ** 31n - 1n;
const INT64_MAX = 2n ** 63n - 1n;

function keyOf(item: LayoutItem): string {
  const last = item.jsonPath!.split('.').at(-1)!;
  return last.endsWith('[]') ? last.slice(0, -2) : last;
}

function fail(path: string, v: unknown, what: string): never {
  throw new TypeError(`parquet: ${path}: ${JSON.stringify(v)} is not ${what}`);
}

/** The exact unscaled integer of a decimal (a JSON number of at most 15 digits, or a decimal string). */
function unscaled(v: unknown, scale: number, path: string): bigint {
  if (scale === 0 && Number.isSafeInteger(v)) return BigInt(v as number);
  const text = typeof v === 'number' ? numberToPlainString(v) : v;
  const m = typeof text === 'string' ? /^(-?)(\d+)(?:\.(\d+))?$/.exec(text) : null;
  if (!m || (m[3]?.length ?? 0) > scale) fail(path, v, `a decimal with at most ${scale} decimals`);
  const n = BigInt(m[2]! + (m[3] ?? '').padEnd(scale, '0'));
  return m[1] ? -n : n;
}

/** Bytes of the shortest two's complement that holds every unscaled value of `precision` digits. */
function decimalBytes(precision: number): number {
  const max = 10n ** BigInt(precision) - 1n;
  let bytes = 1;
  while (2n ** BigInt(8 * bytes - 1) - 1n < max) bytes++;
  return bytes;
}

/**
 * Integers (scale 0) as INT32/INT64 while they fit, as Spark (and Cobrix) type PIC 9(1-9) and 9(10-18), so that
 * they join and sum as integers; everything with decimals, and wider integers, as DECIMAL(precision, scale).
 */
function numericLeaf(item: LayoutItem, path: string): Leaf {
  const digits = item.digits ?? 0;
  const scale = item.scale ?? 0;
  const signed = item.signed ?? false;
  const decimals = Math.max(scale, 0);
  let precision = Math.max(digits - scale, 0) + decimals;
  let max = 10n ** BigInt(precision) - 1n;
  if (item.usage === 'comp-5') {
    // native binary holds the whole range of its bytes, whatever its picture says
    const bits = BigInt(item.length * 8);
    max = signed ? 2n ** (bits - 1n) - 1n : 2n ** bits - 1n;
    precision = Math.max(String(max).length, decimals);
  }
  if (precision > MAX_PRECISION) {
    return {
      leaf: { name: '', type: 'BYTE_ARRAY', converted_type: 'UTF8' },
      convert: (v) => (v == null ? v : typeof v === 'number' ? numberToPlainString(v) : v),
      converts: true,
    };
  }
  if (decimals === 0 && max <= INT32_MAX) {
    return { leaf: { name: '', type: 'INT32' }, convert: (v) => v, converts: false };
  }
  if (decimals === 0 && max <= INT64_MAX) {
    const toBigInt = (v: unknown) => (v == null ? v : unscaled(v, 0, path));
    return { leaf: { name: '', type: 'INT64' }, convert: toBigInt, converts: true };
  }
  const type = precision <= 9 ? 'INT32' : precision <= 18 ? 'INT64' : 'FIXED_LEN_BYTE_ARRAY';
  const leaf: SchemaElement = {
    name: '',
    type,
    ...(type === 'FIXED_LEN_BYTE_ARRAY' ? { type_length: decimalBytes(precision) } : {}),
    converted_type: 'DECIMAL',
    precision,
    scale: decimals,
    logical_type: { type: 'DECIMAL', precision, scale: decimals },
  };
  // The writer scales a JSON number itself, exactly for decode's numbers (at most 15 digits, so |unscaled| < 2^53
  // and rounding the product gives the integer back); a decimal string, of a wider field, becomes its bigint.
  const toUnscaled = (v: unknown) => (typeof v === 'string' ? unscaled(v, decimals, path) : v);
  return { leaf, convert: toUnscaled, converts: precision > EXACT_DIGITS };
}

/** The leaf of an elementary item, by the JSON type decode gives it (records/src/schema.ts). */
function leafOf(item: LayoutItem, path: string): Leaf {
  if (item.kind !== 'numeric') {
    return { leaf: { name: '', type: 'BYTE_ARRAY', converted_type: 'UTF8' }, convert: (v) => v, converts: false };
  }
  switch (item.usage) {
    case 'comp-1':
      return { leaf: { name: '', type: 'FLOAT' }, convert: (v) => v, converts: false };
    case 'comp-2':
      return { leaf: { name: '', type: 'DOUBLE' }, convert: (v) => v, converts: false };
    case 'index':
      return numericLeaf({ ...item, usage: 'comp-5', digits: 0, scale: 0, signed: true }, path);
    case 'pointer':
      return numericLeaf({ ...item, usage: 'comp-5', digits: 0, scale: 0, signed: false }, path);
    default:
      return numericLeaf(item, path);
  }
}

function columnOf(item: LayoutItem): Column | undefined {
  const key = keyOf(item);
  const path = item.jsonPath!;
  const list = item.occurs !== undefined;
  const occurs = item.occurs?.max ?? 1;
  if (item.children === undefined) return { key, path, list, occurs, ...leafOf(item, path) };
  const children = columnsOf(item);
  // a group of FILLERs only decodes to {}; Parquet has no struct without fields
  if (children.length === 0) return undefined;
  return { key, path, list, occurs, children, converts: children.some((c) => c.converts) };
}

function columnsOf(group: LayoutItem): Column[] {
  const out: Column[] = [];
  for (const c of group.children ?? []) {
    if (c.jsonPath === null) continue;
    const col = columnOf(c);
    if (col) out.push(col);
  }
  return out;
}

/** Schema elements of a column, depth first; every field is OPTIONAL, as decode may leave any of them out. */
function elementsOf(col: Column): SchemaElement[] {
  const body: SchemaElement[] = col.children
    ? [{ name: col.list ? 'element' : col.key, num_children: col.children.length }, ...col.children.flatMap(elementsOf)]
    : [{ ...col.leaf!, name: col.list ? 'element' : col.key }];
  body[0]!.repetition_type = 'OPTIONAL';
  if (!col.list) return body;
  // the three-level LIST of the Parquet spec, which Spark, DuckDB and Arrow read as list<element>
  return [
    { name: col.key, repetition_type: 'OPTIONAL', converted_type: 'LIST', num_children: 1 },
    { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
    ...body,
  ];
}

/** JSON value of a column → what the writer takes (bigints for INT64 and DECIMAL); untouched when nothing converts. */
function converterOf(col: Column): (v: unknown) => unknown {
  if (!col.converts) return (v) => v;
  let one: (v: unknown) => unknown;
  if (col.children) {
    const parts = col.children.map((c) => [c.key, converterOf(c)] as const);
    one = (v) => {
      if (v == null) return v;
      if (typeof v !== 'object') fail(col.path, v, 'an object');
      const o = v as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      for (const [k, f] of parts) out[k] = f(o[k]);
      return out;
    };
  } else {
    one = col.convert!;
  }
  if (!col.list) return one;
  return (v) => (v == null ? v : Array.isArray(v) ? v.map(one) : fail(col.path, v, 'an array'));
}

/** Values in one row at most (every table full): a row group holds them all as JS values until it is written. */
function valuesPerRow(columns: Column[]): number {
  let n = 0;
  for (const c of columns) n += (c.children ? valuesPerRow(c.children) : 1) * (c.list ? c.occurs : 1);
  return n;
}

/** Rows per row group when not given: about half a million values, so memory stays well inside the CLI's budget. */
function defaultRowGroupSize(columns: Column[]): number {
  return Math.min(100_000, Math.max(1_000, Math.floor(500_000 / valuesPerRow(columns))));
}

/** The column of the segment id in a multi-segment file's Parquet. */
export const SEGMENT_ID_COLUMN = 'segment_id';

/** Child segments in a parent's list: a guess of how many, for the size of a row group only. */
const CHILDREN_PER_PARENT = 8;

/**
 * The item a segment's struct column is made from: its record (or view's record) under its key, and, when the
 * segments nest, each child segment's as a list under its key.
 */
function segmentItem(segment: Segment, all: readonly Segment[], nested: boolean): LayoutItem {
  const children = nested ? all.filter((s) => s.parent === segment) : [];
  const root = segment.layout.root;
  return {
    ...root,
    jsonPath: segment.key,
    children: [
      ...(root.children ?? []),
      ...children.map((c) => ({
        ...segmentItem(c, all, nested),
        jsonPath: `${segment.key}.${c.key}[]`,
        occurs: { min: 0, max: CHILDREN_PER_PARENT },
      })),
    ],
  };
}

/**
 * The segment id of a decoded row, as the file holds it (trimmed): the one id of its segment, else the id
 * field's value in the row's JSON.
 */
function segmentIdOf(layout: SegmentedLayout): (row: Record<string, unknown>) => string | null {
  const byKey = new Map<string, (fields: Record<string, unknown>) => string | null>();
  for (const s of layout.segments) {
    if (s.ids.length === 1) {
      const id = s.ids[0]!;
      byKey.set(s.key, () => id);
      continue;
    }
    const item = [...layoutItems(s.layout.root)].find(
      (i) => i.cobolName === layout.field.name && i.offset === layout.field.offset && i.jsonPath !== null,
    );
    const path = item?.jsonPath?.split('.') ?? [];
    byKey.set(s.key, (fields) => {
      let v: unknown = fields;
      for (const k of path) v = (v as Record<string, unknown> | undefined)?.[k];
      if (typeof v === 'string') return v.trim();
      if (typeof v === 'number') return String(v).padStart(layout.field.length, '0');
      return null;
    });
  }
  return (row) => {
    const key = Object.keys(row).find((k) => byKey.has(k));
    return key === undefined ? null : byKey.get(key)!(row[key] as Record<string, unknown>);
  };
}

/** The columns of a layout's rows; for a multi-segment file, the segment id and a struct per (root) segment. */
function columnsOfLayout(layout: CompiledLayout | SegmentedLayout): Column[] {
  if (!(layout instanceof SegmentedLayout)) return columnsOf(layout.root);
  const roots = layout.segments.filter((s) => !layout.nested || s.parent === undefined);
  const id: Column = {
    key: SEGMENT_ID_COLUMN,
    path: SEGMENT_ID_COLUMN,
    list: false,
    occurs: 1,
    leaf: { name: '', type: 'BYTE_ARRAY', converted_type: 'UTF8' },
    convert: (v) => v,
    converts: false,
  };
  const clash = roots.find((s) => s.key === SEGMENT_ID_COLUMN);
  if (clash)
    throw new Error(`parquet: the segment ${clash.record} has the JSON name of the column ${SEGMENT_ID_COLUMN}`);
  const group: LayoutItem = {
    ...layout.root,
    children: roots.map((s) => segmentItem(s, layout.segments, layout.nested)),
  };
  return [id, ...columnsOf(group)];
}

/** The Parquet schema the layout's decoded records are written with (root first, as the file's footer holds it). */
export function parquetSchema(layout: CompiledLayout | SegmentedLayout): SchemaElement[] {
  const columns = columnsOfLayout(layout);
  const name = layout instanceof SegmentedLayout ? 'segments' : layout.name;
  return [{ name, num_children: columns.length }, ...columns.flatMap(elementsOf)];
}

/**
 * Sends the writer's buffer to the output after each row group and at the end; the writer encodes the next row
 * group only once that write is done, so its buffer is reused and never holds more than one row group.
 */
class OutputWriter extends ByteWriter {
  readonly #out: (bytes: Uint8Array) => Promise<void>;
  readonly #end: () => Promise<void>;

  constructor(out: (bytes: Uint8Array) => Promise<void>, end: () => Promise<void>) {
    super(1 << 16);
    this.#out = out;
    this.#end = end;
  }

  async flush(): Promise<void> {
    const bytes = new Uint8Array(this.buffer, 0, this.index);
    await this.#out(bytes);
    this.index = 0;
  }

  override async finish(): Promise<void> {
    await this.flush();
    await this.#end();
  }
}

/**
 * Opens a Parquet file (a path) or stream (a Writable, e.g. stdout: Parquet is written front to back) for the
 * records of `layout`.
 */
export async function openParquet(
  target: string | Writable,
  layout: CompiledLayout | SegmentedLayout,
  options: ParquetOptions = {},
): Promise<ParquetSink> {
  const columns = columnsOfLayout(layout);
  if (columns.length === 0) throw new Error(`parquet: the record ${layout.root.cobolName} has no field to write`);
  const schema = parquetSchema(layout);
  const rowGroupSize = options.rowGroupSize ?? defaultRowGroupSize(columns);
  if (!Number.isInteger(rowGroupSize) || rowGroupSize < 1) throw new RangeError('parquet: rowGroupSize must be ≥ 1');

  let handle: FileHandle | undefined;
  let out: (bytes: Uint8Array) => Promise<void>;
  let end: () => Promise<void>;
  if (typeof target === 'string') {
    const h = await open(target, 'w');
    handle = h;
    out = async (bytes) => {
      let done = 0;
      while (done < bytes.length) done += (await h.write(bytes, done)).bytesWritten;
    };
    end = () => h.close();
  } else {
    out = async (bytes) => {
      // the stream keeps what it is given until it is written, and the writer reuses its buffer
      if (!target.write(Buffer.from(bytes))) await once(target, 'drain');
    };
    end = async () => {};
  }

  let rowOf = (row: Record<string, unknown>, i: number): unknown => converters[i]!(row[columns[i]!.key]);
  const writer = new ParquetWriter({ writer: new OutputWriter(out, end), schema, createdBy: 'corebridge' });
  const converters = columns.map(converterOf);
  if (layout instanceof SegmentedLayout) {
    // the segment id column takes the whole row, of which one key is the segment's
    const idOf = segmentIdOf(layout);
    const rowConverters = converters.map((c, i) => (row: Record<string, unknown>) => c(row[columns[i]!.key]));
    rowConverters[0] = idOf;
    rowOf = (row, i) => rowConverters[i]!(row);
  }
  let pending: unknown[][] = columns.map(() => []);
  let buffered = 0;
  let rows = 0;
  let closed = false;
  let finished = false;

  const writeGroup = async () => {
    const columnData = columns.map((c, i) => ({ name: c.key, data: pending[i]! }));
    const size = buffered;
    pending = columns.map(() => []);
    buffered = 0;
    try {
      await writer.write({ columnData, rowGroupSize: size });
    } catch (e) {
      // the writer names neither row nor column
      const first = rows - size + 1;
      throw new Error(`parquet: the row group of rows ${first} to ${rows}: ${(e as Error).message}`, { cause: e });
    }
  };

  return {
    get rows() {
      return rows;
    },
    async write(batch) {
      if (closed) throw new Error('parquet: write after close');
      for (const row of batch) {
        for (let i = 0; i < columns.length; i++) {
          pending[i]!.push(row === null ? null : rowOf(row, i));
        }
        buffered++;
        rows++;
        if (buffered === rowGroupSize) await writeGroup();
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      if (buffered > 0) await writeGroup();
      await writer.finish();
      finished = true;
    },
    async abort() {
      if (finished) return;
      closed = true;
      finished = true;
      await handle?.close();
    },
  };
}
