/** `--segments FILE.json` of `corebridge dataset`: the segments file read, checked and compiled segment by segment. */
import { readFile } from 'node:fs/promises';
import type { CompiledLayout } from '@corebridge/records';
import {
  parseSegments,
  resolveSegments,
  SegmentedLayout,
  SegmentsError,
  type SegmentCompile,
} from '@corebridge/records/dataset';
import { UsageError } from '../usage.ts';

/**
 * `compile` compiles a 01 record of the copybook (undefined: its one record) with the command's options, showing
 * the views in `redefines` (a segment that is a REDEFINES view).
 */
export async function segmentsFromArgs(
  path: string,
  values: { record?: string | undefined },
  compile: (c: SegmentCompile) => Promise<CompiledLayout>,
): Promise<SegmentedLayout> {
  if (values.record !== undefined) throw new UsageError('--segments names the records; leave out --record');
  let json: unknown;
  try {
    json = JSON.parse(await readFile(path, 'utf8'));
  } catch (e) {
    const reason = (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message;
    throw new UsageError(`cannot read segments ${path}: ${reason}`, 1);
  }
  try {
    const spec = parseSegments(json);
    return new SegmentedLayout(spec, await resolveSegments(spec, compile));
  } catch (e) {
    if (e instanceof SegmentsError) throw new UsageError(`${path}: ${e.message}`, 1);
    throw e;
  }
}
