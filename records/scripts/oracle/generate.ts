/**
 * `npm run oracle`: regenerates test/fixtures/oracle from GnuCOBOL. For each case it writes a COBOL program
 * (scripts/oracle/cobol.ts), compiles it with `cobc -x`, runs it and stores the bytes it printed. Then it
 * checks our codec against the new fixtures and prints every disagreement; the fixtures keep what cobc
 * produced either way.
 *
 * Options: `--keep` leaves the generated programs in the work directory; `--only NAME` regenerates one case.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { charTable } from '../../src/charsets.ts';
import { compileCopybook } from '../../src/index.ts';
import { CASES } from './cases.ts';
import { cobolProgram, ebcdicTableProgram, HEX_MARK } from './cobol.ts';
import { generateDatasets } from './datasets.ts';
import { includesReader } from './includes.ts';
import type { EbcdicTableFixture, OracleCase, OracleFixture } from './fixture.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const outDir = join(root, 'test/fixtures/oracle');
const args = process.argv.slice(2);
const keep = args.includes('--keep');
const onlyAt = args.indexOf('--only');
const only = onlyAt >= 0 ? args[onlyAt + 1] : undefined;

function cobcVersion(): string {
  try {
    return execFileSync('cobc', ['--version'], { encoding: 'utf8' }).split('\n')[0]!.trim();
  } catch {
    console.error('cobc (GnuCOBOL) is not installed: apt-get install -y gnucobol3');
    process.exit(2);
  }
}

/** Compiles and runs a program; any compiler message (even a warning) fails, since cobc may have truncated a value. */
function compileAndRun(work: string, name: string, source: string, flags: string[], includeDir?: string): string {
  const src = join(work, `${name}.cob`);
  const exe = join(work, name);
  // one byte per character: cobc copies the bytes of a literal into the record (Latin-1 cases)
  // eslint-disable-next-line no-control-regex -- the range is Latin-1 whole, NUL included
  if (/[^\u0000-\u00ff]/.test(source)) throw new Error(`${name}: the program has characters outside Latin-1`);
  writeFileSync(src, source, 'latin1');
  try {
    const include = includeDir === undefined ? [] : ['-I', includeDir];
    const messages = execFileSync('cobc', [...flags, ...include, '-o', exe, src], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    if (messages.trim() !== '') throw new Error(messages);
  } catch (e) {
    const err = e as { stderr?: string; stdout?: string; message: string };
    throw new Error(`cobc failed for ${name} (${src}):\n${err.stderr ?? ''}${err.stdout ?? ''}${err.message}`, {
      cause: e,
    });
  }
  return execFileSync(exe, [], { encoding: 'utf8' });
}

function flagsOf(c: OracleCase): string[] {
  return ['-x', ...(c.flags ?? [])];
}

function generateCase(c: OracleCase, index: number, work: string, version: string): OracleFixture {
  const layout = compileCopybook(c.copybook.join('\n'), {
    ...c.options,
    fileName: `${c.name}.cpy`,
    ...(c.includes ? { readCopybook: includesReader(c.includes) } : {}),
  });
  // the copybooks COPY brings in go beside the program, found with -I (not in the flags: the path is temporary)
  let includeDir: string | undefined;
  if (c.includes) {
    includeDir = join(work, `case${index}-copy`);
    for (const [file, lines] of Object.entries(c.includes)) {
      mkdirSync(dirname(join(includeDir, file)), { recursive: true });
      writeFileSync(join(includeDir, file), `${lines.join('\n')}\n`, 'latin1');
    }
  }
  const source = cobolProgram({
    copybook: c.copybook,
    layout,
    vectors: c.vectors,
    ebcdicDisplay: c.ebcdic === true,
    freeFormat: c.options.format === 'free',
    ...(c.specialNames ? { specialNames: c.specialNames } : {}),
  });
  const flags = flagsOf(c);
  const output = compileAndRun(work, `case${index}`, source, flags, includeDir);
  const hexes = output
    .split('\n')
    .filter((l) => l.startsWith(HEX_MARK))
    .map((l) => l.slice(HEX_MARK.length).trim());
  if (hexes.length !== c.vectors.length)
    throw new Error(`${c.name}: expected ${c.vectors.length} dumps, got ${hexes.length}:\n${output}`);
  // through JSON, as the test reads it (-0 becomes 0)
  const fixture: OracleFixture = {
    name: c.name,
    description: c.description,
    copybook: c.copybook,
    ...(c.includes ? { includes: c.includes } : {}),
    options: c.options,
    cobc: {
      version,
      flags,
      ebcdicDisplay: c.ebcdic === true,
      ...(c.specialNames ? { specialNames: c.specialNames } : {}),
    },
    vectors: c.vectors.map((v, i) => ({
      name: v.name,
      values: v.values,
      ...(v.decoded ? { decoded: v.decoded } : {}),
      hex: hexes[i]!,
      ...(v.codecDiffers ? { codecDiffers: v.codecDiffers } : {}),
    })),
  };
  return JSON.parse(JSON.stringify(fixture)) as OracleFixture;
}

function generateEbcdicTable(work: string, version: string): EbcdicTableFixture {
  const flags = ['-x'];
  const output = compileAndRun(work, 'ebcdic_table', ebcdicTableProgram(), flags);
  const codes = output
    .split('\n')
    .filter((l) => /^\d+$/.test(l.trim()))
    .map((l) => Number(l.trim()));
  if (codes.length !== 256) throw new Error(`the EBCDIC table program printed ${codes.length} codes, not 256`);
  if (new Set(codes).size !== 256)
    throw new Error(
      "GnuCOBOL's EBCDIC alphabet is not a permutation: ranks repeat, so the translation by rank is invalid",
    );
  const cp037 = charTable('cp037');
  const differences: EbcdicTableFixture['differencesFromCp037'] = [];
  for (let b = 0x20; b < 0x7f; b++) {
    const ibm = cp037.encode[b]!;
    if (codes[b] !== ibm) {
      differences.push({ char: String.fromCharCode(b), ascii: hex(b), gnucobol: hex(codes[b]!), cp037: hex(ibm) });
    }
  }
  return {
    name: 'gnucobol-ebcdic-table',
    description:
      "GnuCOBOL's ALPHABET … IS EBCDIC, read by ranking all 256 bytes under PROGRAM COLLATING SEQUENCE; the cp037 fixtures translate DISPLAY bytes with it",
    cobc: { version, flags },
    table: Buffer.from(codes).toString('hex'),
    differencesFromCp037: differences,
  };
}

function hex(b: number): string {
  return b.toString(16).padStart(2, '0');
}

/** Our codec against one fixture: a line per disagreement. */
export function checkFixture(f: OracleFixture): string[] {
  const problems: string[] = [];
  let layout;
  try {
    layout = compileCopybook(f.copybook.join('\n'), {
      ...f.options,
      fileName: `${f.name}.cpy`,
      ...(f.includes ? { readCopybook: includesReader(f.includes) } : {}),
    });
  } catch (e) {
    return [`${f.name}: the codec cannot compile the copybook: ${String(e)}`];
  }
  for (const v of f.vectors) {
    const at = `${f.name} / ${v.name}`;
    try {
      const codecHex = layout.encode(v.values).toString('hex');
      const expected = v.codecDiffers?.hex ?? v.hex;
      if (codecHex !== expected)
        problems.push(
          `${at}: encode\n    cobc  ${v.hex}\n    codec ${codecHex}${v.codecDiffers ? `\n    expected codec difference ${expected}` : ''}`,
        );
      if (v.codecDiffers && v.codecDiffers.hex === v.hex)
        problems.push(`${at}: cobc now writes what the codec writes; remove codecDiffers`);
    } catch (e) {
      problems.push(`${at}: encode throws ${String(e)}`);
    }
    try {
      const decoded = layout.decode(Buffer.from(v.hex, 'hex'));
      const expected = v.decoded ?? v.values;
      if (!isDeepStrictEqual(decoded, expected))
        problems.push(
          `${at}: decode\n    expected ${JSON.stringify(expected)}\n    codec    ${JSON.stringify(decoded)}`,
        );
    } catch (e) {
      problems.push(`${at}: decode throws ${String(e)}`);
    }
  }
  return problems;
}

function main(): void {
  const version = cobcVersion();
  const work = mkdtempSync(join(tmpdir(), 'corebridge-oracle-'));
  mkdirSync(outDir, { recursive: true });
  const problems: string[] = [];
  const failures: string[] = [];
  let vectors = 0;
  try {
    for (const [index, c] of CASES.entries()) {
      if (only !== undefined && c.name !== only) continue;
      let fixture: OracleFixture;
      try {
        fixture = generateCase(c, index, work, version);
      } catch (e) {
        failures.push(`${c.name}: ${e instanceof Error ? e.message : String(e)}`);
        console.log(`FAIL ${c.name}`);
        continue;
      }
      writeFileSync(join(outDir, `${c.name}.json`), `${JSON.stringify(fixture, null, 2)}\n`);
      vectors += fixture.vectors.length;
      const found = checkFixture(fixture);
      problems.push(...found);
      console.log(`${found.length === 0 ? 'ok  ' : 'DIFF'} ${c.name} (${fixture.vectors.length} vectors)`);
    }
    const datasets = generateDatasets(work, version, only);
    failures.push(...datasets.failures);
    problems.push(...datasets.problems);
    if (only === undefined) {
      const table = generateEbcdicTable(work, version);
      writeFileSync(join(outDir, `${table.name}.json`), `${JSON.stringify(table, null, 2)}\n`);
      const diffs = table.differencesFromCp037.map((d) => `"${d.char}" gnucobol ${d.gnucobol} cp037 ${d.cp037}`);
      console.log(
        `EBCDIC table: ${diffs.length === 0 ? 'same as cp037 for printable ASCII' : `differs from cp037 for ${diffs.join(', ')}`}`,
      );
    }
  } finally {
    if (keep) console.log(`programs kept in ${work}`);
    else rmSync(work, { recursive: true, force: true });
  }
  console.log(`${vectors} vectors written to ${outDir} with ${version}`);
  if (failures.length > 0) {
    console.log(
      `\n${failures.length} case(s) could not be generated (their old fixtures are left as they were):\n${failures.join('\n')}`,
    );
    process.exitCode = 2;
  }
  if (problems.length > 0) {
    console.log(`\nthe codec disagrees with GnuCOBOL in ${problems.length} place(s):\n${problems.join('\n')}`);
    process.exitCode ??= 1;
  }
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
