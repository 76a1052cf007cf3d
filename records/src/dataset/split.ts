/**
 * Parts of a file, so that n machines (or n workers) each convert one and the parts together are the whole file:
 * every record belongs to exactly one part.
 *
 * - `F`/`FB`: the records are divided evenly; a part's first record number is exact.
 * - `V`: a part owns every record whose RDW starts in its byte range. Its start is found by scanning from the
 *   range's first byte for a plausible RDW (bytes 3 and 4 zero, a length from 4 to lrecl) whose chain of following
 *   RDWs is plausible too, for `SYNC_DEPTH` records or up to the end of the file.
 * - `VB`: a part owns every block whose BDW starts in its byte range, found the same way: a plausible BDW whose
 *   block its RDWs fill exactly, and so on for `SYNC_DEPTH` blocks or to the end of the file.
 *
 * How sure that is: a false start needs bytes inside a record that read as a header whose chain stays plausible
 * for `SYNC_DEPTH` consecutive headers (for VB, blocks exactly tiled by RDWs), which text and packed data almost
 * never do by chance. The one case it cannot tell apart is a fake header whose length lands exactly on the true
 * next header (its chain then is the true chain). Part k ends where part k+1 starts, found by the same scan, so
 * such a false start is not silent: the previous part's last record then runs past its end and its decode fails
 * with that record's offset, instead of writing a wrong record.
 *
 * Record numbers of a `V`/`VB` part are not known without reading the file up to it: they count from 1 within
 * the part (offsets are the file's, exact). `F`/`FB` parts number their records as the whole file does.
 */
import { DatasetError } from './errors.ts';
import { isVariable, type FramingOptions } from './framing.ts';

/** Consecutive plausible headers that make a start certain enough (or the end of the file, if it comes first). */
export const SYNC_DEPTH = 8;

const HEADER = 4;
const MAX_SHORT_LENGTH = 0xffff;

export interface FilePart {
  /** The part's first byte: a record (F, V) or block (VB) starts there, or it is the end of the file. */
  start: number;
  /** Just past the part's last byte: where the next part starts. */
  end: number;
  /** The number the part's first record has: exact for F/FB, 1 for V/VB (counted within the part). */
  number: number;
}

/** Reads up to `length` bytes at `position` (fewer only at the end of the file). */
export type ReadAt = (position: number, length: number) => Promise<Uint8Array>;

/** Parses `k/n` (1 ≤ k ≤ n); `undefined` when it is not that. */
export function parseSplit(text: string): { k: number; n: number } | undefined {
  const m = /^(\d+)\/(\d+)$/.exec(text);
  if (!m) return undefined;
  const k = Number(m[1]);
  const n = Number(m[2]);
  return k >= 1 && k <= n && Number.isSafeInteger(n) ? { k, n } : undefined;
}

function length16(buf: Uint8Array, pos: number, little: boolean): number {
  return little ? buf[pos]! | (buf[pos + 1]! << 8) : (buf[pos]! << 8) | buf[pos + 1]!;
}

/**
 * The length (RDW included) of the record whose RDW is at `pos`, or 0 when the RDW is not plausible by the rules
 * the reader applies (bytes 3 and 4 zero, at least 4, at most lrecl). `buf` must hold 4 bytes at `pos`.
 */
export function rdwLength(buf: Uint8Array, pos: number, framing: FramingOptions): number {
  if (buf[pos + 2] !== 0 || buf[pos + 3] !== 0) return 0;
  const length = length16(buf, pos, framing.rdw === 'little');
  if (length < HEADER || length > (framing.lrecl ?? MAX_SHORT_LENGTH)) return 0;
  return length;
}

/** The length (BDW included) of the block whose BDW is at `pos`, or 0 when the BDW is not plausible. */
export function bdwLength(buf: Uint8Array, pos: number, framing: FramingOptions): number {
  let length: number;
  if (framing.rdw !== 'little' && (buf[pos]! & 0x80) !== 0) {
    length = ((buf[pos]! & 0x7f) << 24) | (buf[pos + 1]! << 16) | (buf[pos + 2]! << 8) | buf[pos + 3]!;
  } else {
    if (buf[pos + 2] !== 0 || buf[pos + 3] !== 0) return 0;
    length = length16(buf, pos, framing.rdw === 'little');
  }
  return length > HEADER ? length : 0;
}

/**
 * The number of records in the block at `pos` of `length` bytes (all in `buf`), or -1 when its RDWs do not fill
 * it exactly with plausible records.
 */
export function blockRecords(buf: Uint8Array, pos: number, length: number, framing: FramingOptions): number {
  const end = pos + length;
  let count = 0;
  for (let at = pos + HEADER; at < end; count++) {
    if (end - at < HEADER) return -1;
    const n = rdwLength(buf, at, framing);
    if (n === 0 || at + n > end) return -1;
    at += n;
  }
  return count;
}

/** The longest record (V) or block (VB) the scan may meet, for the size of what it reads. */
function longestUnit(framing: FramingOptions): number {
  if (framing.recfm === 'VB') return Math.max(framing.blksize ?? 0, 32760);
  return framing.lrecl ?? MAX_SHORT_LENGTH;
}

/** A window of the file that grows as the scan needs. */
class Window {
  readonly #readAt: ReadAt;
  readonly #size: number;
  base = 0;
  bytes = new Uint8Array(0);

  constructor(readAt: ReadAt, size: number) {
    this.#readAt = readAt;
    this.#size = size;
  }

  /** Makes [pos, pos + length) available, as far as the file goes; false past its end. */
  async has(pos: number, length: number): Promise<boolean> {
    const want = Math.min(pos + length, this.#size);
    if (pos + length > this.#size) return false;
    if (pos >= this.base && want <= this.base + this.bytes.length) return true;
    const from = pos >= this.base && pos <= this.base + this.bytes.length ? this.base : pos;
    const to = Math.min(this.#size, Math.max(want, from + (1 << 20)));
    const kept = from === this.base ? this.bytes : new Uint8Array(0);
    const more = await this.#readAt(from + kept.length, to - from - kept.length);
    const bytes = new Uint8Array(kept.length + more.length);
    bytes.set(kept, 0);
    bytes.set(more, kept.length);
    this.base = from;
    this.bytes = bytes;
    return pos + length <= this.base + this.bytes.length;
  }
}

/** Whether a chain of plausible headers starts at `pos`: `SYNC_DEPTH` of them, or fewer ending exactly at EOF. */
async function chainAt(window: Window, pos: number, size: number, framing: FramingOptions): Promise<boolean> {
  for (let depth = 0; depth < SYNC_DEPTH; depth++) {
    if (pos === size) return true;
    if (!(await window.has(pos, HEADER))) return false;
    const at = pos - window.base;
    const length = framing.recfm === 'VB' ? bdwLength(window.bytes, at, framing) : rdwLength(window.bytes, at, framing);
    if (length === 0 || pos + length > size) return false;
    if (framing.recfm === 'VB') {
      if (!(await window.has(pos, length))) return false;
      if (blockRecords(window.bytes, pos - window.base, length, framing) < 0) return false;
    }
    pos += length;
  }
  return true;
}

/**
 * The first record (V) or block (VB) start at or after `from` (the file's size at its end). A stretch as long as
 * the longest record or block without one means the file is not in that format.
 */
export async function syncAt(readAt: ReadAt, size: number, framing: FramingOptions, from: number): Promise<number> {
  if (from <= 0) return 0;
  const window = new Window(readAt, size);
  const stretch = longestUnit(framing) + HEADER;
  for (let pos = from; pos <= size && pos <= from + stretch; pos++) {
    if (await chainAt(window, pos, size, framing)) return pos;
  }
  const what = framing.recfm === 'VB' ? 'BDW starting a chain of blocks' : 'RDW starting a chain of records';
  throw new DatasetError(
    { record: 0, offset: from },
    `no ${what} in the ${stretch} bytes from here: is it a ${framing.recfm} file with these options?`,
  );
}

/** The part `k` of `n` (1-based) of a file of `size` bytes. */
export async function filePart(
  readAt: ReadAt,
  size: number,
  framing: FramingOptions,
  k: number,
  n: number,
): Promise<FilePart> {
  if (!(Number.isInteger(k) && Number.isInteger(n) && k >= 1 && k <= n)) {
    throw new RangeError(`a part is k/n with 1 ≤ k ≤ n (got ${k}/${n})`);
  }
  if (!isVariable(framing.recfm)) {
    const lrecl = framing.lrecl!;
    // a trailing partial record goes to the last part, whose decode then reports it
    const records = Math.ceil(size / lrecl);
    const first = Math.floor(((k - 1) * records) / n);
    const next = Math.floor((k * records) / n);
    return { start: Math.min(size, first * lrecl), end: Math.min(size, next * lrecl), number: first + 1 };
  }
  const rangeStart = Math.floor(((k - 1) * size) / n);
  const rangeEnd = Math.floor((k * size) / n);
  const start = k === 1 ? 0 : await syncAt(readAt, size, framing, rangeStart);
  const end = k === n ? size : await syncAt(readAt, size, framing, rangeEnd);
  return { start, end: Math.max(start, end), number: 1 };
}
