/**
 * Data set fixtures from GnuCOBOL (part of `npm run oracle`, or `node records/scripts/oracle/datasets.ts
 * [--only NAME] [--keep]` alone): for each case a COBOL program (datasets-cobol.ts) MOVEs the records' values,
 * DISPLAYs every item and WRITEs the records to a sequential file. The generator checks that COBOL's DISPLAY
 * agrees with the values and that the file splits into the records the program wrote, then stores the file as
 * test/fixtures/datasets/<name>.dat beside <name>.json, and prints where the record codec disagrees.
 */
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { compileCopybook, type LayoutItem } from '../../src/index.ts';
import { DATASET_CASES } from './datasets-cases.ts';
import { DATA_FILE, datasetProgram, leavesOf, LENGTH_MARK, VALUE_MARK } from './datasets-cobol.ts';
import type { DatasetCase, DatasetFixture } from './datasets-fixture.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const DATASETS_DIR = join(root, 'test/fixtures/datasets');
/** Cases whose records hold bytes their JSON cannot say (`overwrite`): they come back only through `@bytes`. */
export const EXACT_DATASETS_DIR = join(DATASETS_DIR, 'exact');

/** GnuCOBOL's header length counts the data only; an IBM RDW counts its own 4 bytes too. */
const GNUCOBOL_RDW_ADJUSTMENT = 4;

/** A decimal as text without sign of zero, leading zeros or trailing fractional zeros: `-012.30` → `-12.3`. */
function canonicalDecimal(text: string): string | undefined {
  const m = /^([+-]?)(\d*)(?:\.(\d*))?$/.exec(text.trim());
  if (m === null || (m[2] === '' && (m[3] ?? '') === '')) return undefined;
  const int = m[2]!.replace(/^0+/, '') || '0';
  const frac = (m[3] ?? '').replace(/0+$/, '');
  const abs = frac === '' ? int : `${int}.${frac}`;
  return m[1] === '-' && abs !== '0' ? `-${abs}` : abs;
}

/** Does COBOL's DISPLAY of an item show the JSON value? */
function displayAgrees(item: LayoutItem, value: unknown, shown: string): boolean {
  if (item.kind === 'numeric') {
    const expected = canonicalDecimal(typeof value === 'number' ? decimalOfNumber(value) : String(value));
    return expected !== undefined && canonicalDecimal(shown) === expected;
  }
  return shown.replace(/ +$/, '') === value;
}

function decimalOfNumber(n: number): string {
  const s = String(n);
  if (!/e/i.test(s)) return s;
  return n.toFixed(20);
}

/** The records of a GnuCOBOL sequential file, split by its framing. */
function splitFile(c: DatasetCase, file: Buffer, lrecl: number, count: number): Buffer[] {
  if (c.recfm === 'F') {
    if (file.length !== lrecl * count)
      throw new Error(`${file.length} bytes, not ${count} records of ${lrecl}: cobc wrote something besides records`);
    return Array.from({ length: count }, (_, i) => file.subarray(i * lrecl, (i + 1) * lrecl));
  }
  const out: Buffer[] = [];
  let at = 0;
  while (at < file.length) {
    if (at + 4 > file.length) throw new Error(`a partial header at byte ${at}`);
    const length = c.varseq === 2 ? file.readUInt32LE(at) : file.readUInt16BE(at);
    if (c.varseq !== 2 && file.readUInt16BE(at + 2) !== 0)
      throw new Error(`header at byte ${at}: bytes 3-4 are not zero (${file.subarray(at, at + 4).toString('hex')})`);
    if (at + 4 + length > file.length) throw new Error(`the record at byte ${at} runs past the end`);
    out.push(file.subarray(at + 4, at + 4 + length));
    at += 4 + length;
  }
  return out;
}

function generateDataset(c: DatasetCase, work: string, version: string): { fixture: DatasetFixture; data: Buffer } {
  const layout = compileCopybook(c.copybook.join('\n'), { ...c.options, fileName: `${c.name}.cpy` });
  const dir = join(work, c.name);
  mkdirSync(dir, { recursive: true });
  const source = datasetProgram({
    copybook: c.copybook,
    layout,
    records: c.records,
    variable: c.recfm === 'V',
    ebcdicDisplay: c.ebcdic === true,
    overwrite: c.overwrite,
  });
  const src = join(dir, 'dataset.cob');
  // eslint-disable-next-line no-control-regex -- the range is Latin-1 whole, NUL included
  if (/[^\u0000-\u00ff]/.test(source)) throw new Error('the program has characters outside Latin-1');
  writeFileSync(src, source, 'latin1');
  const flags = ['-x', ...(c.flags ?? [])];
  try {
    const messages = execFileSync('cobc', [...flags, '-o', join(dir, 'dataset'), src], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    if (messages.trim() !== '') throw new Error(messages);
  } catch (e) {
    const err = e as { stderr?: string; stdout?: string; message: string };
    throw new Error(`cobc failed (${src}):\n${err.stderr ?? ''}${err.stdout ?? ''}${err.message}`, { cause: e });
  }
  // the header format is set here, whatever runtime.cfg or the caller's environment say
  const runtime: Record<string, string> = c.recfm === 'V' ? { COB_VARSEQ_FORMAT: String(c.varseq ?? 0) } : {};
  const env: NodeJS.ProcessEnv = { ...process.env, ...runtime };
  delete env.COB_FILE_PATH;
  const output = execFileSync(join(dir, 'dataset'), [], { cwd: dir, env, encoding: 'latin1' });

  // COBOL's view of every item must be the value: DISPLAY shows what the MOVE stored
  const shown = new Map<string, string>();
  const lengths: number[] = [];
  for (const l of output.split('\n')) {
    if (l.startsWith(VALUE_MARK)) {
      const m = /^(\d+) ([^=]+)=(.*)\|$/s.exec(l.slice(VALUE_MARK.length));
      if (m === null) throw new Error(`cannot read the DISPLAY line ${JSON.stringify(l)}`);
      shown.set(`${m[1]} ${m[2]}`, m[3]!);
    } else if (l.startsWith(LENGTH_MARK)) {
      lengths.push(Number(l.slice(LENGTH_MARK.length).trim().split(/\s+/)[1]));
    }
  }
  if (lengths.length !== c.records.length)
    throw new Error(`the program wrote ${lengths.length} records, not ${c.records.length}:\n${output}`);
  for (const [r, values] of c.records.entries()) {
    for (const leaf of leavesOf(layout.root, values)) {
      const s = shown.get(`${r + 1} ${leaf.path}`);
      if (s === undefined) throw new Error(`record ${r + 1}: no DISPLAY of ${leaf.path}`);
      if (!displayAgrees(leaf.item, leaf.value, s))
        throw new Error(
          `record ${r + 1} ${leaf.path}: COBOL shows ${JSON.stringify(s)}, the case says ${JSON.stringify(leaf.value)}`,
        );
    }
  }

  const data = readFileSync(join(dir, DATA_FILE));
  const parts = splitFile(c, data, layout.maxLength, c.records.length);
  if (parts.length !== lengths.length || parts.some((p, i) => p.length !== lengths[i]))
    throw new Error(
      `the file's records have lengths ${parts.map((p) => p.length).join(',')}, the program wrote ${lengths.join(',')}`,
    );
  const fixture: DatasetFixture = {
    name: c.name,
    description: c.description,
    copybook: c.copybook,
    options: c.options,
    framing:
      c.recfm === 'F'
        ? { recfm: 'F', lrecl: layout.maxLength }
        : { recfm: 'V', rdw: c.varseq === 2 ? 'little' : 'big' },
    ...(c.recfm === 'V' ? { rdwAdjustment: GNUCOBOL_RDW_ADJUSTMENT } : {}),
    cobc: { version, flags, env: runtime, ebcdicDisplay: c.ebcdic === true },
    file: { name: `${c.name}.dat`, bytes: data.length, sha256: createHash('sha256').update(data).digest('hex') },
    lengths,
    records: c.records,
    ...(c.overwrite === undefined ? {} : { overwritten: overwrittenBytes(c.overwrite, parts) }),
  };
  return { fixture: JSON.parse(JSON.stringify(fixture)) as DatasetFixture, data };
}

/** The file's bytes where the program overwrote each record (after any translation to EBCDIC). */
function overwrittenBytes(overwrite: Array<Array<[number, string]>>, parts: Buffer[]): Array<Array<[number, string]>> {
  return parts.map((part, r) =>
    (overwrite[r] ?? []).map(([offset, hex]): [number, string] => [
      offset,
      part.toString('hex', offset, offset + hex.length / 2),
    ]),
  );
}

/** The GnuCOBOL file header of one record, for a fixture's V framing (records shorter than 64 KiB). */
export function gnucobolHeader(fixture: DatasetFixture, length: number): Buffer {
  const header = Buffer.alloc(4);
  if (fixture.framing.rdw === 'little') header.writeUInt32LE(length);
  else header.writeUInt16BE(length);
  return header;
}

/** The record codec against a fixture's file, record by record (no data set reader needed): a line per disagreement. */
export function checkDatasetFixture(f: DatasetFixture, data: Buffer): string[] {
  const problems: string[] = [];
  const layout = compileCopybook(f.copybook.join('\n'), { ...f.options, fileName: `${f.name}.cpy` });
  let at = 0;
  for (const [i, values] of f.records.entries()) {
    const length = f.lengths[i]!;
    const start = f.framing.recfm === 'V' ? at + 4 : at;
    const bytes = data.subarray(start, start + length);
    at = start + length;
    try {
      const decoded = layout.decode(bytes);
      if (!isDeepStrictEqual(decoded, values))
        problems.push(
          `${f.name} record ${i + 1}: decode\n    expected ${JSON.stringify(values)}\n    codec    ${JSON.stringify(decoded)}`,
        );
    } catch (e) {
      problems.push(`${f.name} record ${i + 1}: decode throws ${String(e)}`);
    }
    try {
      // bytes the program overwrote are the file's own: the codec must agree on every other byte
      const encoded = Buffer.from(layout.encode(values));
      for (const [offset, hex] of f.overwritten?.[i] ?? []) encoded.write(hex, offset, 'hex');
      if (!encoded.equals(bytes))
        problems.push(
          `${f.name} record ${i + 1}: encode\n    cobc  ${bytes.toString('hex')}\n    codec ${encoded.toString('hex')}`,
        );
    } catch (e) {
      problems.push(`${f.name} record ${i + 1}: encode throws ${String(e)}`);
    }
  }
  return problems;
}

/** Regenerates the data set fixtures (all, or the case `only`); returns failures and the codec's disagreements. */
export function generateDatasets(
  work: string,
  version: string,
  only?: string,
): { failures: string[]; problems: string[]; records: number } {
  mkdirSync(DATASETS_DIR, { recursive: true });
  const failures: string[] = [];
  const problems: string[] = [];
  let records = 0;
  for (const c of DATASET_CASES) {
    if (only !== undefined && c.name !== only) continue;
    let generated: { fixture: DatasetFixture; data: Buffer };
    try {
      generated = generateDataset(c, work, version);
    } catch (e) {
      failures.push(`${c.name}: ${e instanceof Error ? e.message : String(e)}`);
      console.log(`FAIL ${c.name}`);
      continue;
    }
    const { fixture, data } = generated;
    const into = c.overwrite === undefined ? DATASETS_DIR : EXACT_DATASETS_DIR;
    mkdirSync(into, { recursive: true });
    writeFileSync(join(into, fixture.file.name), data);
    writeFileSync(join(into, `${c.name}.json`), `${JSON.stringify(fixture, null, 2)}\n`);
    records += fixture.records.length;
    const found = checkDatasetFixture(fixture, data);
    problems.push(...found);
    console.log(
      `${found.length === 0 ? 'ok  ' : 'DIFF'} ${c.name} (${fixture.framing.recfm}, ${fixture.records.length} records, ${data.length} bytes)`,
    );
  }
  return { failures, problems, records };
}

function main(): void {
  const args = process.argv.slice(2);
  const onlyAt = args.indexOf('--only');
  const only = onlyAt >= 0 ? args[onlyAt + 1] : undefined;
  const version = execFileSync('cobc', ['--version'], { encoding: 'utf8' }).split('\n')[0]!.trim();
  const work = mkdtempSync(join(tmpdir(), 'corebridge-datasets-'));
  try {
    const { failures, problems, records } = generateDatasets(work, version, only);
    console.log(`${records} records written to ${DATASETS_DIR} with ${version}`);
    if (failures.length > 0) {
      console.log(`\n${failures.length} case(s) could not be generated:\n${failures.join('\n')}`);
      process.exitCode = 2;
    }
    if (problems.length > 0) {
      console.log(`\nthe codec disagrees with GnuCOBOL in ${problems.length} place(s):\n${problems.join('\n')}`);
      process.exitCode ??= 1;
    }
  } finally {
    if (args.includes('--keep')) console.log(`programs kept in ${work}`);
    else rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
