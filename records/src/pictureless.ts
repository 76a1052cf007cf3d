/** The codec spec and JSON Schema of items without a PICTURE (COMP-1, COMP-2, INDEX, POINTER). */
import { binaryRange, type BinarySpec } from './encodings/binary.ts';
import { floatMax, type FloatSpec } from './encodings/float.ts';
import type { Node } from './layout.ts';
import type { PlatformProfile } from './types.ts';

export type PictureLessSpec = { type: 'float'; spec: FloatSpec } | { type: 'binary'; spec: BinarySpec };

/** The codec spec of a picture-less item; undefined for an item with a PICTURE. */
export function pictureLessSpec(n: Node, profile: PlatformProfile): PictureLessSpec | undefined {
  if (n.usage === 'comp-1' || n.usage === 'comp-2') {
    const spec: FloatSpec = {
      length: n.usage === 'comp-1' ? 4 : 8,
      format: profile.floatFormat,
      rounding: profile.floatRounding,
      usage: n.usage === 'comp-1' ? 'COMP-1' : 'COMP-2',
    };
    return { type: 'float', spec };
  }
  if (n.usage === 'index' || n.usage === 'pointer') {
    const signed = n.usage === 'index';
    const length = n.length as 4 | 8;
    // stored in the machine's own order, as COMP-5 is
    const spec: BinarySpec = {
      digits: length === 4 ? 10 : signed ? 19 : 20,
      scale: 0,
      signed,
      asString: length === 8,
      picture: signed ? 'INDEX' : 'POINTER',
      length,
      native: true,
      littleEndian: profile.comp5ByteOrder === 'little',
      ...binaryRange(true, signed, length, 0),
    };
    return { type: 'binary', spec };
  }
  return undefined;
}

/** The JSON Schema of a picture-less item. */
export function pictureLessSchema(n: Node): Record<string, unknown> {
  if (n.usage === 'comp-1' || n.usage === 'comp-2') {
    const length = n.usage === 'comp-1' ? 4 : 8;
    // the profile decides the format; the schema states the range of the format the layout was compiled for
    const max = floatMax({ length, format: n.floatFormat ?? 'ieee-big' });
    return { type: 'number', minimum: -max, maximum: max };
  }
  const signed = n.usage === 'index';
  if (n.length === 8) return { type: 'string', pattern: signed ? '^-?\\d{1,19}$' : '^\\d{1,20}$' };
  return signed
    ? { type: 'integer', minimum: -(2 ** 31), maximum: 2 ** 31 - 1 }
    : { type: 'integer', minimum: 0, maximum: 2 ** 32 - 1 };
}
