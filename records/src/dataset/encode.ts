import { RecordEncodeError } from '../errors.ts';
import { DatasetError } from './errors.ts';
import { RecordWriter, type FramingOptions } from './framing.ts';
import { BLANK, parseLine, readJsonLines, takeJsonLinesSource, type SourceValue } from './jsonl.ts';
import { jsonLineEncoderOf, type JsonLineEncoder } from '../codegen/json-encode.ts';

export type { SourceValue } from './jsonl.ts';

/** What turns one JSON value into a record's bytes: a compiled layout. */
export interface RecordEncoder {
  encode(json: unknown): Uint8Array;
}

export interface EncodeOptions {
  framing: FramingOptions;
}

export interface JsonLinesEncodeOptions extends EncodeOptions {
  /**
   * What encodes the lines the byte path leaves (keys it does not know, such as `@bytes`), in place of `encoder`
   * (e.g. `exactEncoder(encoder)`); it must encode a line the byte path takes to the same bytes.
   */
  fallback?: RecordEncoder | undefined;
}

/**
 * Encodes JSON values into a file's bytes, framed by the record format: one chunk per batch of values. A value
 * the layout cannot hold stops it with the record number (or input line) and the JSON path.
 */
export async function* encodeDataset(
  source: AsyncIterable<unknown> | Iterable<unknown>,
  encoder: RecordEncoder,
  options: EncodeOptions,
): AsyncGenerator<Uint8Array, void, undefined> {
  async function* batches(): AsyncGenerator<SourceValue[]> {
    let batch: SourceValue[] = [];
    for await (const value of source) {
      batch.push({ value });
      if (batch.length === 1024) {
        yield batch;
        batch = [];
      }
    }
    if (batch.length > 0) yield batch;
  }
  yield* encodeBatches(batches(), encoder, options);
}

/** What one batch of input gave: the file's bytes ready so far (maybe none) and how many records it held. */
export interface EncodedBatch {
  bytes: Uint8Array;
  records: number;
}

/**
 * `encodeDataset` over batches of values, as `readJsonLines` gives them. Given `readJsonLines(source)` itself
 * (not read from yet) and a layout from compileCopybook, it reads the source's bytes straight into records.
 */
export async function* encodeBatches(
  source: AsyncIterable<SourceValue[]>,
  encoder: RecordEncoder,
  options: EncodeOptions,
): AsyncGenerator<Uint8Array, void, undefined> {
  const lines = jsonLineEncoderOf(encoder) === null ? undefined : takeJsonLinesSource(source);
  const batches =
    lines === undefined ? encodeCounted(source, encoder, options) : encodeJsonLines(lines, encoder, options);
  for await (const { bytes } of batches) if (bytes.length > 0) yield bytes;
}

/**
 * JSON Lines (as `readJsonLines` reads them) encoded into a file's bytes, one batch per chunk of the source, with
 * the records each held; the same bytes, and the same errors, as `encodeBatches(readJsonLines(source), …)`.
 * Lines whose keys come in the layout's order take a path that reads their bytes straight into the record.
 */
export async function* encodeJsonLines(
  source: AsyncIterable<Uint8Array | string>,
  encoder: RecordEncoder,
  options: JsonLinesEncodeOptions,
): AsyncGenerator<EncodedBatch, void, undefined> {
  const fast = jsonLineEncoderOf(encoder);
  const other = options.fallback ?? encoder;
  if (fast === null) yield* encodeCounted(readJsonLines(source), other, options);
  else yield* encodeLines(source, other, fast, options);
}

async function* encodeCounted(
  source: AsyncIterable<SourceValue[]>,
  encoder: RecordEncoder,
  options: EncodeOptions,
): AsyncGenerator<EncodedBatch, void, undefined> {
  const writer = new RecordWriter(options.framing);
  let number = 1;
  let offset = 0;
  for await (const batch of source) {
    for (const { value, line } of batch) {
      let bytes: Uint8Array;
      try {
        bytes = encoder.encode(value);
      } catch (e) {
        if (!(e instanceof RecordEncodeError)) throw e;
        throw new DatasetError({ record: number, offset: offset, field: e.path || undefined, line }, e.reason);
      }
      writer.write(bytes);
      number++;
    }
    const ready = writer.take();
    offset += ready.length;
    yield { bytes: ready, records: batch.length };
  }
  yield { bytes: writer.end(), records: 0 };
}

const NEWLINE = Buffer.from('\n');

/**
 * The byte path: each line through the layout's line encoder, a line it gives up on through JSON.parse and
 * `encode`. As readJsonLines parses a whole chunk before any of its records is encoded, an encode error waits
 * until the chunk's later lines are known to be JSON: a line that is not comes first.
 */
async function* encodeLines(
  source: AsyncIterable<Uint8Array | string>,
  encoder: RecordEncoder,
  fast: JsonLineEncoder,
  options: EncodeOptions,
): AsyncGenerator<EncodedBatch, void, undefined> {
  const writer = new RecordWriter(options.framing);
  const record = Buffer.allocUnsafe(fast.length);
  let number = 1;
  let offset = 0;
  let line = 0;
  let rest: Buffer | undefined;
  /** The lines of `b` (each ending in `\n`): the records they held. */
  const encodeChunk = (b: Buffer): number => {
    let records = 0;
    let failure: unknown;
    let from = 0;
    for (let nl = b.indexOf(0x0a, from); nl >= 0; nl = b.indexOf(0x0a, from)) {
      line++;
      const start = from;
      from = nl + 1;
      if (failure === undefined && fast.encodeLine(b, start, record) === nl) {
        try {
          writer.write(record);
        } catch (e) {
          failure = e;
        }
        number++;
        records++;
        continue;
      }
      const value = parseLine(b.toString('utf8', start, nl), line);
      if (value === BLANK || failure !== undefined) continue;
      records++;
      try {
        writer.write(encoder.encode(value));
      } catch (e) {
        failure =
          e instanceof RecordEncodeError
            ? new DatasetError({ record: number, offset, field: e.path || undefined, line }, e.reason)
            : e;
      }
      number++;
    }
    if (failure !== undefined) throw failure;
    return records;
  };
  for await (const chunk of source) {
    let b = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : toBuffer(chunk);
    if (rest !== undefined) b = Buffer.concat([rest, b]);
    const end = b.lastIndexOf(0x0a);
    rest = end + 1 < b.length ? b.subarray(end + 1) : undefined;
    if (end < 0) continue;
    const records = encodeChunk(b.subarray(0, end + 1));
    if (records === 0) continue;
    const ready = writer.take();
    offset += ready.length;
    yield { bytes: ready, records };
  }
  if (rest !== undefined) {
    const records = encodeChunk(Buffer.concat([rest, NEWLINE]));
    if (records > 0) {
      const ready = writer.take();
      offset += ready.length;
      yield { bytes: ready, records };
    }
  }
  yield { bytes: writer.end(), records: 0 };
}

function toBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
