import { decodeRawRecord, recordError, type DecodeOptions, type RecordDecoder } from './decode.ts';
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
  const { framing } = options;
  const onError = options.onError ?? 'fail';
  const reader = new RecordReader(framing, options.start);
  const variable = isVariable(framing.recfm);
  const headerLength = variable ? 4 : 0;
  // an F slot longer than a fixed layout is read by its first bytes; OCCURS DEPENDING ON in an F slot takes the
  // decoder's own trailing-bytes rule, off the fast path
  const fixedLayout = decoder.minLength === decoder.maxLength;
  const prefix = !variable && fixedLayout ? decoder.maxLength : Infinity;
  const fast = decoder.decodeJson !== undefined && decoder.jsonMaxLength !== undefined && (variable || fixedLayout);
  // room for one more line: a record's JSON at its longest (for decodeJson), `null`, the newline
  const room = (fast ? decoder.jsonMaxLength! : 0) + 8;
  const slabSize = Math.max(SLAB, room * 4);
  let slab = Buffer.allocUnsafe(slabSize);
  let p = 0;
  let start = 0;
  /** Makes room for `n` bytes at `p`: a new slab, the lines of this chunk so far carried over. */
  const reserve = (n: number): void => {
    if (slab.length - p >= n) return;
    const next = Buffer.allocUnsafe(Math.max(slabSize, (p - start) * 2 + n));
    slab.copy(next, 0, start, p);
    p -= start;
    start = 0;
    slab = next;
  };
  let toSkip = options.skip ?? 0;
  let left = options.limit ?? Infinity;
  if (left <= 0) return;
  for await (const chunk of source) {
    const records = reader.push(chunk);
    p = 0;
    start = 0;
    let count = 0;
    const errors: DatasetError[] = [];
    for (const record of records) {
      if (toSkip > 0) {
        toSkip--;
        continue;
      }
      const bytes = record.bytes.length > prefix ? record.bytes.subarray(0, prefix) : record.bytes;
      reserve(room);
      try {
        if (fast) {
          p = decoder.decodeJson!(bytes, slab, p);
        } else {
          const line = JSON.stringify(decodeRawRecord(decoder, record, variable));
          reserve(Buffer.byteLength(line) + 1);
          p += slab.write(line, p, 'utf8');
        }
        slab[p++] = 0x0a;
        count++;
      } catch (e) {
        const error = recordError(record, e, headerLength);
        if (onError === 'fail') throw error;
        errors.push(error);
        if (onError === 'null') {
          p += slab.write('null\n', p, 'latin1');
          count++;
        }
      }
      if (--left === 0) break;
    }
    if (count > 0 || errors.length > 0) yield { lines: slab.subarray(start, p), count, errors };
    if (left === 0) return;
  }
  reader.end();
}
