/** The functions and values the generated code closes over, by the names it calls them. */
import { scaledInteger, typeName } from '../decimal.ts';
import { getBinary, putBinary } from '../encodings/binary.ts';
import { getEdited, putEdited } from '../encodings/edited.ts';
import { getScaled, putScaled } from '../encodings/scaled.ts';
import { getPacked, getPackedNumber, putPacked } from '../encodings/packed.ts';
import { getText, getTextLatin1, putText, putTextOnSpaces } from '../encodings/text.ts';
import { getZoned, getZonedTrailing, putZoned } from '../encodings/zoned.ts';
import { RecordDecodeError, RecordEncodeError } from '../errors.ts';
import type { Node } from '../layout.ts';

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
      if (c.redefines) continue;
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

/** Everything the code of layout `root` names that it does not declare: `K` its constants, `T` its template. */
export function runtimeOf(root: Node, constants: unknown[], template: Buffer): Record<string, unknown> {
  return {
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
    getText,
    getTextLatin1,
    getZoned,
    getZonedTrailing,
    getPacked,
    getPackedNumber,
    getBinary,
    putEdited,
    getEdited,
    putScaled,
    getScaled,
  };
}
