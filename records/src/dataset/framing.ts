/**
 * Record formats of mainframe data sets, as they arrive in a file transferred in binary with its headers kept:
 * `F`/`FB` records of one length back to back (blocking leaves no trace in such a file); `V` records each after a
 * 4-byte record descriptor word (RDW: the length including the RDW, then two zero bytes); `VB` blocks each after a
 * 4-byte block descriptor word (BDW: the block's length including the BDW) holding RDW records.
 */
import { DatasetError } from './errors.ts';

export type RecordFormat = 'F' | 'FB' | 'V' | 'VB';
export const RECORD_FORMATS: readonly RecordFormat[] = ['F', 'FB', 'V', 'VB'];

export interface FramingOptions {
  recfm: RecordFormat;
  /**
   * As z/OS counts it: for `F`/`FB` the record length (default: the layout's); for `V`/`VB` the longest record
   * with its 4-byte RDW (default: none beyond what the 2-byte length can say).
   */
  lrecl?: number | undefined;
  /** `VB` writing: the longest block, BDW included (default 32760, the largest z/OS block on disk). */
  blksize?: number | undefined;
  /** Byte order of the RDW and BDW lengths: big-endian as z/OS writes them, or little as some tools do. */
  rdw?: 'big' | 'little' | undefined;
  /**
   * Added to an RDW's length to give the bytes from the RDW's start: 0 as z/OS counts (the RDW counts itself),
   * 4 for writers whose length is the data's alone (GnuCOBOL's variable sequential files, Cobrix's default).
   */
  rdwAdjust?: number | undefined;
}

/** One record of a file: its 1-based number, where it starts (its RDW for V/VB) and its bytes without headers. */
export interface RawRecord {
  number: number;
  offset: number;
  bytes: Uint8Array;
}

export const DEFAULT_BLKSIZE = 32760;
const HEADER = 4;
const MAX_SHORT_LENGTH = 0xffff;
/** The longest block a 2-byte BDW describes; z/OS's limit on disk is 32760. */
const MAX_SHORT_BLOCK = 0x7fff;
const EMPTY = new Uint8Array(0);

export function isVariable(recfm: RecordFormat): boolean {
  return recfm === 'V' || recfm === 'VB';
}

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

/**
 * Splits a byte stream into records. Memory stays one chunk plus one partial record, whatever the file's size;
 * records are views into the chunks, valid until the caller lets go of them.
 */
export class RecordReader {
  readonly #recfm: RecordFormat;
  readonly #lrecl: number | undefined;
  readonly #little: boolean;
  readonly #adjust: number;
  #rest: Uint8Array = EMPTY;
  /** A header that was not one: thrown once the records before it have been handed out. */
  #failed: DatasetError | undefined;
  #restOffset: number;
  #number: number;
  /** `VB`: the file offset where the current block ends, or -1 before the first block. */
  #blockEnd = -1;

  constructor(framing: FramingOptions, start: { number: number; offset: number } = { number: 1, offset: 0 }) {
    this.#recfm = framing.recfm;
    this.#lrecl = framing.lrecl;
    this.#little = framing.rdw === 'little';
    this.#adjust = framing.rdwAdjust ?? 0;
    this.#number = start.number;
    this.#restOffset = start.offset;
    if (!isVariable(this.#recfm) && !(Number.isInteger(this.#lrecl) && this.#lrecl! > 0)) {
      throw new RangeError(`record format ${this.#recfm} needs a record length (lrecl) of at least 1`);
    }
  }

  /** The file offset just past the last byte pushed. */
  get offset(): number {
    return this.#restOffset + this.#rest.length;
  }

  /**
   * The records that the bytes so far complete. A bad header ends the file: the records before it still come,
   * and the error is thrown by the next `push` or `end`, so what comes out never depends on how the bytes were cut.
   */
  push(chunk: Uint8Array): RawRecord[] {
    if (this.#failed) throw this.#failed;
    const buf = this.#rest.length === 0 ? chunk : concat(this.#rest, chunk);
    const base = this.#restOffset;
    const out: RawRecord[] = [];
    let pos: number;
    try {
      pos = isVariable(this.#recfm) ? this.#variable(buf, base, out) : this.#fixed(buf, base, out);
    } catch (e) {
      if (!(e instanceof DatasetError)) throw e;
      this.#failed = e;
      return out;
    }
    // a copy, so the caller's chunk is not kept alive (or changed under us) by a few trailing bytes
    this.#rest = pos === buf.length ? EMPTY : buf.slice(pos);
    this.#restOffset = base + pos;
    return out;
  }

  /** Ends the stream: a partial record or block left over is an error that says how much is missing. */
  end(): void {
    if (this.#failed) throw this.#failed;
    const left = this.#rest.length;
    const at = { record: this.#number, offset: this.#restOffset };
    if (this.#recfm === 'VB' && this.#blockEnd > this.#restOffset) {
      throw new DatasetError(
        at,
        `the file ends ${this.#blockEnd - this.#restOffset - left} bytes before the end of its block (its BDW says it ends at byte ${this.#blockEnd})`,
      );
    }
    if (left === 0) return;
    if (!isVariable(this.#recfm)) {
      throw new DatasetError(
        at,
        `the file ends ${left} bytes into a ${this.#lrecl}-byte record: its ${this.#restOffset + left} bytes are not a multiple of ${this.#lrecl}`,
      );
    }
    if (left < HEADER) throw new DatasetError(at, `the file ends inside a ${HEADER}-byte RDW (${left} bytes left)`);
    const length = this.#length(this.#rest, 0) + this.#adjust;
    throw new DatasetError(at, `the file ends inside the record: its RDW says ${length} bytes, ${left} are left`);
  }

  #fixed(buf: Uint8Array, base: number, out: RawRecord[]): number {
    const n = this.#lrecl!;
    let pos = 0;
    while (buf.length - pos >= n) {
      out.push({ number: this.#number++, offset: base + pos, bytes: buf.subarray(pos, pos + n) });
      pos += n;
    }
    return pos;
  }

  #variable(buf: Uint8Array, base: number, out: RawRecord[]): number {
    const blocked = this.#recfm === 'VB';
    let pos = 0;
    for (;;) {
      if (blocked && this.#blockEnd <= base + pos) {
        if (buf.length - pos < HEADER) return pos;
        this.#blockEnd = base + pos + this.#blockLength(buf, pos, base);
        pos += HEADER;
        continue;
      }
      if (buf.length - pos < HEADER) return pos;
      const length = this.#recordLength(buf, pos, base);
      if (blocked && base + pos + length > this.#blockEnd) {
        throw new DatasetError(
          { record: this.#number, offset: base + pos },
          `the record's RDW says ${length} bytes, past the end of its block at byte ${this.#blockEnd}`,
        );
      }
      if (buf.length - pos < length) return pos;
      out.push({ number: this.#number++, offset: base + pos, bytes: buf.subarray(pos + HEADER, pos + length) });
      pos += length;
    }
  }

  #length(buf: Uint8Array, pos: number): number {
    return this.#little ? buf[pos]! | (buf[pos + 1]! << 8) : (buf[pos]! << 8) | buf[pos + 1]!;
  }

  #recordLength(buf: Uint8Array, pos: number, base: number): number {
    const at = { record: this.#number, offset: base + pos };
    const word = hex(buf.subarray(pos, pos + HEADER));
    if (buf[pos + 2] !== 0 || buf[pos + 3] !== 0) {
      throw new DatasetError(at, `RDW x'${word}': its bytes 3 and 4 are not zero, so it is not a record header`);
    }
    const length = this.#length(buf, pos) + this.#adjust;
    if (length < HEADER) {
      throw new DatasetError(at, `RDW x'${word}' gives a length of ${length}, less than the RDW's own 4 bytes`);
    }
    if (this.#lrecl !== undefined && length > this.#lrecl) {
      throw new DatasetError(at, `RDW x'${word}' gives a length of ${length}, more than lrecl ${this.#lrecl}`);
    }
    return length;
  }

  #blockLength(buf: Uint8Array, pos: number, base: number): number {
    const at = { record: this.#number, offset: base + pos };
    const word = hex(buf.subarray(pos, pos + HEADER));
    let length: number;
    if (!this.#little && (buf[pos]! & 0x80) !== 0) {
      // the extended BDW of blocks over 32760 bytes: a 31-bit length in all four bytes
      length = ((buf[pos]! & 0x7f) << 24) | (buf[pos + 1]! << 16) | (buf[pos + 2]! << 8) | buf[pos + 3]!;
    } else {
      if (buf[pos + 2] !== 0 || buf[pos + 3] !== 0) {
        throw new DatasetError(at, `BDW x'${word}': its bytes 3 and 4 are not zero, so it is not a block header`);
      }
      length = this.#length(buf, pos);
    }
    if (length <= HEADER) {
      throw new DatasetError(at, `BDW x'${word}' gives a block of ${length} bytes, too short to hold a record`);
    }
    return length;
  }
}

/** Frames records for writing: call `write` per record, `take` for the bytes ready so far, `end` for the rest. */
export class RecordWriter {
  readonly #recfm: RecordFormat;
  readonly #lrecl: number | undefined;
  readonly #blksize: number;
  readonly #little: boolean;
  readonly #adjust: number;
  #out: Buffer = Buffer.allocUnsafe(1 << 16);
  #length = 0;
  /** `VB`: where the open block's BDW is in `#out`, or -1. */
  #blockStart = -1;
  #written = 0;
  #number = 1;

  constructor(framing: FramingOptions) {
    this.#recfm = framing.recfm;
    this.#lrecl = framing.lrecl;
    this.#blksize = framing.blksize ?? DEFAULT_BLKSIZE;
    this.#little = framing.rdw === 'little';
    this.#adjust = framing.rdwAdjust ?? 0;
    if (!isVariable(this.#recfm) && !(Number.isInteger(this.#lrecl) && this.#lrecl! > 0)) {
      throw new RangeError(`record format ${this.#recfm} needs a record length (lrecl) of at least 1`);
    }
    if (!Number.isSafeInteger(this.#adjust)) throw new RangeError(`rdwAdjust ${this.#adjust} is not a whole number`);
    if (this.#recfm === 'VB' && !(this.#blksize > 2 * HEADER && this.#blksize <= 0x7fffffff)) {
      throw new RangeError(`blksize ${this.#blksize} cannot hold a BDW, an RDW and a byte`);
    }
    // the extended BDW of longer blocks is z/OS's, big-endian; a little-endian file has none
    if (this.#recfm === 'VB' && this.#little && this.#blksize > MAX_SHORT_BLOCK) {
      throw new RangeError(`blksize ${this.#blksize}: little-endian blocks hold at most ${MAX_SHORT_BLOCK} bytes`);
    }
  }

  /** Appends one record. `F`/`FB`: a record shorter than lrecl is padded with binary zeros. */
  write(record: Uint8Array): void {
    const at = { record: this.#number, offset: this.#written + this.#length };
    const n = record.length;
    if (!isVariable(this.#recfm)) {
      const lrecl = this.#lrecl!;
      if (n > lrecl) throw new DatasetError(at, `the record is ${n} bytes, longer than lrecl ${lrecl}`);
      this.#reserve(lrecl);
      this.#out.set(record, this.#length);
      if (n < lrecl) this.#out.fill(0, this.#length + n, this.#length + lrecl);
      this.#length += lrecl;
    } else {
      const length = n + HEADER;
      const max = Math.min(this.#lrecl ?? Infinity, MAX_SHORT_LENGTH + this.#adjust);
      if (length > max) throw new DatasetError(at, `the record with its RDW is ${length} bytes, more than ${max}`);
      if (length - this.#adjust < 0) {
        throw new DatasetError(at, `the record with its RDW is ${length} bytes, less than rdwAdjust ${this.#adjust}`);
      }
      if (this.#recfm === 'VB') {
        if (length + HEADER > this.#blksize) {
          throw new DatasetError(
            at,
            `the record with its RDW is ${length} bytes: no ${this.#blksize}-byte block holds it`,
          );
        }
        if (this.#blockStart >= 0 && this.#length - this.#blockStart + length > this.#blksize) this.#closeBlock();
        if (this.#blockStart < 0) {
          this.#reserve(HEADER);
          this.#blockStart = this.#length;
          this.#length += HEADER;
        }
      }
      this.#reserve(length);
      this.#header(this.#length, length - this.#adjust);
      this.#out.set(record, this.#length + HEADER);
      this.#length += length;
    }
    this.#number++;
  }

  /** The bytes complete so far (for `VB`, whole blocks only); the caller owns them. */
  take(): Uint8Array {
    const ready = this.#blockStart >= 0 ? this.#blockStart : this.#length;
    if (ready === 0) return EMPTY;
    const bytes = Buffer.from(this.#out.subarray(0, ready));
    this.#out.copyWithin(0, ready, this.#length);
    this.#length -= ready;
    if (this.#blockStart >= 0) this.#blockStart -= ready;
    this.#written += ready;
    return bytes;
  }

  /** Closes the last block and gives every byte not taken yet. */
  end(): Uint8Array {
    if (this.#blockStart >= 0) this.#closeBlock();
    return this.take();
  }

  #closeBlock(): void {
    const length = this.#length - this.#blockStart;
    if (length > MAX_SHORT_BLOCK) {
      // the extended BDW: a 31-bit length with the high bit set
      this.#out.writeUInt32BE((0x80000000 | length) >>> 0, this.#blockStart);
    } else {
      this.#header(this.#blockStart, length);
    }
    this.#blockStart = -1;
  }

  #header(at: number, length: number): void {
    if (this.#little) this.#out.writeUInt16LE(length, at);
    else this.#out.writeUInt16BE(length, at);
    this.#out[at + 2] = 0;
    this.#out[at + 3] = 0;
  }

  #reserve(n: number): void {
    if (this.#length + n <= this.#out.length) return;
    const bigger = Buffer.allocUnsafe(Math.max(this.#out.length * 2, this.#length + n));
    this.#out.copy(bigger, 0, 0, this.#length);
    this.#out = bigger;
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}
