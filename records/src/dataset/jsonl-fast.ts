import { decodeRawRecord, recordError, type DecodeOptions, type OnError, type RecordDecoder } from './decode.ts';
import type { DatasetError } from './errors.ts';
import { isVariable, RecordReader } from './framing.ts';

/**
 * A decoder that can write a record's JSON text itself (a compiled layout's `decodeJson`); without it, each
 * record is `JSON.stringify(decode(bytes))`.
 */
export interface JsonTextDecoder extends RecordDecoder {
  decodeJson?(bytes: Uint8Array, out: Buffer, at: number): number;
  readonly jsonMaxLength?: number;
}

/** The JSON Lines of one chunk's records. */
export interface JsonLinesBatch {
  /** One line a record, each ending in `\n` (with `onError: 'null'`, a bad record's line is `null`). */
  lines: Buffer;
  /** How many lines `lines` holds. */
  count: number;
  /** The bad records of the chunk, in order (`onError` `skip` or `null`). */
  errors: DatasetError[];
}

/** Bytes written into one slab before the next is taken; the batches handed out are views into slabs. */
const SLAB = 1 << 22;

/**
 * The synchronous core of `decodeDatasetJsonLines`: records in, JSON Lines written into a buffer the caller may
 * lend (a worker thread writes into buffers that travel back and forth, so nothing is allocated per batch).
 */
export class JsonLinesDecoder {
  readonly #decoder: JsonTextDecoder;
  readonly #reader: RecordReader;
  readonly #onError: OnError;
  readonly #variable: boolean;
  readonly #headerLength: number;
  readonly #prefix: number;
  readonly #fast: boolean;
  readonly #room: number;
  #slab: Buffer;
  #toSkip: number;
  #left: number;

  constructor(decoder: JsonTextDecoder, options: DecodeOptions) {
    const { framing } = options;
    this.#decoder = decoder;
    this.#onError = options.onError ?? 'fail';
    this.#reader = new RecordReader(framing, options.start);
    this.#variable = isVariable(framing.recfm);
    this.#headerLength = this.#variable ? 4 : 0;
    // an F slot longer than a fixed layout is read by its first bytes; OCCURS DEPENDING ON in an F slot takes the
    // decoder's own trailing-bytes rule, off the fast path
    const fixedLayout = decoder.minLength === decoder.maxLength;
    this.#prefix = !this.#variable && fixedLayout ? decoder.maxLength : Infinity;
    this.#fast =
      decoder.decodeJson !== undefined && decoder.jsonMaxLength !== undefined && (this.#variable || fixedLayout);
    // room for one more line: a record's JSON at its longest (for decodeJson), `null`, the newline
    this.#room = (this.#fast ? decoder.jsonMaxLength! : 0) + 8;
    this.#slab = Buffer.alloc(0);
    this.#toSkip = options.skip ?? 0;
    this.#left = options.limit ?? Infinity;
  }

  /** Whether the limit is reached: nothing more will be decoded. */
  get done(): boolean {
    return this.#left <= 0;
  }

  /** The smallest buffer worth lending to `push`. */
  get slabSize(): number {
    return Math.max(SLAB, this.#room * 4);
  }

  /**
   * The lines of the records that `chunk` completes, written from the start of `into` (or of the buffer used
   * last). A buffer too small is replaced by a larger one, which is then the one used next: `lines` is a view of
   * whichever holds them, from its first byte.
   */
  push(chunk: Uint8Array, into?: Buffer): JsonLinesBatch {
    if (into !== undefined) this.#slab = into;
    const errors: DatasetError[] = [];
    if (this.#left <= 0) return { lines: this.#slab.subarray(0, 0), count: 0, errors };
    const decoder = this.#decoder;
    const room = this.#room;
    let slab = this.#slab;
    let p = 0;
    let count = 0;
    for (const record of this.#reader.push(chunk)) {
      if (this.#toSkip > 0) {
        this.#toSkip--;
        continue;
      }
      const bytes = record.bytes.length > this.#prefix ? record.bytes.subarray(0, this.#prefix) : record.bytes;
      if (slab.length - p < room) slab = this.#grow(slab, p, room);
      try {
        if (this.#fast) {
          p = decoder.decodeJson!(bytes, slab, p);
        } else {
          const line = JSON.stringify(decodeRawRecord(decoder, record, this.#variable));
          const n = Buffer.byteLength(line) + 1;
          if (slab.length - p < n) slab = this.#grow(slab, p, n);
          p += slab.write(line, p, 'utf8');
        }
        slab[p++] = 0x0a;
        count++;
      } catch (e) {
        const error = recordError(record, e, this.#headerLength);
        if (this.#onError === 'fail') throw error;
        errors.push(error);
        if (this.#onError === 'null') {
          p += slab.write('null\n', p, 'latin1');
          count++;
        }
      }
      if (--this.#left === 0) break;
    }
    return { lines: slab.subarray(0, p), count, errors };
  }

  /** Ends the input: a partial record left over is an error (see `RecordReader.end`). */
  end(): void {
    if (this.#left > 0) this.#reader.end();
  }

  /** A larger buffer holding the `used` bytes written so far, with room for `n` more. */
  #grow(slab: Buffer, used: number, n: number): Buffer {
    const next = Buffer.allocUnsafeSlow(Math.max(this.slabSize, used * 2 + n));
    slab.copy(next, 0, 0, used);
    this.#slab = next;
    return next;
  }
}

/**
 * `decodeDataset` written straight to JSON Lines: one batch of lines per chunk of the source, the same records,
 * `skip`, `limit` and `onError` (`fail` throws the first bad record's error; `skip` leaves it out, `null` writes
 * `null`; both report it in `errors`). Each line is the bytes of `JSON.stringify(decoder.decode(bytes))`.
 * A batch's bytes are valid until the next batch is asked for, as the next is written over them: write them, and
 * wait for the write, first (or copy them). Reusing one buffer keeps memory flat: fresh buffers per chunk would
 * pile up until the collector noticed them.
 */
export async function* decodeDatasetJsonLines(
  source: AsyncIterable<Uint8Array>,
  decoder: JsonTextDecoder,
  options: DecodeOptions,
): AsyncGenerator<JsonLinesBatch, void, undefined> {
  const lines = new JsonLinesDecoder(decoder, options);
  if (lines.done) return;
  let first: Buffer | undefined = Buffer.allocUnsafeSlow(lines.slabSize);
  for await (const chunk of source) {
    const batch = lines.push(chunk, first);
    first = undefined;
    if (batch.count > 0 || batch.errors.length > 0) yield batch;
    if (lines.done) return;
  }
  lines.end();
}
