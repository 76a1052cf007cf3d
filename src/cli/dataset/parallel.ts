/**
 * Decode to JSON Lines or CSV in several threads: this one and `threads - 1` workers. This thread reads the file
 * and cuts it into batches of whole records (whole blocks for VB) by following the record headers, which is
 * cheap. A batch goes to a worker that has fewer than `IN_FLIGHT` out, else this thread decodes it itself, so no
 * core waits for another while there is work; until a worker has compiled the layout, this thread decodes
 * everything. Answers are taken in the file's order; at most a few batches per thread are out at once, so memory
 * stays flat whatever the file's size, and a slow output slows the reading.
 */
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import {
  bdwLength,
  blockRecords,
  DatasetError,
  filePart,
  isVariable,
  parseSplit,
  rdwLength,
  type CsvTable,
  type FramingOptions,
  type JsonTextDecoder,
} from '@corebridge/records/dataset';
import { UsageError } from '../usage.ts';
import { decodeBatch, type Job, type JobResult, type PlainError, type WorkerSetup } from './batch.ts';

export interface DecodedText {
  /** The batch's JSON Lines or CSV rows, UTF-8; valid until the next batch is asked for. */
  text: Uint8Array;
  /** Lines in `text`. */
  rows: number;
  /** The bad records of the batch (`--on-error skip|null`), in order. */
  errors: DatasetError[];
}

export interface ParallelOptions extends WorkerSetup {
  /** Threads that decode, this one included: `threads - 1` workers. */
  threads: number;
  /** This thread's decoder (the layout the workers compile again), for the batches it decodes itself. */
  decoder: JsonTextDecoder;
  /** Its CSV columns, when `format` is `csv`. */
  table?: CsvTable | undefined;
  /** false: this thread only reads, cuts and writes; every batch goes to a worker. */
  decodeHere?: boolean | undefined;
  skip?: number | undefined;
  limit?: number | undefined;
  start?: { number: number; offset: number } | undefined;
  /** About how many bytes a batch holds. */
  batchBytes?: number | undefined;
  /** A file to read in place of `source`, straight into the batches' buffers. */
  input?: FileRange | undefined;
  /** Told the bytes of each read, for progress. */
  onRead?: ((bytes: number) => void) | undefined;
}

/** Bytes `start` to `end` (exclusive) of the file at `path`. */
export interface FileRange {
  path: string;
  start: number;
  end: number;
}

const IN_FLIGHT = 2;
/** Batches out (or done and waiting for an earlier one) per thread, before this thread waits for the first. */
const QUEUED = 4;
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
  /** Whether the worker has compiled the layout: until then its batches would wait. */
  ready = false;

  constructor(setup: WorkerSetup) {
    this.#worker = new Worker(new URL('./worker.ts', import.meta.url), {
      workerData: setup,
      // V8's default young generation lets each worker's heap grow to hundreds of MB on garbage alone; a batch
      // needs a few MB, so this keeps the process near the memory of an in-process decode; CSV makes an
      // object a record, which a young generation this small would collect several times a batch
      resourceLimits: { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: setup.format === 'csv' ? 48 : 16 },
    });
    this.#worker.on('message', (result: JobResult | 'ready') => {
      if (result === 'ready') this.ready = true;
      else this.#waiting.shift()?.resolve(result);
    });
    this.#worker.on('error', (e) => this.#fail(e));
    this.#worker.on('exit', (code) => this.#fail(new Error(`a decode worker stopped (exit code ${code})`)));
  }

  /** Batches sent and not answered yet. */
  get pending(): number {
    return this.#waiting.length;
  }

  run(job: Job): Promise<JobResult> {
    if (this.#failed !== undefined) return Promise.reject(this.#failed);
    const answer = new Promise<JobResult>((resolve, reject) => this.#waiting.push({ resolve, reject }));
    this.#worker.postMessage(job, job.output === undefined ? [job.input] : [job.input, job.output]);
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
 * blocks (VB) or records (F). `broken` when a header is one the reader would refuse: the batch holding it is then
 * decoded as it is, and its reader reports it exactly as a single thread would.
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

/**
 * Buffers lent to the workers and given back with their answers, so that a steady decode allocates none: fresh
 * megabyte buffers per batch would wake the collector in every thread long before memory is short.
 */
class Pool {
  readonly #free: ArrayBuffer[] = [];

  /** A free buffer of at least `size` bytes, or a new one. */
  take(size: number): Uint8Array {
    const i = this.#free.findIndex((b) => b.byteLength >= size);
    return new Uint8Array(i < 0 ? new ArrayBuffer(size) : this.#free.splice(i, 1)[0]!);
  }

  /** The free buffer to write into, if any (the worker makes one when not). */
  any(): ArrayBuffer | undefined {
    return this.#free.pop();
  }

  give(buffer: ArrayBuffer): void {
    this.#free.push(buffer);
  }
}

/** Reads into a buffer from `at` to its end, or less; 0 at the end of the input. */
interface Fill {
  read(buf: Uint8Array, at: number): Promise<number>;
  close(): Promise<void>;
}

/** The chunks of a stream, copied into the buffers given. */
function streamFill(source: AsyncIterable<Uint8Array>): Fill {
  const chunks = source[Symbol.asyncIterator]();
  let chunk: Uint8Array = new Uint8Array(0);
  let taken = 0;
  return {
    async read(buf, at) {
      while (taken === chunk.length) {
        const next = await chunks.next();
        if (next.done === true) return 0;
        chunk = next.value;
        taken = 0;
      }
      const n = Math.min(buf.length - at, chunk.length - taken);
      buf.set(chunk.subarray(taken, taken + n), at);
      taken += n;
      return n;
    },
    async close() {
      await chunks.return?.();
    },
  };
}

/** A byte range of a file read straight into the buffers given: no chunk of its own to allocate and copy. */
async function fileFill(file: FileRange): Promise<Fill> {
  const handle = await open(file.path, 'r');
  let position = file.start;
  return {
    async read(buf, at) {
      const length = Math.min(buf.length - at, file.end - position);
      if (length <= 0) return 0;
      const { bytesRead } = await handle.read(buf, at, length, position);
      position += bytesRead;
      return bytesRead;
    },
    close: () => handle.close(),
  };
}

/**
 * Decodes `source` (the file from `options.start`, or from its first byte) to text in `options.threads`
 * threads, one result per batch, in the file's order. Errors are those of `decodeDataset` on one thread: the
 * first bad record stops it under `fail`, framing errors always do, after the lines of the records before them.
 */
export async function* decodeInThreads(
  source: AsyncIterable<Uint8Array>,
  options: ParallelOptions,
): AsyncGenerator<DecodedText, void, undefined> {
  const { file, args, keepBytes, format, framing, onError } = options;
  const decodeHere = options.decodeHere ?? true;
  const batchBytes = options.batchBytes ?? BATCH_BYTES;
  const setup: WorkerSetup = { file, args, keepBytes, format, framing, onError };
  const here = { framing, onError, table: options.table };
  const count = decodeHere ? options.threads - 1 : options.threads;
  const workers = Array.from({ length: count }, () => new Decoder(setup));
  const inputs = new Pool();
  const outputs = new Pool();
  const queue: Array<{ answer: Promise<JobResult>; broken: boolean; done: boolean }> = [];
  let toSkip = options.skip ?? 0;
  let left = options.limit ?? Infinity;
  let number = options.start?.number ?? 1;
  let offset = options.start?.offset ?? 0;

  /** The worker with the fewest batches out, if it can take one more now. */
  const free = (): Decoder | undefined => {
    let best: Decoder | undefined;
    for (const w of workers) {
      if ((w.ready || !decodeHere) && w.pending < IN_FLIGHT && (best === undefined || w.pending < best.pending)) {
        best = w;
      }
    }
    return best;
  };
  /** Whether this thread must wait for the first answer before it reads on. */
  const full = (): boolean => queue.length >= QUEUED * options.threads || (!decodeHere && free() === undefined);

  /**
   * Decodes the first `length` bytes of `buf`, `records` records, in a worker or here. `whole`: the batch must be
   * decoded even if all its records are skipped (it ends in a fault to report).
   */
  const send = (buf: Uint8Array, length: number, records: number, whole: boolean, broken: boolean): void => {
    const skip = Math.min(toSkip, records);
    toSkip -= skip;
    if (skip === records && !whole) {
      inputs.give(buf.buffer as ArrayBuffer);
      return;
    }
    const limit = left === Infinity ? undefined : left;
    left -= records - skip;
    const job: Job = {
      input: buf.buffer as ArrayBuffer,
      length,
      output: outputs.any(),
      start: { number, offset },
      skip,
      limit,
    };
    const worker = free();
    const answer = worker === undefined ? Promise.resolve(decodeBatch(job, options.decoder, here)) : worker.run(job);
    const entry = { answer, broken, done: false };
    // answered in order below; until then a rejection is not unhandled
    answer.then(
      () => (entry.done = true),
      () => (entry.done = true),
    );
    queue.push(entry);
  };

  /** The next batch's lines, or the error that ends the decode; its buffers go back to the pools once used. */
  async function* take(): AsyncGenerator<DecodedText, void, undefined> {
    const { answer, broken } = queue.shift()!;
    const result = await answer;
    if (!result.ok) {
      if ('error' in result) throw datasetError(result.error);
      const e = new Error(result.message);
      if (result.stack !== undefined) e.stack = result.stack;
      throw e;
    }
    inputs.give(result.input);
    if (broken && result.fault === undefined) {
      throw new Error('a record header that the reader accepted was taken for a broken one');
    }
    if (result.rows > 0 || result.errors.length > 0) {
      const text = new Uint8Array(result.output, 0, result.length);
      yield { text, rows: result.rows, errors: result.errors.map(datasetError) };
    }
    // the consumer asked for the next batch: it is done with this one's bytes
    outputs.give(result.output);
    if (result.fault !== undefined) throw datasetError(result.fault);
  }

  try {
    if (left <= 0) return;
    const fill = options.input === undefined ? streamFill(source) : await fileFill(options.input);
    try {
      let buf = inputs.take(batchBytes);
      let used = 0;
      for (;;) {
        const n = await fill.read(buf, used);
        if (n === 0) break;
        used += n;
        options.onRead?.(n);
        if (used < buf.length) continue;
        const cut = walk(buf.subarray(0, used), offset, offset, framing);
        const length = cut.broken ? used : cut.next - offset;
        // a record or block longer than the buffer: a larger one, until it holds it
        const next = inputs.take(length === 0 ? buf.length * 2 : Math.max(batchBytes, used - length));
        next.set(buf.subarray(length, used));
        if (length === 0) {
          inputs.give(buf.buffer as ArrayBuffer);
        } else {
          send(buf, length, cut.records, cut.broken, cut.broken);
          number += cut.records;
          offset += length;
        }
        buf = next;
        used -= length;
        const stopped = cut.broken || left <= 0;
        // answers already in are written at once; the first is waited for only when too many are out
        while (queue.length > 0 && (queue[0]!.done || stopped || full())) yield* take();
        if (stopped) return;
      }
      if (used > 0) {
        // the last records, and any partial one at the end, which the worker's reader reports
        const cut = walk(buf.subarray(0, used), offset, offset, framing);
        send(buf, used, cut.records, true, false);
      }
    } finally {
      await fill.close();
    }
    while (queue.length > 0) yield* take();
  } finally {
    await Promise.all(workers.map((w) => w.stop()));
  }
}

/** Below this many bytes, starting workers (each loads the codec, compiles the copybook) costs more than they save. */
const THREADS_FROM_BYTES = 32 << 20;

/**
 * `--threads N`: N threads decode, this one and N-1 workers. Left out: one per core for a file of at least
 * `THREADS_FROM_BYTES`, else this one alone (also for standard input, whose size is not known).
 */
export function threadsFrom(text: string | undefined, size: number | undefined): number {
  if (text === undefined) return size !== undefined && size >= THREADS_FROM_BYTES ? availableParallelism() : 1;
  if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > 256) {
    throw new UsageError(`--threads must be a whole number from 1 to 256 (got "${text}")`);
  }
  return Number(text);
}

/** An empty source. */
export async function* noBytes(): AsyncGenerator<Uint8Array> {}

/** `--split k/n`: the bytes of part k of the file, and the number of their first record. */
export async function openPart(
  input: string | undefined,
  split: string | undefined,
  framing: FramingOptions,
): Promise<{ file: FileRange; number: number } | undefined> {
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
  return { file: { path: input, start: part.start, end: part.end }, number: part.number };
}

/** A stream of the bytes of `file`, in chunks of `chunk` bytes. */
export function readRange(file: FileRange, chunk: number): AsyncIterable<Uint8Array> {
  if (file.end <= file.start) return noBytes();
  return createReadStream(file.path, { start: file.start, end: file.end - 1, highWaterMark: chunk });
}
