/** The codec spec of each elementary item, built once at compile time: which encoding, and its constants. */
import { charTable, zonedUnsupported } from './charsets.ts';
import { binaryRange, putBinary, type BinarySpec } from './encodings/binary.ts';
import { putNational, putNationalDecimal, type NationalDecimalSpec, type NationalSpec } from './encodings/national.ts';
import { putFloat, type FloatSpec } from './encodings/float.ts';
import { putEdited, type EditedSpec } from './encodings/edited.ts';
import { putScaled, type ScaledInner, type ScaledSpec } from './encodings/scaled.ts';
import { putPacked, type PackedSpec } from './encodings/packed.ts';
import { putDbcs, type DbcsSpec } from './encodings/dbcs.ts';
import { putMixed } from './encodings/mixed.ts';
import { putText, type TextSpec } from './encodings/text.ts';
import { putZoned, zonedBytes, type ZonedSpec } from './encodings/zoned.ts';
import { CopybookError } from './errors.ts';
import type { Node } from './layout.ts';
import type { PlatformProfile } from './types.ts';
import { pictureLessSpec } from './pictureless.ts';

export type FieldSpec =
  | { type: 'text'; spec: TextSpec }
  | { type: 'mixed'; spec: TextSpec }
  | { type: 'dbcs'; spec: DbcsSpec }
  | { type: 'zoned'; spec: ZonedSpec }
  | { type: 'packed'; spec: PackedSpec }
  | { type: 'binary'; spec: BinarySpec }
  | { type: 'national'; spec: NationalSpec }
  | { type: 'nationalDecimal'; spec: NationalDecimalSpec }
  | { type: 'float'; spec: FloatSpec }
  | { type: 'edited'; spec: EditedSpec }
  | { type: 'scaled'; spec: ScaledSpec };

/** The codec spec of an elementary item. */
export function fieldSpec(n: Node, profile: PlatformProfile): FieldSpec {
  const bare = pictureLessSpec(n, profile);
  if (bare !== undefined) return bare;
  const table = charTable(n.charset ?? profile.charset);
  const pic = n.picture!;
  if (n.kind === 'national') {
    return { type: 'national', spec: { length: pic.size, justifiedRight: n.entry.justifiedRight === true } };
  }
  if (n.usage === 'display-1') {
    if (!table.dbcs) {
      const at = { fileName: '', line: n.entry.line, column: n.entry.column };
      throw new CopybookError(
        `${n.name}: PIC G needs a mixed code page (cp930, cp939…); ${table.name} has no double-byte characters`,
        at,
      );
    }
    return { type: 'dbcs', spec: { length: n.length, table, justifiedRight: n.entry.justifiedRight === true } };
  }
  if (pic.edited) return { type: 'edited', spec: editedSpec(n, table) };
  if (pic.scale < 0) return { type: 'scaled', spec: scaledSpec(n, profile) };
  if (n.kind !== 'numeric') {
    const justifiedRight = n.entry.justifiedRight === true;
    const spec = { length: n.length, table, justifiedRight, alphabetic: n.kind === 'alphabetic' };
    return table.dbcs ? { type: 'mixed', spec } : { type: 'text', spec };
  }
  const base = {
    digits: pic.digits,
    scale: pic.scale,
    signed: pic.signed,
    asString: decodesAsString(n),
    picture: pic.normalized,
  };
  if (n.usage === 'national')
    return { type: 'nationalDecimal', spec: { ...base, leading: n.sign?.position === 'leading' } };
  if (n.usage === 'display') {
    const unsupported = zonedUnsupported(table);
    if (unsupported !== null) {
      const at = { fileName: '', line: n.entry.line, column: n.entry.column };
      throw new CopybookError(`${n.name}: ${unsupported}, which numeric DISPLAY items need`, at, true);
    }
    return {
      type: 'zoned',
      spec: {
        ...base,
        length: n.length,
        leading: n.sign?.position === 'leading',
        separate: n.sign?.separate === true,
        blankWhenZero: n.entry.blankWhenZero === true,
        table,
        ...zonedBytes(table, profile.zonedSign),
      },
    };
  }
  if (n.usage === 'packed-decimal') return { type: 'packed', spec: { ...base, length: n.length } };
  const native = n.usage === 'comp-5';
  const length = n.length as 1 | 2 | 4 | 8;
  const range = binaryRange(native, pic.signed, length, pic.digits);
  const littleEndian = native && profile.comp5ByteOrder === 'little';
  return { type: 'binary', spec: { ...base, asString: decodesAsString(n), length, native, littleEndian, ...range } };
}

function editedSpec(n: Node, table: ReturnType<typeof charTable>): EditedSpec {
  const pic = n.picture!;
  return {
    digits: pic.digits,
    scale: pic.scale,
    signed: pic.signed,
    asString: decodesAsString(n),
    picture: pic.normalized,
    length: n.length,
    edit: pic.edited!,
    blankWhenZero: n.entry.blankWhenZero === true,
    table,
  };
}

/** P right of the digits: the stored integer's own spec (scale 0), under the picture's numbers. */
function scaledSpec(n: Node, profile: PlatformProfile): ScaledSpec {
  const pic = n.picture!;
  const inner = fieldSpec({ ...n, picture: { ...pic, scale: 0 } }, profile) as ScaledInner;
  const { digits, scale, signed, normalized } = pic;
  return { digits, scale, signed, asString: decodesAsString(n), picture: normalized, inner };
}

/**
 * Whether decode returns the item as a decimal string: when it can hold more than 15 digits — by its
 * picture, or for COMP-5 by its storage size (an 8-byte COMP-5 holds up to 2^64 − 1 whatever the picture).
 */
export function decodesAsString(n: Node): boolean {
  if (n.usage === 'comp-5' || n.usage === 'pointer') return n.length === 8;
  const pic = n.picture;
  // P scaling counts: 9(14)PPP holds 17 digits; and a double divides exactly by at most 10^22
  return (pic?.digits ?? 0) + Math.max(0, -(pic?.scale ?? 0)) > 15 || (pic?.scale ?? 0) > 22;
}

export function putField(buf: Buffer, off: number, f: FieldSpec, v: unknown, path: string): void {
  switch (f.type) {
    case 'text':
      return putText(buf, off, f.spec, v, path);
    case 'mixed':
      return putMixed(buf, off, f.spec, v, path);
    case 'dbcs':
      return putDbcs(buf, off, f.spec, v, path);
    case 'zoned':
      return putZoned(buf, off, f.spec, v, path);
    case 'packed':
      return putPacked(buf, off, f.spec, v, path);
    case 'binary':
      return putBinary(buf, off, f.spec, v, path);
    case 'national':
      return putNational(buf, off, f.spec, v, path);
    case 'nationalDecimal':
      return putNationalDecimal(buf, off, f.spec, v, path);
    case 'float':
      return putFloat(buf, off, f.spec, v, path);
    case 'edited':
      return putEdited(buf, off, f.spec, v, path);
    case 'scaled':
      return putScaled(buf, off, f.spec, v, path);
  }
}
