/**
 * Parquet output of decoded records: the Parquet schema follows the layout (groups as structs, OCCURS as lists,
 * decimals as DECIMAL), and rows are written one row group at a time, so memory holds one row group, never the file.
 */
import { open, rm, type FileHandle } from 'node:fs/promises';
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { numberToPlainString, type CompiledLayout, type LayoutItem } from '@corebridge/records';
import { ByteWriter, ParquetWriter } from 'hyparquet-writer';

type SchemaElement = ParquetWriter['schema'][number];

export interface ParquetSink {
  /** Adds rows as decode returns them; `null` (a record decode gave up on) is a row of nulls. */
  write(rows: readonly (Record<string, unknown> | null)[]): Promise<void>;
  /** Writes the last row group and the footer, and closes the file (a stream is left open: stdout stays usable). */
  close(): Promise<void>;
  /** Closes the output after a failure; a file is removed, as a Parquet file without its footer is unreadable. */
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

/** The Parquet schema the layout's decoded records are written with (root first, as the file's footer holds it). */
export function parquetSchema(layout: CompiledLayout): SchemaElement[] {
  const columns = columnsOf(layout.root);
  return [{ name: layout.name, num_children: columns.length }, ...columns.flatMap(elementsOf)];
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
  layout: CompiledLayout,
  options: ParquetOptions = {},
): Promise<ParquetSink> {
  const columns = columnsOf(layout.root);
  if (columns.length === 0) throw new Error(`parquet: the record ${layout.name} has no field to write`);
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

  const writer = new ParquetWriter({ writer: new OutputWriter(out, end), schema, createdBy: 'corebridge' });
  const converters = columns.map(converterOf);
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
          pending[i]!.push(row === null ? null : converters[i]!(row[columns[i]!.key]));
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
      if (handle && typeof target === 'string') {
        await handle.close();
        await rm(target, { force: true });
      }
    },
  };
}
