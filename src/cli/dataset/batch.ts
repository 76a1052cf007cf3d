/**
 * One batch of whole records decoded to JSON Lines, the same way in a worker thread and in the thread that reads
 * the file: a `JsonLinesDecoder` per batch, so a record decodes, fails or is skipped exactly as on one thread.
 */
import type { CompileArgs } from '@corebridge/records/cli';
import {
  DatasetError,
  JsonLinesDecoder,
  type FramingOptions,
  type JsonTextDecoder,
  type OnError,
} from '@corebridge/records/dataset';

/** What a worker needs to decode like the reading thread would: the copybook and how to compile it, and the options. */
export interface WorkerSetup {
  file: string;
  compile: CompileArgs;
  /** `--keep-bytes`: each line carries the bytes its fields do not say. */
  keepBytes: boolean;
  framing: FramingOptions;
  onError: OnError;
}

/**
 * A batch: whole records (or blocks) at the start of `input`, where they start in the file, what to skip or stop
 * at, and a buffer to write the JSON Lines into. Both buffers come back with the answer, to be lent again.
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
      /** The JSON Lines, from its first byte. */
      output: ArrayBuffer;
      length: number;
      rows: number;
      errors: PlainError[];
      /** A broken record header or a partial record after the lines: reported once they are written. */
      fault?: PlainError;
    }
  | { ok: false; error: PlainError }
  | { ok: false; message: string; stack?: string | undefined };

/** Decodes `job` with `decoder`; every outcome, errors too, is an answer that can cross to another thread. */
export function decodeBatch(
  job: Job,
  decoder: JsonTextDecoder,
  options: { framing: FramingOptions; onError: OnError },
): JobResult {
  const lines = new JsonLinesDecoder(decoder, {
    framing: options.framing,
    onError: options.onError,
    skip: job.skip,
    limit: job.limit,
    start: job.start,
  });
  try {
    const into = job.output === undefined ? undefined : Buffer.from(job.output);
    const batch = lines.push(new Uint8Array(job.input, 0, job.length), into);
    const errors = batch.errors.map((e) => e.toJSON() as PlainError);
    let fault: PlainError | undefined;
    try {
      lines.end();
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
