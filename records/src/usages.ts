/**
 * Usages without a PICTURE: COMP-1/COMP-2 floats, INDEX and POINTER. Their size comes from the usage and the
 * profile, not from digits; this module says what each is, for the layout, the codec and the schema.
 */
import type { PlatformProfile, Usage } from './types.ts';

const USAGE_NAMES: Partial<Record<Usage, string>> = {
  'comp-1': 'COMP-1',
  'comp-2': 'COMP-2',
  index: 'INDEX',
  pointer: 'POINTER',
};

/** The COBOL name of a usage that takes no PICTURE, or undefined for the others. */
export const pictureLessName = (usage: Usage): string | undefined => USAGE_NAMES[usage];

/** Bytes of an item of a picture-less usage, or undefined when the usage needs a PICTURE. */
export function pictureLessSize(usage: Usage, profile: PlatformProfile): number | undefined {
  switch (usage) {
    case 'comp-1':
      return 4;
    case 'comp-2':
      return 8;
    // an index holds a byte displacement: a fullword on both platforms
    case 'index':
      return 4;
    case 'pointer':
      return profile.pointerSize;
    default:
      return undefined;
  }
}
