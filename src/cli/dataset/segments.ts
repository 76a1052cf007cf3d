/** `--segments FILE.json` of `corebridge dataset`: the segments file read, checked and compiled record by record. */
import { readFile } from 'node:fs/promises';
import type { CompiledLayout } from '@corebridge/records';
import { parseSegments, SegmentedLayout, SegmentsError } from '@corebridge/records/dataset';
import { UsageError } from '../usage.ts';

/** `compile` compiles one 01 record of the copybook with the command's options. */
export async function segmentsFromArgs(
  path: string,
  values: { record?: string | undefined },
  compile: (record: string) => Promise<CompiledLayout>,
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
    const layouts = new Map<string, CompiledLayout>();
    for (const record of new Set(Object.values(spec.segments))) layouts.set(record, await compile(record));
    return new SegmentedLayout(spec, layouts);
  } catch (e) {
    if (e instanceof SegmentsError) throw new UsageError(`${path}: ${e.message}`, 1);
    throw e;
  }
}
