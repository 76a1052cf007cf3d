/**
 * `corebridge dataset decode|encode|verify`: a file of records (a mainframe data set in F, FB, V or VB format)
 * to JSON Lines, CSV or Parquet and back, as a stream, against a copybook.
 */
import { createWriteStream } from 'node:fs';
import { rename, stat, unlink } from 'node:fs/promises';
import { once } from 'node:events';
import { basename, dirname, join } from 'node:path';
import type { Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import type { Charset, CompiledLayout } from '@corebridge/records';
import { COMPILE_OPTIONS, COPYBOOK_OPTIONS } from '@corebridge/records/cli';
import {
  csvTable,
  decodeDataset,
  decodeDatasetJsonLines,
  encodeBatches,
  encodeJsonLines,
  exactDecoder,
  exactEncoder,
  formatVerifyReport,
  isVariable,
  nestSegments,
  readJsonLines,
  RECORD_FORMATS,
  SegmentedLayout,
  toCsvRows,
  toJsonLines,
  unnestSegments,
  verifyDataset,
  type DatasetError,
  type FramingOptions,
  type OnError,
  type RecordFormat,
} from '@corebridge/records/dataset';
import { progressOn } from './dataset/progress.ts';
import { layoutFromArgs } from './dataset/segments.ts';
import { decodeInThreads, noBytes, openPart, readRange, threadsFrom, type FileRange } from './dataset/parallel.ts';
import { UsageError, type Io } from './usage.ts';

export const DATASET_USAGE = `usage: corebridge dataset decode LAYOUT.cpy [--input FILE] [--output FILE] [--format jsonl|csv|parquet]
       corebridge dataset encode LAYOUT.cpy [--input FILE.jsonl] --output FILE
       corebridge dataset verify LAYOUT.cpy [--input FILE]   does the file match? exit 0 if so, else 1 and hints
Standard input and output when --input or --output is left out.

Progress:
  --quiet                       no progress bar and no summary on stderr

Record format:
  --recfm F|FB|V|VB             F/FB: records of one length; V: each after a 4-byte RDW; VB: blocks after a BDW (default F)
  --lrecl N                     F/FB: the record length (default: the layout's); V/VB: the longest record with its RDW
  --blksize N                   VB encode: the longest block with its BDW (default 32760)
  --rdw big|little              byte order of RDW and BDW lengths (default big, as z/OS writes them)
  --rdw-adjust N                added to each RDW's length: 0 when it counts its own 4 bytes (z/OS, default),
                                4 when it counts the data only (GnuCOBOL's variable files)

Decode:
  --format jsonl|csv|parquet    jsonl: one JSON record per line (default)
                                csv: RFC 4180, a header of flattened names (group_field, table_1 … table_max), then
                                  a line a record
                                parquet: groups as structs, OCCURS as lists, decimals as DECIMAL(p,s), integers as
                                  INT32/INT64 (binary: needs --output or a redirect)
  --on-error fail|skip|null     a record that does not decode: stop with its number, offset and field (default);
                                leave it out; or write null in its place. skip and null report each to --errors FILE
  --errors FILE                 JSON Lines report of the bad records ({record, offset, field, reason})
  --skip N  --limit N           pass over the first N records; stop after N records
  --threads N                   decode in N threads (this one and N-1 workers; jsonl and csv), output in order
                                (default: one per core for a file of 32 MB or more, else 1)
  --split k/n                   the k-th of n parts of the file (F/FB: records evenly; V/VB: the records or blocks
                                whose header starts in the k-th n-th of its bytes; V/VB record numbers count from 1
                                in the part); the n parts' outputs together are the whole file's
  --keep-bytes                  each line also keeps, under "@bytes", the bytes its fields do not say (FILLER content,
                                another sign nibble, slack past the record in an F slot), so that encode gives the file
                                back byte for byte; a line whose record re-encodes as it is has no "@bytes" (jsonl only)

Encode:
  a line's "@bytes" ([[offset, "hex", "was"], …]) is written over its record: what encode writes is the JSON's
  bytes, then, where they are still "was", the file's

Multi-segment files (decode, encode and verify):
  --segments FILE.json          {"field": "SEG-ID", "segments": {"C": "CUSTOMER-REC", "A": "ACCOUNT-REC"}}: the 01 record, or
                                REDEFINES view ("VIEW" or "VIEW OF RECORD"), each segment id names, or its own copybook
                                {"copybook": "account.cpy", "record": …, "view": …} (beside FILE.json; LAYOUT.cpy may
                                then be left out when every segment names one); a record is
                                {"customerRec": {…}}, a view's {"view": {header…, "view": {…}}}. "children":
                                {"ACCOUNT-REC": "CUSTOMER-REC"} nests each child in an array under the last record of its
                                parent. Parquet: a segment_id column and a struct column per segment

Copybook (as for corebridge copybook; --copybook-format is its --format):
${COPYBOOK_OPTIONS.replace('  --format fixed|free|auto      ', '  --copybook-format fixed|free|auto   ')}`;

const { format: _sourceFormat, ...COMPILE } = COMPILE_OPTIONS;
const OPTIONS = {
  ...COMPILE,
  'copybook-format': { type: 'string' },
  input: { type: 'string', short: 'i' },
  output: { type: 'string', short: 'o' },
  recfm: { type: 'string' },
  lrecl: { type: 'string' },
  blksize: { type: 'string' },
  rdw: { type: 'string' },
  'rdw-adjust': { type: 'string' },
  format: { type: 'string' },
  'on-error': { type: 'string' },
  errors: { type: 'string' },
  skip: { type: 'string' },
  limit: { type: 'string' },
  segments: { type: 'string' },
  threads: { type: 'string' },
  split: { type: 'string' },
  'keep-bytes': { type: 'boolean' },
  quiet: { type: 'boolean', short: 'q' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Values = ReturnType<typeof parse>['values'];

function parse(argv: string[]) {
  return parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
}

function oneOf<T extends string>(name: string, value: string | undefined, allowed: readonly T[]): T | undefined {
  if (value === undefined) return undefined;
  const upper = name === 'recfm' ? value.toUpperCase() : value;
  if (!(allowed as readonly string[]).includes(upper)) {
    throw new UsageError(`--${name} must be one of ${allowed.join(', ')} (got "${value}")`);
  }
  return upper as T;
}

function count(name: string, value: string | undefined, min: number): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < min || !Number.isSafeInteger(Number(value))) {
    throw new UsageError(`--${name} must be a whole number of at least ${min} (got "${value}")`);
  }
  return Number(value);
}

/** The record format from the options; F's length defaults to the layout's longest record. */
function framingFrom(values: Values, layout: CompiledLayout | SegmentedLayout): FramingOptions {
  const recfm: RecordFormat = oneOf('recfm', values.recfm, RECORD_FORMATS) ?? 'F';
  const lrecl = count('lrecl', values.lrecl, isVariable(recfm) ? 5 : 1);
  const blksize = count('blksize', values.blksize, 9);
  if (blksize !== undefined && recfm !== 'VB') throw new UsageError('--blksize applies to --recfm VB only');
  const rdw = oneOf('rdw', values.rdw, ['big', 'little'] as const);
  if (rdw !== undefined && !isVariable(recfm)) throw new UsageError('--rdw applies to --recfm V and VB only');
  const adjust = values['rdw-adjust'];
  if (adjust !== undefined && !isVariable(recfm)) throw new UsageError('--rdw-adjust applies to --recfm V and VB only');
  if (adjust !== undefined && !/^-?\d{1,5}$/.test(adjust)) {
    throw new UsageError(`--rdw-adjust must be a whole number, such as 4 (got "${adjust}")`);
  }
  if (!isVariable(recfm) && lrecl !== undefined && lrecl < layout.maxLength && layout.minLength === layout.maxLength) {
    throw new UsageError(`--lrecl ${lrecl} is shorter than the layout's ${layout.maxLength}-byte record`);
  }
  const rdwAdjust = adjust === undefined ? undefined : Number(adjust);
  return { recfm, lrecl: isVariable(recfm) ? lrecl : (lrecl ?? layout.maxLength), blksize, rdw, rdwAdjust };
}

/** Reads the source, counting its bytes for the progress bar. */
async function* counted(source: AsyncIterable<Uint8Array>, seen: { bytes: number }): AsyncGenerator<Uint8Array> {
  for await (const chunk of source) {
    seen.bytes += chunk.length;
    yield chunk;
  }
}

interface Output {
  write(chunk: string | Uint8Array): Promise<void>;
  /** Makes the output final: a file appears under its name only when everything was written. */
  commit(): Promise<void>;
  abort(): Promise<void>;
}

/**
 * Where a file is written before it is renamed to its name: beside it, so the rename is atomic. A target that is
 * not a regular file (/dev/null, a pipe) is written as it is: renaming over it would replace the device.
 */
async function stagingPath(path: string): Promise<string | undefined> {
  const target = await stat(path).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') return undefined;
    throw new UsageError(`cannot write ${path}: ${e.message}`, 1);
  });
  if (target !== undefined && !target.isFile()) return undefined;
  return join(dirname(path), `.${basename(path)}.${process.pid}.partial`);
}

/** A file written beside its final name and renamed at the end, so a failed run never leaves a partial file. */
async function openOutput(path: string | undefined, stdout: NodeJS.WritableStream): Promise<Output> {
  // until the bytes are handed to the system, so the caller may reuse its buffer (decodeDatasetJsonLines does)
  const write = (stream: NodeJS.WritableStream, chunk: string | Uint8Array) =>
    new Promise<void>((resolve, reject) => {
      stream.write(chunk, (e) => (e ? reject(e) : resolve()));
    });
  if (path === undefined) {
    return { write: (chunk) => write(stdout, chunk), commit: async () => {}, abort: async () => {} };
  }
  const partial = await stagingPath(path);
  const stream = createWriteStream(partial ?? path);
  await once(stream, 'open');
  const close = async () => {
    stream.end();
    await once(stream, 'close');
  };
  return {
    write: (chunk) => write(stream, chunk),
    commit: async () => {
      await close();
      if (partial !== undefined) await rename(partial, path);
    },
    abort: async () => {
      stream.destroy();
      if (partial !== undefined) await unlink(partial).catch(() => {});
    },
  };
}

/** The input: a file's byte range (its size known), or standard input; opened when read. */
interface Input {
  file?: FileRange | undefined;
  size?: number | undefined;
  /** Its bytes, in chunks of about `chunk` bytes when it is a file. */
  open(chunk: number): AsyncIterable<Uint8Array>;
}

/**
 * Chunks read at once: large where each record is written as bytes, so the per-chunk work is spread over many
 * records; smaller where each becomes an object first (CSV, Parquet), so a chunk's objects stay few.
 */
const BIG_CHUNK = 1 << 20;
const ROWS_CHUNK = 1 << 18;

async function inputOf(values: Values, io: Io): Promise<Input> {
  if (values.input === undefined || values.input === '-') return { open: () => io.stdin as AsyncIterable<Uint8Array> };
  let size: number;
  try {
    size = (await stat(values.input)).size;
  } catch (e) {
    const reason = (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message;
    throw new UsageError(`cannot read ${values.input}: ${reason}`, 1);
  }
  const file = { path: values.input, start: 0, end: size };
  return { file, size, open: (chunk) => readRange(file, chunk) };
}

/** Where decoded rows go, in the format asked for. */
interface RowSink {
  write(rows: Array<Record<string, unknown> | null>): Promise<void>;
  /** Lines already made in the sink's format (by threads); a Parquet sink takes none. */
  writeText(text: string | Uint8Array): Promise<void>;
  commit(): Promise<void>;
  abort(): Promise<void>;
}

async function openRows(
  format: OutputFormat,
  layout: CompiledLayout | SegmentedLayout,
  values: Values,
  io: Io,
): Promise<RowSink> {
  if (format === 'parquet') {
    if (values.output === undefined && (io.stdout as { isTTY?: boolean }).isTTY === true) {
      throw new UsageError('Parquet is binary: give --output FILE or redirect standard output');
    }
    const path = values.output;
    const partial = path === undefined ? undefined : await stagingPath(path);
    // the Parquet writer is loaded for this format only
    const { openParquet } = await import('./dataset/parquet.ts');
    const sink = await openParquet(path === undefined ? (io.stdout as Writable) : (partial ?? path), layout);
    return {
      write: (rows) => sink.write(rows),
      writeText: () => Promise.reject(new Error('only a JSON Lines output takes text')),
      commit: async () => {
        await sink.close();
        if (path !== undefined && partial !== undefined) await rename(partial, path);
      },
      abort: async () => {
        await sink.abort();
        if (partial !== undefined) await unlink(partial).catch(() => {});
      },
    };
  }
  if (format === 'csv') {
    let table;
    try {
      table = csvTable(layout);
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
    const output = await openOutput(values.output, io.stdout);
    await output.write(table.header);
    return {
      writeText: (text) => output.write(text),
      write: async (rows) => {
        if (rows.length > 0) await output.write(toCsvRows(table, rows));
      },
      commit: () => output.commit(),
      abort: () => output.abort(),
    };
  }
  const output = await openOutput(values.output, io.stdout);
  return {
    write: async (rows) => {
      if (rows.length > 0) await output.write(toJsonLines(rows));
    },
    writeText: (text) => output.write(text),
    commit: () => output.commit(),
    abort: () => output.abort(),
  };
}

const OUTPUT_FORMATS = ['jsonl', 'csv', 'parquet'] as const;
type OutputFormat = (typeof OUTPUT_FORMATS)[number];

async function decode(
  layout: CompiledLayout | SegmentedLayout,
  values: Values,
  io: Io,
  file: string | undefined,
): Promise<void> {
  const framing = framingFrom(values, layout);
  const onError: OnError = oneOf('on-error', values['on-error'], ['fail', 'skip', 'null'] as const) ?? 'fail';
  const format = oneOf('format', values.format, OUTPUT_FORMATS) ?? 'jsonl';
  const nested = layout instanceof SegmentedLayout && layout.nested;
  if (format === 'csv' && nested) {
    throw new UsageError('--format csv takes flat records: a segments file without "children"');
  }
  if (values.errors !== undefined && onError === 'fail') {
    throw new UsageError('--errors needs --on-error skip or null (fail stops at the first bad record)');
  }
  const keep = values['keep-bytes'] === true;
  if (keep && format !== 'jsonl') {
    throw new UsageError(`--keep-bytes writes JSON Lines: encode reads those, not ${format}`);
  }
  const decoder = keep ? exactDecoder(layout) : layout;
  const part = await openPart(values.input, values.split, framing);
  const input: Input =
    part === undefined
      ? await inputOf(values, io)
      : { file: part.file, size: part.file.end - part.file.start, open: (chunk) => readRange(part.file, chunk) };
  const { size } = input;
  const threads = threadsFrom(values.threads, size);
  const seen = { bytes: 0 };
  const progress = progressOn(io.stderr, size, values.quiet === true);
  const output = await openRows(format, layout, values, io);
  const report = values.errors === undefined ? undefined : await openOutput(values.errors, io.stdout);
  let written = 0;
  const bad: DatasetError[] = [];
  try {
    const decodeOptions = {
      framing,
      onError,
      skip: count('skip', values.skip, 0),
      limit: count('limit', values.limit, 1),
      start: part === undefined ? undefined : { number: part.number, offset: part.file.start },
    };
    const errorLines = (errors: readonly DatasetError[]) => errors.map((e) => `${JSON.stringify(e)}\n`).join('');
    // workers compile the layout themselves and write JSON Lines or CSV; Parquet and nested segments stay here
    if (threads > 1 && format !== 'parquet' && !nested) {
      // a file is read straight into the batches' buffers
      const source = input.file === undefined ? input.open(BIG_CHUNK) : noBytes();
      const onRead = (n: number) => (seen.bytes += n);
      const table = format === 'csv' ? csvTable(layout) : undefined;
      const setup = { file, args: values, keepBytes: keep, format, decoder, table, ...decodeOptions };
      for await (const done of decodeInThreads(source, { ...setup, threads, onRead, input: input.file })) {
        bad.push(...done.errors);
        await output.writeText(done.text);
        if (report !== undefined && done.errors.length > 0) await report.write(errorLines(done.errors));
        written += done.rows;
        progress.update(seen.bytes, written);
      }
    } else if (format === 'jsonl' && !nested) {
      // each record's JSON written straight into bytes, without the object in between
      const source = counted(input.open(BIG_CHUNK), seen);
      for await (const batch of decodeDatasetJsonLines(source, decoder, decodeOptions)) {
        bad.push(...batch.errors);
        if (batch.count > 0) await output.writeText(batch.lines);
        if (report !== undefined && batch.errors.length > 0) await report.write(errorLines(batch.errors));
        written += batch.count;
        progress.update(seen.bytes, written);
      }
    } else {
      let batches = decodeDataset(counted(input.open(ROWS_CHUNK), seen), decoder, decodeOptions);
      if (nested) batches = nestSegments(batches, layout, { onError });
      for await (const batch of batches) {
        const rows: Array<Record<string, unknown> | null> = [];
        const errors: DatasetError[] = [];
        for (const record of batch) {
          if (record.error !== undefined) {
            errors.push(record.error);
            if (onError === 'skip') continue;
          }
          rows.push(record.value);
        }
        bad.push(...errors);
        await output.write(rows);
        if (report !== undefined && errors.length > 0) await report.write(errorLines(errors));
        written += rows.length;
        progress.update(seen.bytes, written);
      }
    }
    await output.commit();
    await report?.commit();
  } catch (e) {
    await output.abort();
    await report?.abort();
    throw e;
  } finally {
    progress.stop();
  }
  if (values.quiet !== true) {
    const badText = bad.length === 0 ? '' : `; ${bad.length} bad (${onError === 'skip' ? 'left out' : 'null'})`;
    io.stderr.write(`decoded ${written} records${badText}\n`);
    if (bad.length > 0 && report === undefined) {
      for (const e of bad.slice(0, 10)) io.stderr.write(`  ${e.message}\n`);
      if (bad.length > 10) io.stderr.write(`  … and ${bad.length - 10} more (--errors FILE lists them all)\n`);
    }
  }
}

async function encode(layout: CompiledLayout | SegmentedLayout, values: Values, io: Io): Promise<void> {
  const framing = framingFrom(values, layout);
  if (values.output === undefined && (io.stdout as { isTTY?: boolean }).isTTY === true) {
    throw new UsageError('encode writes binary records: give --output FILE or redirect standard output');
  }
  const source = (await inputOf(values, io)).open(BIG_CHUNK);
  const output = await openOutput(values.output, io.stdout);
  let records = 0;
  try {
    // a line's "@bytes" (from decode --keep-bytes) is written over its record whenever it is there
    const { lrecl } = framing;
    const maxLength = isVariable(framing.recfm) && lrecl !== undefined ? lrecl - 4 : lrecl;
    const exact = exactEncoder(layout, { maxLength });
    if (layout instanceof SegmentedLayout && layout.nested) {
      const lines = unnestSegments(readJsonLines(source), layout);
      async function* countedLines() {
        for await (const batch of lines) {
          records += batch.length;
          yield batch;
        }
      }
      for await (const chunk of encodeBatches(countedLines(), exact, { framing })) await output.write(chunk);
    } else {
      // a compiled layout reads lines in its key order straight into records
      for await (const batch of encodeJsonLines(source, layout, { framing, fallback: exact })) {
        records += batch.records;
        if (batch.bytes.length > 0) await output.write(batch.bytes);
      }
    }
    await output.commit();
  } catch (e) {
    await output.abort();
    throw e;
  }
  if (values.quiet !== true) io.stderr.write(`encoded ${records} records\n`);
}

/**
 * Checks the whole file against the layout (with --segments, each record against its segment's): exit 0 when it
 * matches, 1 (with hints) when it does not.
 */
async function verify(
  layout: CompiledLayout | SegmentedLayout,
  file: string | undefined,
  values: Values,
  io: Io,
): Promise<number> {
  const framing = framingFrom(values, layout);
  const input = await inputOf(values, io);
  const compile = (encoding: Charset) => layoutFromArgs(file, values, encoding);
  const progress = progressOn(io.stderr, input.size, values.quiet === true);
  let report;
  try {
    report = await verifyDataset(() => input.open(BIG_CHUNK), layout, {
      framing,
      compile,
      onProgress: (bytes, records) => progress.update(bytes, records),
    });
  } finally {
    progress.stop();
  }
  io.stdout.write(formatVerifyReport(report));
  return report.matches ? 0 : 1;
}

export async function datasetCommand(argv: string[], io: Io): Promise<number> {
  let parsed;
  try {
    parsed = parse(argv);
  } catch (e) {
    throw new UsageError(`${(e as Error).message}\n\n${DATASET_USAGE}`);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout.write(DATASET_USAGE);
    return 0;
  }
  const [action, file, ...extra] = positionals;
  if (action !== 'decode' && action !== 'encode' && action !== 'verify') {
    const got = action === undefined ? '' : ` (got "${action}")`;
    throw new UsageError(`dataset needs decode, encode or verify${got}\n\n${DATASET_USAGE}`);
  }
  // --segments may name every segment's own copybook file
  if (file === undefined && values.segments === undefined) {
    throw new UsageError(`dataset ${action} needs a copybook file\n\n${DATASET_USAGE}`);
  }
  if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0]}"`);
  if (action !== 'decode' && (values.threads ?? values.split) !== undefined) {
    throw new UsageError('--threads and --split apply to decode only');
  }
  if (action !== 'decode' && values['keep-bytes'] !== undefined) {
    throw new UsageError('--keep-bytes applies to decode; encode writes a line\'s "@bytes" whenever it has one');
  }
  const layout = await layoutFromArgs(file, values);
  if (action === 'verify') return verify(layout, file, values, io);
  if (action === 'decode') await decode(layout, values, io, file);
  else await encode(layout, values, io);
  return 0;
}
