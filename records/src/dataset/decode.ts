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
  const { framing } = options;
  const onError = options.onError ?? 'fail';
  const reader = new RecordReader(framing, options.start);
  const headerLength = isVariable(framing.recfm) ? 4 : 0;
  // an F record may be longer than the layout says (a wider LRECL, or OCCURS DEPENDING ON below its maximum);
  // a V record's length is the record's own, so anything past its end is an error
  const recordOptions: RecordDecodeOptions | undefined = isVariable(framing.recfm) ? undefined : { trailing: 'ignore' };
  let toSkip = options.skip ?? 0;
  let left = options.limit ?? Infinity;
  if (left <= 0) return;
  for await (const chunk of source) {
    const records = reader.push(chunk);
    const batch: DecodedRecord[] = [];
    for (const record of records) {
      if (toSkip > 0) {
        toSkip--;
        continue;
      }
      try {
        batch.push({
          number: record.number,
          offset: record.offset,
          value: decoder.decode(record.bytes, recordOptions),
        });
      } catch (e) {
        const error = recordError(record, e, headerLength);
        if (onError === 'fail') throw error;
        batch.push({ number: record.number, offset: record.offset, value: null, error });
      }
      if (--left === 0) break;
    }
    if (batch.length > 0) yield batch;
    if (left === 0) return;
  }
  reader.end();
}
