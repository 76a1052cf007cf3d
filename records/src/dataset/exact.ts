/**
 * Byte-for-byte round trips: what a record's JSON cannot say (FILLER content, a sign nibble other than the one
 * encode writes, bytes past the record in its F slot) kept beside its fields under the key `@bytes`, which no
 * copybook name can produce, and written back by encode. A record that encodes back to its own bytes gets no key.
 */
import { RecordDecodeError, RecordEncodeError } from '../errors.ts';
import { layoutItems } from '../index.ts';
import type { LayoutItem, RecordDecodeOptions } from '../types.ts';
import type { RecordDecoder } from './decode.ts';
import type { RecordEncoder } from './encode.ts';
import { SegmentedLayout } from './segments.ts';

/** The key of the bytes a record's fields do not reproduce: '@' is in no COBOL name, nor in a mapping's JSON names. */
export const BYTES_KEY = '@bytes';

/**
 * One run of bytes at `offset` (from the record's start): what the file held and, when given, what encoding the
 * JSON gave there at decode (a byte past the encoded record counts as x'00', the F slot's padding).
 */
export type ByteRange = [offset: number, hex: string, was?: string];

/** Runs of differing bytes this close are kept as one range: four hex digits a byte cost less than a new entry. */
const MERGE_GAP = 2;

type Layout = RecordDecoder & RecordEncoder;

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function view(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
}

/**
 * The object of a value that holds the record's fields: the value itself, or for a segmented layout the one
 * segment's object (`{"customerRec": {…}}`), so that nesting and unnesting segments carry each record's bytes.
 */
function fieldsOf(layout: unknown, value: unknown): Record<string, unknown> | undefined {
  if (!isObject(value)) return undefined;
  if (!(layout instanceof SegmentedLayout)) return value;
  const keys = Object.keys(value);
  const inner = keys.length === 1 ? value[keys[0]!] : undefined;
  return isObject(inner) ? inner : undefined;
}

/**
 * The ranges where `file` differs from `encoded`, or undefined when it does not. In an F slot (`slot`) bytes
 * past the encoded record are compared with the writer's x'00' padding; elsewhere the record's own length is
 * kept, so any byte past the encoded record is a difference.
 */
export function byteRanges(file: Uint8Array, encoded: Uint8Array, slot: boolean): ByteRange[] | undefined {
  const original = view(file);
  const again = view(encoded);
  const n = original.length;
  const e = again.length;
  if (e > n) {
    throw new RecordDecodeError(n, '', `its fields encode to ${e} bytes, more than the record's ${n}`);
  }
  const head = e === n ? original : original.subarray(0, e);
  if (head.equals(again)) {
    let rest = e;
    if (slot) while (rest < n && original[rest] === 0) rest++;
    if (rest === n) return undefined;
  }
  const same = (i: number) => (i < e ? original[i] === again[i] : slot && original[i] === 0);
  const ranges: ByteRange[] = [];
  let i = 0;
  while (i < n) {
    if (same(i)) {
      i++;
      continue;
    }
    let last = i;
    for (let j = i + 1; j < n && j - last <= MERGE_GAP + 1; j++) if (!same(j)) last = j;
    const end = last + 1;
    const was = Buffer.alloc(end - i);
    if (i < e) again.copy(was, 0, i, Math.min(end, e));
    ranges.push([i, original.toString('hex', i, end), was.toString('hex')]);
    i = end;
  }
  return ranges;
}

/** A decode error for a value that does not encode: at its item (its COBOL name) when one has that JSON path. */
function unencodable(layout: Layout, e: RecordEncodeError): RecordDecodeError {
  const reason = `its value does not encode back: ${e.reason}`;
  const root = (layout as { root?: LayoutItem }).root;
  const path = e.path.replace(/\[\d+\]/g, '[]');
  const items = root === undefined ? [] : [...layoutItems(root)];
  const item = items.find((i) => i.jsonPath === path || i.jsonPath === `${path}[]`);
  if (item === undefined) return new RecordDecodeError(0, e.path, reason);
  // an element of a table, or an item behind one, is elsewhere than the item's first offset
  const placed = !e.path.includes('[') && item.afterOdo === undefined;
  return new RecordDecodeError(placed ? item.offset : 0, item.cobolName, reason);
}

/**
 * A decoder whose records carry, under `@bytes`, the bytes that encoding their JSON with the same layout would
 * not give back: each record is decoded, encoded again and compared. It has no `decodeJson`, so JSON Lines are
 * written from its objects. A record whose value does not encode (a byte above x'7F' in an ASCII field), or
 * encodes to more bytes than it has, is a bad record: no line could give its bytes back.
 */
export function exactDecoder(layout: Layout): RecordDecoder {
  return {
    minLength: layout.minLength,
    maxLength: layout.maxLength,
    decode(bytes: Uint8Array, options?: RecordDecodeOptions): Record<string, unknown> {
      const value = layout.decode(bytes, options);
      let again: Uint8Array;
      try {
        again = layout.encode(value);
      } catch (e) {
        if (!(e instanceof RecordEncodeError)) throw e;
        throw unencodable(layout, e);
      }
      // F slots are read with trailing bytes ignored, and written padded with x'00'
      const ranges = byteRanges(bytes, again, options?.trailing === 'ignore');
      if (ranges !== undefined) fieldsOf(layout, value)![BYTES_KEY] = ranges;
      return value;
    },
  };
}

export interface ExactEncoderOptions {
  /** The longest record the file takes (F: its LRECL): a range past it is an error. */
  maxLength?: number | undefined;
}

const HEX = /^(?:[0-9a-fA-F]{2})+$/;

/** The ranges of a `@bytes` value, checked: each `[offset, hex]` or `[offset, hex, was]`, in order, apart. */
function parseRanges(spec: unknown, path: string, maxLength: number): Array<[number, Buffer, Buffer | undefined]> {
  const fail = (at: string, reason: string) => new RecordEncodeError(at, reason);
  if (!Array.isArray(spec)) throw fail(path, 'an array of [offset, "hex"] or [offset, "hex", "was"] ranges');
  const out: Array<[number, Buffer, Buffer | undefined]> = [];
  let end = 0;
  for (const [k, range] of spec.entries()) {
    const at = `${path}[${k}]`;
    if (!Array.isArray(range) || (range.length !== 2 && range.length !== 3)) {
      throw fail(at, 'a range is [offset, "hex"] or [offset, "hex", "was"]');
    }
    const [offset, hex, was] = range as unknown[];
    if (typeof offset !== 'number' || !Number.isSafeInteger(offset) || offset < 0) {
      throw fail(at, `the offset must be a whole number of at least 0 (got ${JSON.stringify(offset)})`);
    }
    if (typeof hex !== 'string' || !HEX.test(hex)) {
      throw fail(at, `the bytes must be hex digits, two a byte (got ${JSON.stringify(hex)})`);
    }
    if (was !== undefined && (typeof was !== 'string' || !HEX.test(was) || was.length !== hex.length)) {
      throw fail(at, `"was" must be hex digits as many as the bytes' (got ${JSON.stringify(was)})`);
    }
    if (offset < end) throw fail(at, `offset ${offset} is inside the range before; ranges come in order, apart`);
    end = offset + hex.length / 2;
    if (end > maxLength) {
      throw fail(at, `bytes ${offset}–${end - 1} are outside the record: it holds at most ${maxLength} bytes`);
    }
    out.push([offset, Buffer.from(hex, 'hex'), was === undefined ? undefined : Buffer.from(was as string, 'hex')]);
  }
  return out;
}

/**
 * An encoder that writes back a record's `@bytes` over the bytes its fields encode to (a record without the key
 * is encoded as it is). A range with `was` is written only where encoding still gives those bytes: a field
 * whose value was changed keeps its new bytes. A range past the encoded record lengthens it (x'00' between).
 * A `@bytes` that is not such ranges, or reaches past `maxLength`, is an error naming the key.
 */
export function exactEncoder(layout: RecordEncoder, options: ExactEncoderOptions = {}): RecordEncoder {
  const maxLength = options.maxLength ?? 0x7fffffff;
  const segmented = layout instanceof SegmentedLayout;
  return {
    encode(json: unknown): Uint8Array {
      const fields = fieldsOf(layout, json);
      if (fields === undefined || !(BYTES_KEY in fields)) return layout.encode(json);
      const { [BYTES_KEY]: spec, ...rest } = fields;
      const key = segmented ? Object.keys(json as object)[0]! : undefined;
      const path = key === undefined ? BYTES_KEY : `${key}.${BYTES_KEY}`;
      const ranges = parseRanges(spec, path, maxLength);
      const encoded = view(layout.encode(key === undefined ? rest : { [key]: rest }));
      const e = encoded.length;
      const last = ranges.at(-1);
      const out = Buffer.alloc(Math.max(e, last === undefined ? 0 : last[0] + last[1].length));
      encoded.copy(out);
      for (const [offset, bytes, was] of ranges) {
        for (let i = 0; i < bytes.length; i++) {
          const at = offset + i;
          if (was === undefined || (at < e ? encoded[at] : 0) === was[i]) out[at] = bytes[i]!;
        }
      }
      return out;
    },
  };
}
