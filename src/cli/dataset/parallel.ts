/**
 * Decode to JSON Lines in worker threads. This thread only reads the file and cuts it into batches of whole
 * records (whole blocks for VB) by following the record headers, which is cheap; each worker compiles the same
 * copybook, decodes its batches with `decodeDataset` and sends back their JSON Lines as bytes. Batches go round
 * robin and come back in order; at most `IN_FLIGHT` per worker are out at once, so memory stays a few batches
 * whatever the file's size, and a slow output slows the reading.
 */
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { Worker } from 'node:worker_threads';
import type { CompileArgs } from '@corebridge/records/cli';
import {
  bdwLength,
  blockRecords,
  DatasetError,
  filePart,
  isVariable,
  parseSplit,
  rdwLength,
  type FramingOptions,
  type OnError,
} from '@corebridge/records/dataset';
import { UsageError } from '../usage.ts';

/** What a worker needs to decode like this thread would: the copybook and how to compile it, and the options. */
export interface WorkerSetup {
  file: string;
  compile: CompileArgs;
  framing: FramingOptions;
  onError: OnError;
}

/** A batch: the bytes of whole records (or blocks), where they start in the file, and what to skip or stop at. */
export interface Job {
  buffer: ArrayBuffer;
  length: number;
  start: { number: number; offset: number };
  skip: number;
  limit: number | undefined;
}

export type PlainError = { record: number; offset: number; field?: string; reason: string };

export type JobResult =
  | { ok: true; text: Uint8Array; rows: number; errors: PlainError[] }
  | { ok: false; error: PlainError }
  | { ok: false; message: string; stack?: string | undefined };

export interface DecodedText {
  /** The batch's JSON Lines, UTF-8. */
  text: Uint8Array;
  /** Lines in `text`. */
  rows: number;
  /** The bad records of the batch (`--on-error skip|null`), in order. */
  errors: DatasetError[];
}

export interface ParallelOptions extends WorkerSetup {
  threads: number;
  skip?: number | undefined;
  limit?: number | undefined;
  start?: { number: number; offset: number } | undefined;
  /** About how many bytes a batch holds. */
  batchBytes?: number | undefined;
}

const IN_FLIGHT = 2;
const BATCH_BYTES = 1 << 20;
const HEADER = 4;

function datasetError(e: PlainError): DatasetError {
  return new DatasetError({ record: e.record, offset: e.offset, field: e.field }, e.reason);
}

/** One worker and the answers it owes, first asked first answered. */
class Decoder {
  readonly #worker: Worker;
  readonly #waiting: Array<{ resolve: (r: JobResult) => void; reject: (e: unknown) => void }> = [];
  #failed: unknown;

  constructor(setup: WorkerSetup) {
    this.#worker = new Worker(new URL('./worker.ts', import.meta.url), {
      workerData: setup,
      // V8's default young generation lets each worker's heap grow to hundreds of MB on garbage alone; a batch
      // needs a few MB, so this keeps the process near the memory of an in-process decode
      resourceLimits: { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 48 },
    });
    this.#worker.on('message', (result: JobResult) => this.#waiting.shift()?.resolve(result));
    this.#worker.on('error', (e) => this.#fail(e));
    this.#worker.on('exit', (code) => this.#fail(new Error(`a decode worker stopped (exit code ${code})`)));
  }

  run(job: Job): Promise<JobResult> {
    if (this.#failed !== undefined) return Promise.reject(this.#failed);
    const answer = new Promise<JobResult>((resolve, reject) => this.#waiting.push({ resolve, reject }));
    this.#worker.postMessage(job, [job.buffer]);
    return answer;
  }

  async stop(): Promise<void> {
    this.#failed ??= new Error('stopped');
    await this.#worker.terminate();
  }

  #fail(e: unknown): void {
    this.#failed ??= e;
    for (const w of this.#waiting.splice(0)) w.reject(e);
  }
}

/**
 * Follows the headers through `buf` (which starts at file offset `base`) from `next`, over whole records (V),
 * blocks (VB) or records (F). `broken` when a header is one the reader would refuse: the batch holding it then
 * goes to a worker as it is, whose reader reports it exactly as a single thread would.
 */
function walk(
  buf: Uint8Array,
  base: number,
  next: number,
  framing: FramingOptions,
): { next: number; records: number; broken: boolean } {
  const end = base + buf.length;
  if (!isVariable(framing.recfm)) {
    const lrecl = framing.lrecl!;
    const records = Math.floor((end - next) / lrecl);
    return { next: next + records * lrecl, records, broken: false };
  }
  let records = 0;
  while (end - next >= HEADER) {
    const at = next - base;
    const blocked = framing.recfm === 'VB';
    const length = blocked ? bdwLength(buf, at, framing) : rdwLength(buf, at, framing);
    if (length === 0) return { next, records, broken: true };
    if (end - next < length) break;
    if (blocked) {
      const count = blockRecords(buf, at, length, framing);
      if (count < 0) return { next, records, broken: true };
      records += count;
    } else {
      records++;
    }
    next += length;
  }
  return { next, records, broken: false };
}

function concat(parts: Uint8Array[], total: number): Uint8Array {
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/**
 * Decodes `source` (the file from `options.start`, or from its first byte) to JSON Lines in `options.threads`
 * workers, one result per batch, in the file's order. Errors are those of `decodeDataset` on one thread: the
 * first bad record stops it under `fail`, framing errors always do.
 */
export async function* decodeInWorkers(
  source: AsyncIterable<Uint8Array>,
  options: ParallelOptions,
): AsyncGenerator<DecodedText, void, undefined> {
  const { file, compile, framing, onError } = options;
  const batchBytes = options.batchBytes ?? BATCH_BYTES;
  const decoders = Array.from({ length: options.threads }, () => new Decoder({ file, compile, framing, onError }));
  const queue: Array<{ answer: Promise<JobResult>; broken: boolean }> = [];
  let turn = 0;
  let toSkip = options.skip ?? 0;
  let left = options.limit ?? Infinity;
  let number = options.start?.number ?? 1;
  let offset = options.start?.offset ?? 0;
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;

  /** `whole`: the batch must reach a worker even if all its records are skipped (it ends in a fault to report). */
  const send = (buf: Uint8Array, records: number, whole: boolean, broken: boolean): void => {
    const skip = Math.min(toSkip, records);
    toSkip -= skip;
    if (skip === records && !whole) return;
    const limit = left === Infinity ? undefined : left;
    left -= records - skip;
    const job: Job = { buffer: buf.buffer as ArrayBuffer, length: buf.length, start: { number, offset }, skip, limit };
    const answer = decoders[turn++ % decoders.length]!.run(job);
    // answered in order below; until then a rejection is not unhandled
    answer.catch(() => {});
    queue.push({ answer, broken });
  };

  async function take(): Promise<DecodedText> {
    const { answer, broken } = queue.shift()!;
    const result = await answer;
    if (!result.ok) {
      if ('error' in result) throw datasetError(result.error);
      const e = new Error(result.message);
      if (result.stack !== undefined) e.stack = result.stack;
      throw e;
    }
    if (broken) throw new Error('a record header that the reader accepted was taken for a broken one');
    return { text: result.text, rows: result.rows, errors: result.errors.map(datasetError) };
  }

  try {
    if (left <= 0) return;
    let stopped = false;
    for await (const chunk of source) {
      pending.push(chunk);
      pendingBytes += chunk.length;
      if (pendingBytes < batchBytes) continue;
      // a buffer of its own, so that the batch can be handed over without copying it again
      const buf = concat(pending, pendingBytes);
      const cut = walk(buf, offset, offset, framing);
      const used = cut.broken ? buf.length : cut.next - offset;
      const rest = buf.slice(used);
      if (used > 0) send(buf.subarray(0, used), cut.records, cut.broken, cut.broken);
      number += cut.records;
      offset += used;
      pending = rest.length > 0 ? [rest] : [];
      pendingBytes = rest.length;
      stopped = cut.broken || left <= 0;
      while (queue.length >= IN_FLIGHT * decoders.length || (stopped && queue.length > 0)) yield await take();
      if (stopped) return;
    }
    if (pendingBytes > 0) {
      // the last records, and any partial one at the end, which the worker's reader reports
      const buf = concat(pending, pendingBytes);
      const cut = walk(buf, offset, offset, framing);
      send(buf, cut.records, true, false);
    }
    while (queue.length > 0) yield await take();
  } finally {
    await Promise.all(decoders.map((d) => d.stop()));
  }
}

/**
 * `--threads N`: N workers, or in-process for 1, the default, as workers beside the reading thread have cost
 * more CPU and memory than they saved (bench/README.md).
 */
export function threadsFrom(text: string | undefined): number {
  if (text === undefined) return 1;
  if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > 256) {
    throw new UsageError(`--threads must be a whole number from 1 to 256 (got "${text}")`);
  }
  return Number(text);
}

/** An empty source. */
export async function* noBytes(): AsyncGenerator<Uint8Array> {}

/** `--split k/n`: the bytes of part k of the file, where they start, and the number of their first record. */
export async function openPart(
  input: string | undefined,
  split: string | undefined,
  framing: FramingOptions,
): Promise<{ source: AsyncIterable<Uint8Array>; size: number; start: { number: number; offset: number } } | undefined> {
  if (split === undefined) return undefined;
  const kn = parseSplit(split);
  if (kn === undefined) throw new UsageError(`--split must be k/n with 1 ≤ k ≤ n (got "${split}")`);
  if (input === undefined || input === '-') {
    throw new UsageError('--split needs --input FILE: a part is a byte range of a file');
  }
  let handle;
  try {
    handle = await open(input, 'r');
  } catch (e) {
    const reason = (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message;
    throw new UsageError(`cannot read ${input}: ${reason}`, 1);
  }
  let part;
  try {
    const { size } = await handle.stat();
    const readAt = async (position: number, length: number): Promise<Uint8Array> => {
      const buf = new Uint8Array(length);
      const { bytesRead } = await handle.read(buf, 0, length, position);
      return buf.subarray(0, bytesRead);
    };
    part = await filePart(readAt, size, framing, kn.k, kn.n);
  } finally {
    await handle.close();
  }
  const source =
    part.end > part.start
      ? createReadStream(input, { start: part.start, end: part.end - 1, highWaterMark: 1 << 20 })
      : noBytes();
  return { source, size: part.end - part.start, start: { number: part.number, offset: part.start } };
}
