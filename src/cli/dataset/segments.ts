/** `--segments FILE.json` of `corebridge dataset`: the segments file read, checked and compiled segment by segment. */
import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, join } from 'node:path';
import type { Charset, CompiledLayout } from '@corebridge/records';
import { compileFromArgs, type CompileArgs } from '@corebridge/records/cli';
import {
  parseSegments,
  resolveSegments,
  SegmentedLayout,
  SegmentsError,
  type SegmentCompile,
} from '@corebridge/records/dataset';
import { UsageError } from '../usage.ts';

/**
 * `compile` compiles a 01 record (undefined: its one record) of `copybook` with the command's options, showing
 * the views in `redefines` (a segment that is a REDEFINES view). `copybook` is the command's copybook (`main`),
 * or a segment's own file, joined to the segments file's folder (so errors name it as the user named that
 * folder). `main` may be undefined when every segment names its own copybook file.
 */
export async function segmentsFromArgs(
  path: string,
  main: string | undefined,
  values: { record?: string | undefined },
  compile: (c: SegmentCompile & { copybook: string }) => Promise<CompiledLayout>,
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
    const byName = Object.keys(spec.segments).find((id) => typeof spec.segments[id] === 'string');
    if (main === undefined && byName !== undefined) {
      throw new SegmentsError(
        `segments.${byName}`,
        'names a record of the command\'s copybook, and none is given: give it, or name this segment\'s own {"copybook": FILE}',
      );
    }
    const folder = dirname(path);
    const layouts = await resolveSegments(spec, (c) =>
      compile({
        ...c,
        copybook: c.copybook === undefined ? main! : isAbsolute(c.copybook) ? c.copybook : join(folder, c.copybook),
      }),
    );
    return new SegmentedLayout(spec, layouts);
  } catch (e) {
    if (e instanceof SegmentsError) throw new UsageError(`${path}: ${e.message}`, 1);
    throw e;
  }
}

/** The command-line options a layout is compiled with (`--copybook-format` is the copybook's `--format`). */
export type LayoutArgs = Omit<CompileArgs, 'format'> & {
  'copybook-format'?: string | undefined;
  segments?: string | undefined;
  record?: string | undefined;
};

/**
 * What a dataset command reads records with: the copybook `file`, or, with `--segments`, each segment's layout
 * (`file` may then be undefined when every segment names its own copybook). `encoding` replaces `--encoding`.
 * A worker thread compiles its own from the same options.
 */
export function layoutFromArgs(
  file: string | undefined,
  values: LayoutArgs,
  encoding?: Charset,
): Promise<CompiledLayout | SegmentedLayout> {
  const options = {
    ...values,
    format: values['copybook-format'],
    ...(encoding === undefined ? {} : { encoding }),
  };
  if (values.segments === undefined) return compileFromArgs(file!, options);
  return segmentsFromArgs(values.segments, file, values, ({ copybook, record, redefines }) =>
    compileFromArgs(copybook, { ...options, record }, { redefines }),
  );
}
