/** The functions and values the generated code closes over, by the names it calls them. */
import { scaledInteger, typeName } from '../decimal.ts';
import { getOrEmpty } from '../empty.ts';
import { binaryValue, getBinary, putBinary } from '../encodings/binary.ts';
import { getNational, getNationalDecimal, putNational, putNationalDecimal } from '../encodings/national.ts';
import { getEdited, putEdited } from '../encodings/edited.ts';
import { getPacked, getPackedConstants, getPackedNumber, putPacked } from '../encodings/packed.ts';
import { getDbcs, putDbcs } from '../encodings/dbcs.ts';
import { getMixed, putMixed } from '../encodings/mixed.ts';
import {
  getText,
  getTextLatin1,
  getTextLatin1Mapped,
  getTextStrict,
  getTextWide,
  putText,
  putTextOnSpaces,
} from '../encodings/text.ts';
import { getScaled, putScaled } from '../encodings/scaled.ts';
import { getZoned, getZonedConstants, getZonedTrailing, putZoned } from '../encodings/zoned.ts';
import { getFloat, putFloat } from '../encodings/float.ts';
import { RecordDecodeError, RecordEncodeError } from '../errors.ts';
import type { Node } from '../layout.ts';
import { actualOffset, recordLength, slideIn, slideOut, type OdoLayout } from '../odo.ts';

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function countKeys(o: object): number {
  return Object.keys(o).length;
}

function unknownKey(o: object, known: Set<string>, hidden: Map<string, Node>, path: string): never {
  const extra = Object.keys(o).find((k) => !known.has(k)) ?? '?';
  const view = hidden.get(extra);
  const base = view?.redefines ?? view;
  let hint = '';
  if (view && base?.choice) {
    const discriminator = base.choice.discriminator.name;
    hint = ` (${view.name} is a view of ${base.name} that the discriminator ${discriminator} names for no value)`;
  } else if (view && base) {
    const mapping = `mapping.redefines: {"${base.name}": "${view.name}"}`;
    hint = ` (${view.name} is a REDEFINES view that is not selected; select it with ${mapping})`;
  }
  throw new RecordEncodeError(path === '' ? extra : `${path}.${extra}`, `unknown field${hint}`);
}

function reanchor(e: unknown, prefix: string): unknown {
  return e instanceof RecordEncodeError ? e.under(prefix) : e;
}

function toBuffer(bytes: Uint8Array): Buffer {
  if (Buffer.isBuffer(bytes)) return bytes;
  if (bytes instanceof Uint8Array) return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  throw new TypeError('decode expects a Buffer or Uint8Array');
}

/** The elementary item covering `offset`, for messages about a record cut short. */
function fieldAt(root: Node, offset: number): string {
  let found = root.name;
  const visit = (n: Node, base: number) => {
    for (const c of n.children) {
      if (c.redefines || c.renames) continue;
      const start = base + (c.offset - n.offset);
      const k = c.occurs && offset >= start ? Math.min(Math.floor((offset - start) / c.length), c.occurs.max - 1) : 0;
      const at = start + k * c.length;
      if (offset >= at && offset < at + c.length) {
        found = c.name;
        visit(c, at);
      }
    }
  };
  visit(root, 0);
  return found;
}

/** The count a counter's JSON value stands for: any value its picture takes ("2", 2, "2.0", "+2"). */
function odoCountOf(v: unknown, path: string): number {
  return Number(scaledInteger(v, 0, path));
}

/** Complex ODO: slides between the record at its counts and the layout at every maximum the code reads. */
function odoRuntime(o: OdoLayout, maxLength: number): Record<string, unknown> {
  return {
    odoLength: (counts: number[]) => recordLength(o, counts),
    odoSlideIn: (buf: Buffer, counts: number[]) => slideIn(o, buf, counts),
    odoSlideOut: (b: Buffer, counts: number[]) => slideOut(o, b, maxLength, counts),
    odoReanchor: (e: unknown, counts: number[]) =>
      e instanceof RecordDecodeError ? new RecordDecodeError(actualOffset(o, e.offset, counts), e.field, e.reason) : e,
  };
}

/** Everything the code of layout `root` names that it does not declare: `K` its constants, `T` its template. */
export function runtimeOf(
  root: Node,
  constants: unknown[],
  template: Buffer,
  odo: OdoLayout | null = null,
): Record<string, unknown> {
  return {
    ...(odo ? odoRuntime(odo, template.length) : {}),
    K: constants,
    T: template,
    RecordEncodeError,
    RecordDecodeError,
    Buffer,
    isObject,
    countKeys,
    unknownKey,
    reanchor,
    typeName,
    toBuffer,
    fieldAt: (offset: number) => fieldAt(root, offset),
    odoCountOf,
    putText,
    putTextOnSpaces,
    putZoned,
    putPacked,
    putBinary,
    putFloat,
    getText,
    getTextLatin1,
    getTextStrict,
    putMixed,
    getMixed,
    putDbcs,
    getDbcs,
    getTextLatin1Mapped,
    getTextWide,
    getZoned,
    getZonedTrailing,
    getZonedConstants,
    getPacked,
    getPackedNumber,
    getPackedConstants,
    getBinary,
    binaryValue,
    getOrEmpty,
    getNational,
    putNational,
    getNationalDecimal,
    putNationalDecimal,
    getFloat,
    putEdited,
    getEdited,
    putScaled,
    getScaled,
  };
}
