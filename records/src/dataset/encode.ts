import { RecordEncodeError } from '../errors.ts';
import { DatasetError } from './errors.ts';
import { RecordWriter, type FramingOptions } from './framing.ts';

/** What turns one JSON value into a record's bytes: a compiled layout. */
export interface RecordEncoder {
  encode(json: unknown): Uint8Array;
}

/** A value to encode and, when it came from a file, the line it was on (for the error). */
export interface SourceValue {
  value: unknown;
  line?: number | undefined;
}

export interface EncodeOptions {
  framing: FramingOptions;
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

/** `encodeDataset` over batches of values, as `readJsonLines` gives them. */
export async function* encodeBatches(
  source: AsyncIterable<SourceValue[]>,
  encoder: RecordEncoder,
  options: EncodeOptions,
): AsyncGenerator<Uint8Array, void, undefined> {
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
    if (ready.length > 0) yield ready;
  }
  const last = writer.end();
  if (last.length > 0) yield last;
}
