import type { CompileOptions, PlatformProfile, ProfileName } from './types.ts';

/** The same copybook lays out differently by platform; a profile says how. */
export const PROFILES: Readonly<Record<ProfileName, PlatformProfile>> = {
  // IBM Enterprise COBOL on z/OS: EBCDIC (CCSID 1140: 037 with the euro sign), C/D zoned signs, binary
  // 2/4/8 bytes, COMP-5 big-endian, COMP-1/COMP-2 hexadecimal floating point, 31-bit pointers.
  zos: {
    charset: 'cp1140',
    zonedSign: 'ebcdic',
    binarySizes: 'ibm',
    comp5ByteOrder: 'big',
    floatFormat: 'hfp',
    pointerSize: 4,
    floatRounding: 'exact',
    syncAlignment: 'ibm',
  },
  // GnuCOBOL defaults on x86-64 Linux: ASCII, p–y negative overpunch, binary 1/2/4/8, COMP-5, COMP-1/COMP-2
  // (IEEE 754) and 8-byte pointers in native order.
  gnucobol: {
    charset: 'ascii',
    zonedSign: 'ascii',
    binarySizes: 'gnucobol',
    comp5ByteOrder: 'little',
    floatFormat: 'ieee-little',
    pointerSize: 8,
    floatRounding: 'exact',
    syncAlignment: 'gnucobol',
  },
};

export function resolveProfile(options: CompileOptions): PlatformProfile {
  const name = options.profile ?? 'zos';
  const base = PROFILES[name];
  if (base === undefined) throw new TypeError(`unknown profile "${String(name)}" (expected zos or gnucobol)`);
  return {
    charset: options.encoding ?? base.charset,
    zonedSign: options.zonedSign ?? base.zonedSign,
    binarySizes: options.binarySizes ?? base.binarySizes,
    comp5ByteOrder: options.comp5ByteOrder ?? base.comp5ByteOrder,
    floatFormat: options.floatFormat ?? base.floatFormat,
    pointerSize: options.pointerSize ?? base.pointerSize,
    floatRounding: options.floatRounding ?? base.floatRounding,
    syncAlignment: options.syncAlignment ?? base.syncAlignment,
  };
}

/** Bytes of a COMP/BINARY/COMP-5 item with this many digits. */
export function binaryByteSize(digits: number, sizes: PlatformProfile['binarySizes']): number {
  if (sizes === 'gnucobol' && digits <= 2) return 1;
  if (digits <= 4) return 2;
  if (digits <= 9) return 4;
  return 8;
}
