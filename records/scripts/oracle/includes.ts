/**
 * The copybooks a case's COPY statements bring in: written beside the generated program for cobc (`-I`), and
 * read from memory by the codec, with the same name search as files.
 */
import { copybookCandidates, type CopybookReader } from '../../src/index.ts';

/** File name (`NAME.cpy`, or `LIB/NAME.cpy` for COPY NAME OF LIB) → lines. */
export type Includes = Record<string, string[]>;

export function includesReader(includes: Includes): CopybookReader {
  return (name, library) => {
    const file = copybookCandidates(name, library, 'MAIN.cpy', []).find((f) => Object.hasOwn(includes, f));
    return file === undefined ? undefined : { text: includes[file]!.join('\n'), fileName: file };
  };
}
