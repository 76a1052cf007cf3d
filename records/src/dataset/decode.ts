import { RecordDecodeError } from '../errors.ts';
import type { RecordDecodeOptions } from '../types.ts';
import { DatasetError } from './errors.ts';
import { isVariable, RecordReader, type FramingOptions, type RawRecord } from './framing.ts';

/** What turns one record's bytes into JSON: a compiled layout, or a choice of layouts by segment. */
export interface RecordDecoder {
  decode(bytes: Uint8Array, options?: RecordDecodeOptions): Record<string, unknown>;
  readonly minLength: number;
  readonly maxLength: number;
}

/**
 * `fail` stops at the first bad record (the default: never a silent wrong value); `skip` leaves it out and
 * `null` keeps its place as a `null` value, both reporting it in `error`.
 */
export type OnError = 'fail' | 'skip' | 'null';

export interface DecodeOptions {
  framing: FramingOptions;
  onError?: OnError | undefined;
  /** Records to pass over, undecoded, before the first one decoded. */
  skip?: number | undefined;
  /** The most records to decode (after `skip`); reading stops there. */
  limit?: number | undefined;
  /** Where the source starts in the file, for a part of a file (`--split`): record numbers and offsets follow it. */
  start?: { number: number; offset: number } | undefined;
}

export interface DecodedRecord {
  /** 1-based number of the record in the file. */
  number: number;
  /** Byte offset of the record (its RDW for V/VB) in the file. */
  offset: number;
  /** The record's JSON; `null` when it could not be decoded (`error` says why). */
  value: Record<string, unknown> | null;
  error?: DatasetError;
}

/** The error naming a record's number and offset for a decode failure inside it. */
export function recordError(record: RawRecord, e: unknown, headerLength: number): DatasetError {
  if (e instanceof RecordDecodeError) {
    return new DatasetError(
      { record: record.number, offset: record.offset, field: e.field },
      `${e.reason}, at byte ${record.offset + headerLength + e.offset} (byte ${e.offset} of the record)`,
    );
  }
  if (e instanceof DatasetError) return e;
  throw e;
}

const FIXED_SLOT: RecordDecodeOptions = { trailing: 'ignore' };

/**
 * One record's JSON, or the error naming its number, offset and field. An F record may be longer than the layout
 * says (a wider LRECL, or OCCURS DEPENDING ON below its maximum); a V record's length is the record's own, so
 * anything past its end is an error.
 */
export function decodeRawRecord(decoder: RecordDecoder, record: RawRecord, variable: boolean): Record<string, unknown> {
  try {
    return decoder.decode(record.bytes, variable ? undefined : FIXED_SLOT);
  } catch (e) {
    throw recordError(record, e, variable ? 4 : 0);
  }
}

/**
 * The synchronous core of `decodeDataset`: chunks in, each chunk's records out (a worker thread decodes its batch
 * of records with one).
 */
export class DatasetDecoder {
  readonly #decoder: RecordDecoder;
  readonly #onError: OnError;
  readonly #reader: RecordReader;
  readonly #variable: boolean;
  #toSkip: number;
  #left: number;

  constructor(decoder: RecordDecoder, options: DecodeOptions) {
    this.#decoder = decoder;
    this.#onError = options.onError ?? 'fail';
    this.#reader = new RecordReader(options.framing, options.start);
    this.#variable = isVariable(options.framing.recfm);
    this.#toSkip = options.skip ?? 0;
    this.#left = options.limit ?? Infinity;
  }

  /** Whether the limit is reached: nothing more will be decoded. */
  get done(): boolean {
    return this.#left <= 0;
  }

  /** The records that `chunk` completes, after those skipped and up to the limit. */
  push(chunk: Uint8Array): DecodedRecord[] {
    const batch: DecodedRecord[] = [];
    if (this.#left <= 0) return batch;
    for (const record of this.#reader.push(chunk)) {
      if (this.#toSkip > 0) {
        this.#toSkip--;
        continue;
      }
      const { number, offset } = record;
      try {
        batch.push({ number, offset, value: decodeRawRecord(this.#decoder, record, this.#variable) });
      } catch (e) {
        if (!(e instanceof DatasetError) || this.#onError === 'fail') throw e;
        batch.push({ number, offset, value: null, error: e });
      }
      if (--this.#left === 0) break;
    }
    return batch;
  }

  /** Ends the input: a partial record left over is an error (see `RecordReader.end`). */
  end(): void {
    if (this.#left > 0) this.#reader.end();
  }
}

/**
 * Decodes records one batch per chunk of the source, so a caller that writes each batch before asking for the
 * next keeps memory flat. With `onError: 'skip'` the bad records still come, with `value: null` and their error,
 * for the caller's report; it leaves them out of its output.
 */
export async function* decodeDataset(
  source: AsyncIterable<Uint8Array>,
  decoder: RecordDecoder,
  options: DecodeOptions,
): AsyncGenerator<DecodedRecord[], void, undefined> {
  const records = new DatasetDecoder(decoder, options);
  if (records.done) return;
  for await (const chunk of source) {
    const batch = records.push(chunk);
    if (batch.length > 0) yield batch;
    if (records.done) return;
  }
  records.end();
}
