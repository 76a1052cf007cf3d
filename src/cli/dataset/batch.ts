/**
 * One batch of whole records decoded to JSON Lines or CSV rows, the same way in a worker thread and in the thread
 * that reads the file: a decoder per batch, so a record decodes, fails or is skipped exactly as on one thread.
 */
import {
  DatasetDecoder,
  DatasetError,
  JsonLinesDecoder,
  type CsvTable,
  type DecodeOptions,
  type FramingOptions,
  type JsonTextDecoder,
  type OnError,
} from '@corebridge/records/dataset';
import type { LayoutArgs } from './segments.ts';

/** What a worker needs to decode like the reading thread would: the layout's options, and the decode's. */
export interface WorkerSetup {
  /** The copybook (none when every segment names its own). */
  file: string | undefined;
  args: LayoutArgs;
  /** `--keep-bytes`: each line carries the bytes its fields do not say. */
  keepBytes: boolean;
  /** The text each batch becomes. */
  format: 'jsonl' | 'csv';
  framing: FramingOptions;
  onError: OnError;
}

/**
 * A batch: whole records (or blocks) at the start of `input`, where they start in the file, what to skip or stop
 * at, and a buffer to write its text into. Both buffers come back with the answer, to be lent again.
 */
export interface Job {
  input: ArrayBuffer;
  length: number;
  output: ArrayBuffer | undefined;
  start: { number: number; offset: number };
  skip: number;
  limit: number | undefined;
}

export type PlainError = { record: number; offset: number; field?: string; reason: string };

export type JobResult =
  | {
      ok: true;
      input: ArrayBuffer;
      /** The JSON Lines or CSV rows, from its first byte. */
      output: ArrayBuffer;
      length: number;
      rows: number;
      errors: PlainError[];
      /** A broken record header or a partial record after the lines: reported once they are written. */
      fault?: PlainError;
    }
  | { ok: false; error: PlainError }
  | { ok: false; message: string; stack?: string | undefined };

/** What a batch becomes: its text, how many lines, its bad records. */
interface BatchText {
  lines: Buffer;
  count: number;
  errors: DatasetError[];
}

/** Turns one batch into text: `push` the records, then `end` (which throws on a partial record left over). */
interface TextDecoder {
  push(chunk: Uint8Array, into: Buffer | undefined): BatchText;
  end(): void;
}

/** CSV rows of a batch's records, written into the buffer lent, or a larger one when it is too small. */
function csvDecoder(decoder: JsonTextDecoder, table: CsvTable, options: DecodeOptions): TextDecoder {
  const records = new DatasetDecoder(decoder, options);
  const skip = options.onError === 'skip';
  return {
    push(chunk, into) {
      let out = into ?? Buffer.allocUnsafeSlow(OUTPUT_BYTES);
      let p = 0;
      let count = 0;
      const errors: DatasetError[] = [];
      for (const record of records.push(chunk)) {
        if (record.error !== undefined) {
          errors.push(record.error);
          if (skip) continue;
        }
        const row = table.row(record.value);
        // a UTF-16 unit is at most 3 bytes of UTF-8
        if (out.length - p < row.length * 3) {
          const larger = Buffer.allocUnsafeSlow(Math.max(out.length * 2, p + row.length * 3));
          out.copy(larger, 0, 0, p);
          out = larger;
        }
        p += out.write(row, p, 'utf8');
        count++;
      }
      return { lines: out.subarray(0, p), count, errors };
    },
    end: () => records.end(),
  };
}

/** The smallest output buffer a worker makes when none is lent. */
const OUTPUT_BYTES = 1 << 22;

/**
 * Decodes `job` with `decoder` to JSON Lines, or to CSV rows with `table`; every outcome, errors too, is an answer
 * that can cross to another thread.
 */
export function decodeBatch(
  job: Job,
  decoder: JsonTextDecoder,
  options: { framing: FramingOptions; onError: OnError; table?: CsvTable | undefined },
): JobResult {
  const decodeOptions = {
    framing: options.framing,
    onError: options.onError,
    skip: job.skip,
    limit: job.limit,
    start: job.start,
  };
  const text: TextDecoder =
    options.table === undefined
      ? new JsonLinesDecoder(decoder, decodeOptions)
      : csvDecoder(decoder, options.table, decodeOptions);
  try {
    const into = job.output === undefined ? undefined : Buffer.from(job.output);
    const batch = text.push(new Uint8Array(job.input, 0, job.length), into);
    const errors = batch.errors.map((e) => e.toJSON() as PlainError);
    let fault: PlainError | undefined;
    try {
      text.end();
    } catch (e) {
      // a broken header or a partial record after these lines: they are written first, as on one thread
      if (!(e instanceof DatasetError)) throw e;
      fault = e.toJSON() as PlainError;
    }
    const output = batch.lines.buffer as ArrayBuffer;
    const done = { ok: true as const, input: job.input, output, length: batch.lines.length, rows: batch.count, errors };
    return fault === undefined ? done : { ...done, fault };
  } catch (e) {
    if (e instanceof DatasetError) return { ok: false, error: e.toJSON() as PlainError };
    return { ok: false, message: (e as Error).message, stack: (e as Error).stack };
  }
}
