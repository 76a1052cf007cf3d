/**
 * Builds the COBOL program host and its programs with GnuCOBOL's `cobc`, into a directory named by a hash of
 * every input, so an unchanged build is reused and a changed one never mixes with the old.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);

export const HOST_SOURCE = fileURLToPath(new URL('./cbhost.c', import.meta.url));
/** The COBOL programs Corebridge ships, and the copybooks they COPY. */
export const PROGRAMS_DIR = fileURLToPath(new URL('../../backend/cobol/', import.meta.url));
export const COPYBOOKS_DIR = fileURLToPath(new URL('../../backend/copybooks/', import.meta.url));

export interface CobolBuild {
  hostBinary: string;
  /** The directory of the program modules: COB_LIBRARY_PATH. */
  libraryPath: string;
}

export class CobolBuildError extends Error {
  override readonly name = 'CobolBuildError';
}

/** Is `cobc` on the PATH? */
export async function cobcVersion(): Promise<string | null> {
  try {
    const { stdout } = await run('cobc', ['--version']);
    return stdout.split('\n')[0] ?? '';
  } catch {
    return null;
  }
}

async function compile(args: string[], what: string): Promise<void> {
  try {
    await run('cobc', args);
  } catch (error) {
    const output = (error as { stderr?: string }).stderr?.trim();
    throw new CobolBuildError(`cobc could not compile ${what}${output ? `:\n${output}` : ''}`);
  }
}

/**
 * Compiles the host and `programs` (names of `<NAME>.cbl` in `programsDir`) under `outDir`, or reuses
 * an identical earlier build.
 */
export async function buildCobolHost(options: {
  outDir: string;
  programs: readonly string[];
  programsDir?: string;
  /** COPY paths, searched in order (default: the back-end's copybooks, where CBHDR is). */
  copybookDirs?: readonly string[];
}): Promise<CobolBuild> {
  const version = await cobcVersion();
  if (version === null) {
    throw new CobolBuildError(
      'COBOL programs need GnuCOBOL, and cobc is not installed (Debian/Ubuntu: apt-get install gnucobol3)',
    );
  }
  const programsDir = options.programsDir ?? PROGRAMS_DIR;
  const programs = [...new Set(options.programs)].sort();
  const hash = createHash('sha256')
    .update(version)
    .update(await readFile(HOST_SOURCE));
  for (const name of programs) {
    const source = join(programsDir, `${name}.cbl`);
    if (!existsSync(source)) throw new CobolBuildError(`no COBOL source for program ${name} (${source})`);
    hash.update(name).update(await readFile(source));
  }
  const copybookDirs = options.copybookDirs ?? [COPYBOOKS_DIR];
  for (const dir of copybookDirs) {
    for (const copybook of (await readdir(dir)).filter((f) => /\.cpy$/i.test(f)).sort()) {
      hash
        .update(dir)
        .update(copybook)
        .update(await readFile(join(dir, copybook)));
    }
  }
  const dir = join(options.outDir, hash.digest('hex').slice(0, 16));
  const build: CobolBuild = { hostBinary: join(dir, 'cbhost'), libraryPath: dir };
  if (existsSync(build.hostBinary)) return build;

  await mkdir(options.outDir, { recursive: true, mode: 0o700 });
  const staging = await mkdtemp(join(options.outDir, '.build-'));
  try {
    await compile(['-x', '-o', join(staging, 'cbhost'), HOST_SOURCE], 'the program host (cbhost.c)');
    for (const name of programs) {
      await compile(
        [
          '-m',
          ...copybookDirs.flatMap((dir) => ['-I', dir]),
          '-o',
          join(staging, `${name}.so`),
          join(programsDir, `${name}.cbl`),
        ],
        `program ${name}`,
      );
    }
    await rename(staging, dir).catch(async (error: NodeJS.ErrnoException) => {
      // Another start built the same thing at the same time: use theirs.
      if (!existsSync(build.hostBinary)) throw error;
    });
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  return build;
}
