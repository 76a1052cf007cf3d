/**
 * Does a file match its layout and record format? `verifyDataset` reads the whole file once, as decode would, and
 * says where it stops matching; when it does not match, it tries what would (another record format, RDW byte
 * order, record length or code page) on the first part of the file and says how sure each hint is.
 */
import { CHARSETS, charTable } from '../charsets.ts';
import type { Charset, LayoutItem } from '../types.ts';
import { decodeRawRecord, type RecordDecoder } from './decode.ts';
import { DatasetError } from './errors.ts';
import { isVariable, RecordReader, type FramingOptions, type RawRecord } from './framing.ts';
import { SegmentedLayout, type Segment } from './segments.ts';

export type HintConfidence = 'certain' | 'likely' | 'possible';

export interface VerifyHint {
  /** What the hint is about: the record format, the record length, the code page, or the file itself. */
  kind: 'format' | 'length' | 'encoding' | 'file';
  confidence: HintConfidence;
  /** Why, in words a user understands. */
  reason: string;
  /** The command-line flags that would make the file match; empty when no flag would, or when code pages tie. */
  flags: string[];
  /**
   * A code-page hint that cannot choose: the code pages that read the text equally well, most common first (each
   * is `--encoding` with it). `flags` is then empty.
   */
  encodings?: Charset[];
}

export interface VerifyReport {
  matches: boolean;
  /** The record format checked. */
  framing: FramingOptions;
  /** Records that decode, before the first that does not (all of them when the file matches). */
  records: number;
  /** Bytes in the file. */
  bytes: number;
  /** The first record that does not match: its number, offset, field and why. */
  failure?: DatasetError;
  /** Bytes from the failing record's offset to the end of the file. */
  rest?: number;
  /**
   * A multi-segment layout: the segment ids the segments file does not name, each with the first record that has
   * it (number and offset) and how many records have it, in the order met. Records are framed on past the first
   * failure to find them all (up to the first framing fault).
   */
  unknownSegments?: UnknownSegment[];
  /**
   * What would make the file match, surest first. For a file that matches, only a code page its text fields read
   * clearly better in (text decodes whatever its code page).
   */
  hints: VerifyHint[];
}

export interface UnknownSegment {
  id: string;
  record: number;
  offset: number;
  count: number;
}

/** A layout as verify uses it: decode and lengths; text fields and code page when it is a compiled layout. */
export type VerifyLayout = RecordDecoder & { root?: LayoutItem; profile?: { charset: Charset } };

export interface VerifyOptions {
  framing: FramingOptions;
  /** The layout compiled with another code page, to try code pages; without it verify only ranks them. */
  compile?: ((encoding: Charset) => VerifyLayout | Promise<VerifyLayout>) | undefined;
  /** Bytes at the start of the file kept for the hints (default 1 MiB). */
  sampleBytes?: number | undefined;
  /** Called after each chunk read with the bytes read and the records checked so far (a progress bar). */
  onProgress?: ((bytes: number, records: number) => void) | undefined;
}

/** Distinct unknown segment ids listed at most. */
const UNKNOWN_IDS = 20;

const DEFAULT_SAMPLE = 1 << 20;
/** Records of one trial decoded at most: enough to tell, few enough to try many lengths. */
const TRIAL_RECORDS = 500;
/** Bytes of text scored per code page. */
const TEXT_BYTES = 1 << 16;
const RANK: Record<HintConfidence, number> = { certain: 0, likely: 1, possible: 2 };

/**
 * Checks the whole file `open()` gives against `layout` in the record format of `options.framing`. Memory stays
 * flat: the file is read once as a stream, keeping only its first `sampleBytes` for the hints.
 */
export async function verifyDataset(
  open: () => AsyncIterable<Uint8Array>,
  layout: VerifyLayout,
  options: VerifyOptions,
): Promise<VerifyReport> {
  const framing = options.framing;
  const limit = options.sampleBytes ?? DEFAULT_SAMPLE;
  const reader = new RecordReader(framing);
  const variable = isVariable(framing.recfm);
  const kept: Uint8Array[] = [];
  let keptBytes = 0;
  let bytes = 0;
  let records = 0;
  let failure: DatasetError | undefined;
  const segmented = layout instanceof SegmentedLayout ? layout : undefined;
  const unknown = new Map<string, UnknownSegment>();
  // with segments, records are framed on past a failure to list every unknown segment id
  let framed = true;
  const unknownId = (record: RawRecord): boolean => {
    let id: string;
    try {
      segmented!.segmentOf(record.bytes);
      return false;
    } catch {
      try {
        id = segmented!.idOf(record.bytes);
      } catch {
        return false;
      }
    }
    const seen = unknown.get(id);
    if (seen !== undefined) seen.count++;
    else if (unknown.size < UNKNOWN_IDS)
      unknown.set(id, { id, record: record.number, offset: record.offset, count: 1 });
    return true;
  };
  for await (const chunk of open()) {
    bytes += chunk.length;
    if (keptBytes < limit) {
      const part = chunk.subarray(0, limit - keptBytes);
      kept.push(part.slice());
      keptBytes += part.length;
    }
    if (failure === undefined || (segmented !== undefined && framed)) {
      try {
        for (const record of reader.push(chunk)) {
          if (segmented !== undefined && unknownId(record) && failure !== undefined) continue;
          if (failure !== undefined) continue;
          try {
            decodeRawRecord(layout, record, variable);
            records++;
          } catch (e) {
            failure = asDatasetError(e);
            if (segmented === undefined) break;
          }
        }
      } catch (e) {
        const error = asDatasetError(e);
        failure ??= error;
        framed = false;
      }
    }
    options.onProgress?.(bytes, records);
  }
  if (framed) {
    try {
      reader.end();
    } catch (e) {
      failure ??= asDatasetError(e);
    }
  }
  const sample = concat(kept, keptBytes);
  const unknownSegments = segmented === undefined ? {} : { unknownSegments: [...unknown.values()] };
  if (failure === undefined) {
    // text-only layouts decode any bytes: a file can match and still be in another code page
    const hints = await new Hinter(layout, options, sample, bytes, undefined).codePageHints();
    return { matches: true, framing, records, bytes, hints, ...unknownSegments };
  }
  const hints = await new Hinter(layout, options, sample, bytes, failure).hints();
  const rest = bytes - failure.offset;
  return { matches: false, framing, records: failure.record - 1, bytes, failure, rest, hints, ...unknownSegments };
}

function asDatasetError(e: unknown): DatasetError {
  if (e instanceof DatasetError) return e;
  throw e;
}

function concat(parts: Uint8Array[], length: number): Uint8Array {
  const out = new Uint8Array(length);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** The record format in words: `F lrecl 80`, `V with little-endian RDWs`. */
export function describeFraming(framing: FramingOptions): string {
  if (!isVariable(framing.recfm)) return `${framing.recfm} lrecl ${framing.lrecl}`;
  const order = framing.rdw === 'little' ? 'little-endian' : 'big-endian';
  const lrecl = framing.lrecl === undefined ? '' : ` lrecl ${framing.lrecl}`;
  const adjust = framing.rdwAdjust ? `, RDW lengths ${framing.rdwAdjust > 0 ? '+' : ''}${framing.rdwAdjust}` : '';
  return `${framing.recfm}${lrecl}, ${order} ${framing.recfm === 'VB' ? 'BDWs and RDWs' : 'RDWs'}${adjust}`;
}

function framingFlags(framing: FramingOptions, current: FramingOptions): string[] {
  const flags = ['--recfm', framing.recfm];
  if (isVariable(framing.recfm)) {
    if (framing.rdw === 'little') flags.push('--rdw', 'little');
    if (framing.rdwAdjust) flags.push('--rdw-adjust', String(framing.rdwAdjust));
  } else if (framing.lrecl !== undefined && (framing.lrecl !== current.lrecl || isVariable(current.recfm))) {
    flags.push('--lrecl', String(framing.lrecl));
  }
  return flags;
}

/** A record format tried on the sample: its records (up to the first framing fault) and whether it held. */
interface Trial {
  framing: FramingOptions;
  records: RawRecord[];
  /** The framing held over the whole sample (and ended exactly, when the sample is the whole file). */
  framed: boolean;
}

interface Decoded {
  /** Records decoded before the first failure. */
  ok: number;
  error: DatasetError | undefined;
}

interface CodePageScore {
  charset: Charset;
  score: number;
  current: number;
  /** Other code pages that score as well. */
  ties: Charset[];
}

/** Code pages preferred among those that decode the text alike, most common first (the older of a pair first). */
const PREFERRED: readonly Charset[] = [
  'ascii',
  'latin1',
  'cp037',
  'cp1140',
  'cp500',
  'cp1148',
  'cp1047',
  'cp273',
  'cp1141',
  'cp297',
  'cp1147',
  'cp285',
  'cp1146',
  'cp280',
  'cp1144',
  'cp284',
  'cp1145',
  'cp277',
  'cp1142',
  'cp278',
  'cp1143',
  'cp871',
  'cp1149',
  'cp1026',
  'cp1155',
];

/** A stable order for any code pages: the preferred first, then the rest as the codec lists them. */
function commonness(charset: Charset): number {
  const i = PREFERRED.indexOf(charset);
  return i >= 0 ? i : PREFERRED.length + CHARSETS.indexOf(charset);
}

/** Code pages named in a tie before the rest are counted. */
const NAMED = 5;

/** Code pages for `--encoding`, as the report prints them: `cp277, cp1142 or cp278`, `cp037, cp1140…(47)`. */
function listEncodings(charsets: readonly Charset[]): string {
  if (charsets.length === 1) return charsets[0]!;
  if (charsets.length <= NAMED) return `${charsets.slice(0, -1).join(', ')} or ${charsets.at(-1)!}`;
  return `${charsets.slice(0, NAMED).join(', ')}… (${charsets.length} code pages)`;
}

/** The code pages of a tie in a reason (the hint's flags name them). */
function eachOf(n: number): string {
  return n === 2 ? 'both code pages' : `each of the ${n} code pages`;
}

/** A page's words scored: the share that read as words, and a word it reads where the page compared does not. */
interface WordScore {
  charset: Charset;
  score: number;
  example: [string, string] | undefined;
}

interface WordRanking {
  /** Words scanned that hold a byte the family's code pages read differently. */
  words: number;
  scores: WordScore[];
}

interface TextField {
  offset: number;
  length: number;
}

class Hinter {
  readonly #layout: VerifyLayout;
  readonly #options: VerifyOptions;
  readonly #sample: Uint8Array;
  readonly #size: number;
  readonly #failure: DatasetError | undefined;
  /** The sample holds the whole file. */
  readonly #complete: boolean;
  readonly #fields: TextField[];
  /** Per segment of a multi-segment layout: its text fields. */
  readonly #segmentFields = new Map<Segment, TextField[]>();
  readonly #decoders = new Map<Charset, VerifyLayout | null>();
  readonly #current: Charset | undefined;

  constructor(
    layout: VerifyLayout,
    options: VerifyOptions,
    sample: Uint8Array,
    size: number,
    failure: DatasetError | undefined,
  ) {
    this.#layout = layout;
    this.#options = options;
    this.#sample = sample;
    this.#size = size;
    this.#failure = failure;
    this.#complete = sample.length === size;
    if (layout instanceof SegmentedLayout) {
      // a record whose segment id is unknown (perhaps read in the wrong code page) still has the id's text
      this.#fields = [{ offset: layout.field.offset, length: layout.field.length }];
      this.#current = layout.segments[0]?.layout.profile?.charset;
    } else {
      this.#fields = layout.root === undefined ? [] : textFields(layout.root, layout.minLength);
      this.#current = layout.profile?.charset;
    }
  }

  async hints(): Promise<VerifyHint[]> {
    const framing = this.#options.framing;
    const hints: VerifyHint[] = [];
    const format = await this.#formatHints();
    hints.push(...format);
    const current = this.#trial(framing);
    if (!isVariable(framing.recfm) && !format.some((h) => h.confidence !== 'possible')) {
      const text = await this.#textFileHint();
      if (text !== undefined) hints.push(text.hint);
      // the record length is right when the records decode in another code page: that hint says so
      const otherCodePage =
        current.framed && current.records.length > 0 && (await this.#decodes(current)) !== undefined;
      if (text?.fixed !== true && !otherCodePage) hints.push(...(await this.#lengthHints()));
    }
    // the code page is judged on records framed as the file is: by the current format when it holds
    const best = format.length > 0 ? this.#bestTrial : undefined;
    const records = current.framed ? current.records : (best?.records ?? current.records);
    const encoding = (await this.#encodingHint(records)) ?? (await this.#wordHint(records));
    if (encoding !== undefined) hints.push(encoding);
    if (hints.length === 0) {
      const later = this.#laterHint();
      if (later !== undefined) hints.push(later);
    }
    return hints.sort((a, b) => RANK[a.confidence] - RANK[b.confidence]);
  }

  #bestTrial: Trial | undefined;

  /** For a file that matches: a code page its text fields read clearly better in. */
  async codePageHints(): Promise<VerifyHint[]> {
    const records = this.#trial(this.#options.framing).records;
    const hint = await this.#encodingHint(records);
    if (hint?.confidence === 'likely') return [hint];
    const words = await this.#wordHint(records);
    return words === undefined ? [] : [words];
  }

  /** V, VB (either byte order) and F at the layout's length, other than the format checked. */
  async #formatHints(): Promise<VerifyHint[]> {
    const current = this.#options.framing;
    const length = this.#layout.maxLength;
    const candidates: FramingOptions[] = [
      { recfm: 'V', rdw: 'big' },
      { recfm: 'V', rdw: 'little' },
      { recfm: 'VB', rdw: 'big' },
      { recfm: 'VB', rdw: 'little' },
      // lengths of the data alone, as GnuCOBOL writes its variable files
      { recfm: 'V', rdw: 'big', rdwAdjust: 4 },
      { recfm: 'V', rdw: 'little', rdwAdjust: 4 },
    ];
    if (this.#layout.minLength === length) candidates.push({ recfm: 'F', lrecl: length });
    const found: { hint: VerifyHint; trial: Trial; records: number }[] = [];
    for (const framing of candidates) {
      if (sameFraming(framing, current)) continue;
      const fixed = !isVariable(framing.recfm);
      if (fixed && this.#size % length !== 0) continue;
      const trial = this.#trial(framing);
      if (!trial.framed || trial.records.length === 0) continue;
      const fits = trial.records.every(
        (r) => r.bytes.length >= this.#layout.minLength && r.bytes.length <= this.#layout.maxLength,
      );
      // a fixed layout in a V file: every record its length or longer (decode reads its first bytes)
      if (!fixed && !fits && trial.records.some((r) => r.bytes.length < this.#layout.minLength)) continue;
      const result = await this.#decodes(trial);
      if (result === undefined) continue;
      const n = trial.records.length;
      const textOk = result.text === undefined || result.text >= 0.8;
      if (fixed && !textOk) continue;
      let confidence: HintConfidence = this.#complete ? 'certain' : n >= 4 ? 'likely' : 'possible';
      if (!fits || (fixed && result.text === undefined && confidence === 'certain')) confidence = 'likely';
      if (fixed && n < 4) confidence = 'possible';
      const where = this.#complete ? 'the whole file' : `the first ${this.#sample.length} bytes`;
      let reason: string;
      if (fixed) {
        reason = `the file's ${this.#size} bytes are ${this.#size / length} records of ${length} bytes, and the ${n} records in ${where} decode`;
      } else {
        const order = framing.rdw === 'little' ? 'little-endian' : 'big-endian';
        const headers = framing.recfm === 'VB' ? 'records (RDW) in blocks (BDW)' : 'records (RDW)';
        const counting = framing.rdwAdjust ? ' that count the data only (as GnuCOBOL writes them)' : '';
        reason = `${where} reads as ${framing.recfm}: ${n} ${headers} with ${order} lengths${counting}, that end exactly where the next begins, and decode`;
        if (!fits) reason += ` (some records are longer than the layout's ${this.#layout.maxLength} bytes)`;
      }
      const flags = framingFlags(framing, current);
      if (result.encoding !== undefined) {
        flags.push('--encoding', result.encoding);
        reason += ` with code page ${result.encoding}`;
        if ((result.alike ?? 1) > 1) reason += ` (or another that reads its text alike: see the code-page hint)`;
      }
      found.push({ hint: { kind: 'format', confidence, reason, flags }, trial, records: n });
    }
    found.sort((a, b) => RANK[a.hint.confidence] - RANK[b.hint.confidence] || b.records - a.records);
    this.#bestTrial = found[0]?.trial;
    return found.slice(0, 2).map((f) => f.hint);
  }

  /**
   * Lines of text: a file transferred in text mode (converted to ASCII, a line end after each record). Lines of
   * one length read as F with that length; lines of different lengths (trailing spaces cut) cannot.
   */
  async #textFileHint(): Promise<{ hint: VerifyHint; fixed: boolean } | undefined> {
    const s = this.#sample;
    const ends: number[] = [];
    for (let i = 0; i < s.length && ends.length < 1000; i++) if (s[i] === 0x0a) ends.push(i);
    if (ends.length < 2) return undefined;
    let printable = 0;
    const scanned = Math.min(s.length, ends[ends.length - 1]! + 1);
    for (let i = 0; i < scanned; i++) {
      const b = s[i]!;
      if ((b >= 0x20 && b < 0x7f) || b === 0x0a || b === 0x0d) printable++;
    }
    const crlf = ends.every((e) => e > 0 && s[e - 1] === 0x0d);
    const lengths = ends.map((e, i) => e + 1 - (i === 0 ? 0 : ends[i - 1]! + 1));
    const min = Math.min(...lengths);
    const max = Math.max(...lengths);
    // line ends at one period are telling even with some binary fields; lines of any length need text throughout
    if (printable / scanned < (min === max ? 0.8 : 0.95)) return undefined;
    const term = crlf ? 'CR LF' : 'LF';
    const intro = `this looks like a text file with line ends (${term}), not a binary data set: was it transferred in text mode?`;
    if (min === max && max >= this.#layout.maxLength) {
      const trial = this.#trial({ recfm: 'F', lrecl: max });
      const result = trial.framed ? await this.#decodes(trial) : undefined;
      const flags = ['--lrecl', String(max)];
      if (result?.encoding !== undefined) flags.push('--encoding', result.encoding);
      const reason = `${intro} Every line is ${max} bytes with its ${term}: transfer it in binary, or read it with ${flags.join(' ')}`;
      const confidence: HintConfidence = result !== undefined ? 'likely' : 'possible';
      return { hint: { kind: 'file', confidence, reason, flags }, fixed: true };
    }
    const reason = `${intro} Its lines are ${min} to ${max} bytes long, so no record length reads it: transfer it again in binary`;
    return { hint: { kind: 'file', confidence: 'likely', reason, flags: [] }, fixed: false };
  }

  /** F: a record length that divides the file and makes its first records decode, best aligned first. */
  async #lengthHints(): Promise<VerifyHint[]> {
    const current = this.#options.framing;
    const size = this.#size;
    const min = this.#layout.minLength;
    const max = Math.min(size, Math.max(this.#layout.maxLength * 4, 256), 32760);
    const base = periodicity(this.#sample, current.lrecl ?? this.#layout.maxLength);
    const found: { lrecl: number; p: number; n: number; encoding: Charset | undefined; alike: number }[] = [];
    for (let lrecl = Math.max(min, 1); lrecl <= max; lrecl++) {
      if (size % lrecl !== 0 || lrecl === current.lrecl) continue;
      const trial = this.#trial({ recfm: current.recfm, lrecl }, lrecl * TRIAL_RECORDS);
      if (!trial.framed || trial.records.length === 0) continue;
      const result = await this.#decodes(trial);
      if (result === undefined || (result.text !== undefined && result.text < 0.8)) continue;
      const { encoding, alike = 1 } = result;
      found.push({ lrecl, p: periodicity(this.#sample, lrecl), n: trial.records.length, encoding, alike });
    }
    if (found.length === 0) return [];
    const top = Math.max(...found.map((f) => f.p));
    const aligned = found.find((f) => f.p >= top - 0.02)!;
    // a multiple of the record length also divides the file and decodes (its first record): take the shortest
    // length the best aligned is a multiple of, when its own records decode and line up better than the length checked
    const best = found.find((f) => aligned.lrecl % f.lrecl === 0 && f.p >= base + 0.05) ?? aligned;
    // no better aligned than the length checked (a multiple of it only skips records): not a hint
    if (best.p < base + 0.05) return [];
    const n = best.n;
    const others = this.#otherLengths(best.lrecl, found);
    let confidence: HintConfidence = 'possible';
    if (n >= 4 && best.p >= 0.3 && best.p - base >= 0.2) {
      confidence = this.#complete && others.lengths.length === 0 ? 'certain' : 'likely';
    }
    const near = best.lrecl - this.#layout.maxLength;
    const records = size / best.lrecl;
    let reason = `${best.lrecl}-byte records divide the file's ${size} bytes (${records} records)`;
    reason += `, the first ${Math.min(n, TRIAL_RECORDS)} decode`;
    if (best.p > base)
      reason += `, and the bytes repeat with that period (${pct(best.p)} vs ${pct(base)} at ${current.lrecl})`;
    if (others.lengths.length > 0) reason += `; ${others.why}`;
    if (near > 0 && near <= 2)
      reason += `; ${near} byte${near > 1 ? 's' : ''} more than the layout: a line end after each record?`;
    else if (near > 0) reason += `; the layout describes the first ${this.#layout.maxLength} bytes of each`;
    const flags = ['--lrecl', String(best.lrecl)];
    if (best.encoding !== undefined) {
      flags.push('--encoding', best.encoding);
      if (best.alike > 1)
        reason += `; code page ${best.encoding}, or another that reads its text alike: see the code-page hint`;
    }
    return [{ kind: 'length', confidence, reason, flags }];
  }

  /**
   * Other record lengths that read the file as well as `lrecl`: its multiples when the records repeat (every
   * record alike, or a cycle of a few), so the bytes cannot tell one record from several; and lengths that are
   * not its multiples but decode and line up as well.
   */
  #otherLengths(lrecl: number, found: readonly { lrecl: number; p: number }[]): { lengths: number[]; why: string } {
    const size = this.#size;
    const slots = Math.min(Math.floor(this.#sample.length / lrecl), TRIAL_RECORDS);
    const cycle = recordCycle(this.#sample, lrecl, slots);
    const p = found.find((f) => f.lrecl === lrecl)!.p;
    const unrelated = found.filter((f) => f.lrecl % lrecl !== 0 && f.p >= p - 0.02).map((f) => f.lrecl);
    const multiples: number[] = [];
    if (cycle !== undefined) {
      for (let k = cycle; multiples.length < 3 && k * lrecl <= size && k <= 100_000; k += cycle) {
        if (k > 1 && size % (k * lrecl) === 0) multiples.push(k * lrecl);
      }
    }
    const lengths = [...multiples, ...unrelated];
    if (lengths.length === 0) return { lengths, why: '' };
    const list = (ls: number[]) => ls.join(', ');
    const parts: string[] = [];
    if (multiples.length > 0) {
      const alike = cycle === 1 ? 'every record is the same' : `the records repeat every ${cycle}`;
      parts.push(`${alike}, so ${list(multiples)}-byte records read it as well (the shortest is taken)`);
    }
    if (unrelated.length > 0) parts.push(`${list(unrelated)}-byte records decode and line up as well`);
    return { lengths, why: parts.join('; ') };
  }

  /**
   * Text fields that read as text in another code page and not in this one. Among EBCDIC pages that put their
   * letters at the same bytes, the words with national letters rank them; when they cannot, the hint names them
   * all and says it cannot choose.
   */
  async #encodingHint(records: RawRecord[]): Promise<VerifyHint | undefined> {
    const score = this.#codePages(records);
    if (score === undefined || this.#current === undefined || score.charset === this.#current) return undefined;
    if (score.score - score.current < 0.1) return undefined;
    const table = charTable(score.charset);
    const { ranked, words } = this.#ranked(records, score);
    const { decoding, tried } = await this.#decoding(records, ranked);
    const candidates = decoding.length > 0 ? decoding : ranked.slice(0, 1);
    const decodes = decoding.length > 0;
    const best = candidates[0]!;
    const text = this.#textScore(records, best)!;
    const margin = text - score.current;
    if (margin < 0.1) return undefined;
    let confidence: HintConfidence = 'possible';
    if (margin >= 0.25 && text >= 0.9 && (decodes || this.#options.compile === undefined)) confidence = 'likely';
    const tie = candidates.length > 1;
    // pages of the family are ranked above; the others that print as well are named as before
    const family = table.ebcdic ? siblings(best) : [];
    const ties = score.ties.filter((c) => !family.includes(c));
    const alike =
      tie || ties.length === 0 ? '' : ` (as do ${ties.slice(0, 4).join(', ')}${ties.length > 4 ? '…' : ''})`;
    const where = tie ? eachOf(candidates.length) : best;
    let reason = `the text fields read as ${pct(text)} printable text in ${where}${alike}, against ${pct(score.current)} in ${this.#current}`;
    if (tried) {
      const them = tie ? 'them' : 'it';
      reason += decodes ? `, and the records decode with ${them}` : ', but the records still do not decode';
    }
    if (words !== undefined) {
      const share = `${pct(words.top.score)} of ${words.ranking.words}`;
      reason += tie
        ? `; their words with national letters or symbols read as words in each (${share})`
        : `; its words with national letters or symbols read as words (${share})`;
    }
    if (tie) return this.#tieHint(records, candidates, confidence, reason);
    return { kind: 'encoding', confidence, reason, flags: ['--encoding', best] };
  }

  /**
   * The code pages that read the text as well as `score`'s best, surest first: the EBCDIC pages that share its
   * letters ranked by their words with national letters; with no such word, every page that prints it as well.
   */
  #ranked(
    records: RawRecord[],
    score: CodePageScore,
  ): { ranked: Charset[]; words?: { ranking: WordRanking; top: WordScore } } {
    const table = charTable(score.charset);
    // ascii and latin1 agree on every byte ascii maps: naming ascii claims nothing latin1 would read otherwise
    if (!table.ebcdic || table.dbcs !== undefined) return { ranked: [score.charset] };
    const ranking = this.#rankWords(records, score.charset);
    if (ranking !== undefined && ranking.words >= 3) {
      const tied = tiedWords(ranking);
      return { ranked: tied.map((x) => x.charset), words: { ranking, top: tied[0]! } };
    }
    const family = siblings(score.charset);
    const ranked = [score.charset, ...score.ties]
      .filter((c) => family.includes(c))
      .sort((a, b) => commonness(a) - commonness(b));
    return { ranked };
  }

  /** The file matches up to a record after the first: what the fault there may mean. */
  #laterHint(): VerifyHint | undefined {
    const f = this.#failure;
    if (f === undefined) return undefined;
    const before = f.record - 1;
    const layout = this.#layout;
    if (
      layout instanceof SegmentedLayout &&
      f.field === layout.field.name &&
      / is not in the segments file/.test(f.reason)
    ) {
      const reason = `record ${f.record} has a segment id the segments file does not name: add it to "segments" with the 01 record that lays it out, or leave such records out with dataset decode --on-error skip --errors FILE`;
      return { kind: 'file', confidence: 'possible', reason, flags: [] };
    }
    if (before < 1) return undefined;
    const match = `the ${before} record${before === 1 ? '' : 's'} before byte ${f.offset} match`;
    let reason: string;
    if (f.reason.startsWith('the file ends')) {
      reason = `${match} and ${this.#size - f.offset} bytes are left over: the file may be cut short (an interrupted transfer?)`;
    } else if (f.field !== undefined) {
      reason = `${match}: record ${f.record} holds data the layout does not describe there (bad data, or a record of another type?); dataset decode --on-error skip --errors FILE lists every such record`;
    } else {
      reason = `${match}, then the headers stop chaining: the file may be damaged there, or two files joined`;
    }
    return { kind: 'file', confidence: 'possible', reason, flags: [] };
  }

  /** Frames the sample, or its first `bytes`, in `framing`. */
  #trial(framing: FramingOptions, bytes = Infinity): Trial {
    const part = bytes < this.#sample.length ? this.#sample.subarray(0, bytes) : this.#sample;
    let reader: RecordReader;
    try {
      reader = new RecordReader(framing);
    } catch {
      return { framing, records: [], framed: false };
    }
    try {
      const records = reader.push(part);
      if (this.#complete && part === this.#sample) reader.end();
      return { framing, records, framed: true };
    } catch (e) {
      asDatasetError(e);
      return { framing, records: [], framed: false };
    }
  }

  /**
   * Whether the trial's first records decode with this code page, or else with the code page their text reads
   * best in; with the share of printable text in their text fields.
   */
  async #decodes(
    trial: Trial,
  ): Promise<{ encoding: Charset | undefined; text: number | undefined; alike?: number } | undefined> {
    const header = isVariable(trial.framing.recfm) ? 4 : 0;
    const records = trial.records.slice(0, TRIAL_RECORDS);
    const text = this.#current === undefined ? undefined : this.#textScore(records, this.#current);
    if (this.#decode(records, this.#layout, header).error === undefined) return { encoding: undefined, text };
    const best = this.#codePages(records);
    if (best === undefined || best.charset === this.#current) return undefined;
    const { ranked } = this.#ranked(records, best);
    for (const charset of ranked) {
      const decoder = await this.#decoder(charset);
      if (decoder === undefined || this.#decode(records, decoder, header).error !== undefined) continue;
      return { encoding: charset, text: this.#textScore(records, charset), alike: ranked.length };
    }
    return undefined;
  }

  #decode(records: RawRecord[], decoder: RecordDecoder, header: number): Decoded {
    let ok = 0;
    for (const record of records) {
      try {
        decodeRawRecord(decoder, record, header > 0);
      } catch (e) {
        return { ok, error: asDatasetError(e) };
      }
      ok++;
    }
    return { ok, error: undefined };
  }

  async #decoder(charset: Charset): Promise<VerifyLayout | undefined> {
    if (this.#options.compile === undefined) return undefined;
    if (!this.#decoders.has(charset)) {
      let decoder: VerifyLayout | null = null;
      try {
        decoder = await this.#options.compile(charset);
      } catch {
        // a code page the layout cannot use (zoned decimal needs its digits): not a candidate
      }
      this.#decoders.set(charset, decoder);
    }
    return this.#decoders.get(charset) ?? undefined;
  }

  /** The code page the records' text fields read best in, against the current one. */
  #codePages(records: RawRecord[]): CodePageScore | undefined {
    if (this.#current === undefined || records.length === 0 || this.#textScore(records, this.#current) === undefined)
      return undefined;
    const scores = CHARSETS.map((charset) => ({ charset, score: this.#textScore(records, charset)! }));
    const top = Math.max(...scores.map((s) => s.score));
    const current = scores.find((s) => s.charset === this.#current)!.score;
    const alike = scores.filter((s) => s.score >= top - 0.005).map((s) => s.charset);
    if (alike.includes(this.#current)) return { charset: this.#current, score: current, current, ties: [] };
    const charset = PREFERRED.find((c) => alike.includes(c)) ?? alike[0]!;
    return { charset, score: top, current, ties: alike.filter((c) => c !== charset) };
  }

  /** The text fields of a record: its segment's, for a multi-segment layout. */
  #fieldsOf(record: RawRecord): readonly TextField[] {
    const layout = this.#layout;
    if (!(layout instanceof SegmentedLayout)) return this.#fields;
    let segment: Segment;
    try {
      segment = layout.segmentOf(record.bytes);
    } catch {
      return this.#fields;
    }
    let fields = this.#segmentFields.get(segment);
    if (fields === undefined) {
      fields = textFields(segment.layout.root, segment.layout.minLength);
      this.#segmentFields.set(segment, fields);
    }
    return fields;
  }

  /**
   * Text that decodes alike in the code pages that share its letters, digits and space (cp037, cp273, cp297…)
   * differs in its accented letters and symbols: the code page whose words read as words, where this one puts
   * symbols inside them (cp273's `MÜNCHEN` is `M!NCHEN` in cp1140). Pages that read them as words alike (cp277
   * and cp278 put Danish and Swedish letters at the same bytes) are named together.
   */
  async #wordHint(records: RawRecord[]): Promise<VerifyHint | undefined> {
    const current = this.#current;
    if (current === undefined || records.length === 0) return undefined;
    const ranking = this.#rankWords(records, current);
    if (ranking === undefined || ranking.words < 3) return undefined;
    const alike = tiedWords(ranking);
    if (alike.some((x) => x.charset === current)) return undefined;
    const mine = ranking.scores.find((x) => x.charset === current)!.score;
    const margin = alike[0]!.score - mine;
    if (margin < 0.3) return undefined;
    const { decoding, tried } = await this.#decoding(
      records,
      alike.map((x) => x.charset),
    );
    const decodes = decoding.length > 0;
    const candidates = decodes ? alike.filter((x) => decoding.includes(x.charset)) : alike.slice(0, 1);
    const best = candidates[0]!;
    let confidence: HintConfidence = 'possible';
    const words = ranking.words;
    if (words >= 10 && margin >= 0.5 && best.score >= 0.8 && (decodes || this.#options.compile === undefined))
      confidence = 'likely';
    const tie = candidates.length > 1;
    const where = tie ? eachOf(candidates.length) : best.charset;
    let reason = `the words of the text fields with accented letters or symbols read as words in ${where}: ${pct(best.score)} of ${words}, against ${pct(mine)} in ${current}`;
    const example = candidates.find((x) => x.example !== undefined)?.example;
    if (example !== undefined) reason += ` (${quote(example[0])}, not ${quote(example[1])})`;
    if (tried) {
      const them = tie ? 'them' : 'it';
      reason += decodes ? `; the records decode with ${them}` : '; but the records do not decode with it';
    }
    if (tie)
      return this.#tieHint(
        records,
        candidates.map((x) => x.charset),
        confidence,
        reason,
      );
    return { kind: 'encoding', confidence, reason, flags: ['--encoding', best.charset] };
  }

  /**
   * Code pages the text cannot choose among: named, most common first, with the readings that tell them apart
   * when the text has them, so that whoever knows the data can choose.
   */
  #tieHint(records: RawRecord[], charsets: Charset[], confidence: HintConfidence, reason: string): VerifyHint {
    const readings = this.#readings(records, charsets);
    if (readings === undefined) {
      reason += `; they differ only in letters and symbols this text does not use, so it cannot tell which one wrote it`;
    } else {
      const shown = readings.map(([c, text]) => `${quote(text)} in ${c}`).join(', ');
      reason += `; they read its national letters differently (${shown}), and the text cannot tell which is right`;
    }
    reason += `: use the code page of the system that wrote the file`;
    return { kind: 'encoding', confidence, reason, flags: [], encodings: charsets };
  }

  /** The code pages among `charsets` the layout compiles with and the records decode with; tried: compile was given. */
  async #decoding(records: RawRecord[], charsets: Charset[]): Promise<{ decoding: Charset[]; tried: boolean }> {
    if (this.#options.compile === undefined) return { decoding: charsets, tried: false };
    const header = isVariable(this.#options.framing.recfm) ? 4 : 0;
    const decoding: Charset[] = [];
    for (const charset of charsets) {
      const decoder = await this.#decoder(charset);
      if (decoder !== undefined && this.#decode(records, decoder, header).error === undefined) decoding.push(charset);
    }
    return { decoding, tried: true };
  }

  /**
   * Each blank-separated word of the text fields that holds a byte for which `variant` is 1, with its bytes, until
   * `visit` returns true or enough text is read.
   */
  #eachWord(
    records: RawRecord[],
    space: number,
    variant: Uint8Array,
    visit: (bytes: Uint8Array, start: number, end: number) => boolean | void,
  ): void {
    let scanned = 0;
    let words = 0;
    for (const record of records) {
      const bytes = record.bytes;
      for (const f of this.#fieldsOf(record)) {
        const end = Math.min(f.offset + f.length, bytes.length);
        scanned += Math.max(0, end - f.offset);
        let start = f.offset;
        for (let i = f.offset; i <= end; i++) {
          if (i < end && bytes[i] !== space) continue;
          let differs = false;
          for (let j = start; j < i && !differs; j++) differs = variant[bytes[j]!] === 1;
          if (differs) {
            words++;
            if (visit(bytes, start, i) === true) return;
          }
          start = i + 1;
        }
      }
      if (scanned >= TEXT_BYTES * 4 || words >= 5000) return;
    }
  }

  /**
   * How the words that hold a byte the code pages sharing `base`'s letters read differently read in each of them
   * (the share that read as words); undefined when no other page shares them.
   */
  #rankWords(records: RawRecord[], base: Charset): WordRanking | undefined {
    const family = siblings(base);
    if (family.length < 2) return undefined;
    const tables = family.map((c) => charTable(c).decode);
    const here = family.indexOf(base);
    const sums = new Float64Array(family.length);
    const examples: ([string, string] | undefined)[] = family.map(() => undefined);
    let words = 0;
    this.#eachWord(records, charTable(base).space, variantBytes(tables), (bytes, start, end) => {
      words++;
      const texts = tables.map((t) => decodeWord(t, bytes, start, end));
      const scores = texts.map(wordScore);
      scores.forEach((score, k) => {
        sums[k]! += score;
        if (examples[k] === undefined && score >= 0.9 && scores[here]! <= 0.1) examples[k] = [texts[k]!, texts[here]!];
      });
    });
    const scores = family.map((charset, k) => ({
      charset,
      score: words === 0 ? 0 : sums[k]! / words,
      example: examples[k],
    }));
    return { words, scores };
  }

  /**
   * The first word the code pages read differently, as each distinct reading (up to four, in the pages' order);
   * undefined when they read the text alike.
   */
  #readings(records: RawRecord[], charsets: Charset[]): [Charset, string][] | undefined {
    const tables = charsets.map((c) => charTable(c).decode);
    let found: [Charset, string][] | undefined;
    this.#eachWord(records, charTable(charsets[0]!).space, variantBytes(tables), (bytes, start, end) => {
      const seen = new Set<string>();
      found = [];
      charsets.forEach((c, k) => {
        const text = decodeWord(tables[k]!, bytes, start, end);
        if (!seen.has(text) && found!.length < 4) found!.push([c, text]);
        seen.add(text);
      });
      return true;
    });
    return found;
  }

  /** The share of the text fields' bytes that read as printable text in `charset`. */
  #textScore(records: RawRecord[], charset: Charset): number | undefined {
    const weights = printableWeights(charset);
    let total = 0;
    let good = 0;
    for (const record of records) {
      for (const f of this.#fieldsOf(record)) {
        const end = Math.min(f.offset + f.length, record.bytes.length);
        for (let i = f.offset; i < end; i++) good += weights[record.bytes[i]!]!;
        total += Math.max(0, end - f.offset);
      }
      if (total >= TEXT_BYTES) break;
    }
    return total === 0 ? undefined : good / total;
  }
}

function sameFraming(a: FramingOptions, b: FramingOptions): boolean {
  if (isVariable(a.recfm) !== isVariable(b.recfm)) return false;
  if (!isVariable(a.recfm)) return a.lrecl === b.lrecl;
  return a.recfm === b.recfm && (a.rdw ?? 'big') === (b.rdw ?? 'big') && (a.rdwAdjust ?? 0) === (b.rdwAdjust ?? 0);
}

function pct(share: number): string {
  return `${Math.round(share * 100)}%`;
}

/** Share of bytes equal to the byte `period` further: high when records of that length line up their fields. */
function periodicity(sample: Uint8Array, period: number): number {
  const end = Math.min(sample.length, TEXT_BYTES) - period;
  if (end <= 0) return 0;
  let same = 0;
  for (let i = 0; i < end; i++) if (sample[i] === sample[i + period]) same++;
  return same / end;
}

/**
 * The fewest records after which the first `slots` records of `length` bytes repeat byte for byte (1: all the
 * same), when they repeat at least twice over; undefined when they do not.
 */
function recordCycle(sample: Uint8Array, length: number, slots: number): number | undefined {
  const same = (a: number, b: number) => {
    for (let i = 0; i < length; i++) if (sample[a * length + i] !== sample[b * length + i]) return false;
    return true;
  };
  for (let k = 1; 2 * k <= slots && k <= 16; k++) {
    let all = true;
    for (let i = 0; i + k < slots && all; i++) all = same(i, i + k);
    if (all) return k;
  }
  return undefined;
}

/** The single-byte code pages with the bytes of `charset` for A–Z, a–z, 0–9 and space (itself among them). */
function siblings(charset: Charset): Charset[] {
  const mine = charTable(charset);
  if (mine.dbcs !== undefined) return [charset];
  const shared = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789 '].map((ch) => [
    mine.encode[ch.charCodeAt(0)]!,
    ch,
  ]);
  return CHARSETS.filter((c) => {
    const table = charTable(c);
    return (
      table.ebcdic === mine.ebcdic &&
      table.dbcs === undefined &&
      shared.every(([b, ch]) => table.decode[b as number] === ch)
    );
  });
}

/** 1 for each byte some of these code pages read differently. */
function variantBytes(tables: readonly (readonly string[])[]): Uint8Array {
  const variant = new Uint8Array(256);
  for (let b = 0; b < 256; b++) variant[b] = tables.some((t) => t[b] !== tables[0]![b]) ? 1 : 0;
  return variant;
}

function decodeWord(table: readonly string[], bytes: Uint8Array, start: number, end: number): string {
  let text = '';
  for (let j = start; j < end; j++) text += table[bytes[j]!]!;
  return text;
}

/**
 * The code pages whose words read as well as the best's, best first, then most common first: within less than two
 * words' worth (a word one page reads as a word and another with a symbol in it tells them apart).
 */
function tiedWords(ranking: WordRanking): WordScore[] {
  const top = Math.max(...ranking.scores.map((x) => x.score));
  return ranking.scores
    .filter((x) => (top - x.score) * ranking.words < 1.5)
    .sort((a, b) => b.score - a.score || commonness(a.charset) - commonness(b.charset));
}

const EDGE = /^[.,;:!?'"()\-/&*+%#<>=_$€£¥]+|[.,;:!?'"()\-/&*+%#<>=_$€£¥]+$/gu;
const WORD = /^[\p{L}\p{N}]+(?:[.,'\-/&+_][\p{L}\p{N}]+)*$/u;
const EMAIL = /^[\p{L}\p{N}._%+-]+@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)*\.\p{L}{2,}$/u;

/**
 * How plausible a blank-separated word is as text: 1 for a word of letters and digits (joined by - ' . / &), an
 * amount or an e-mail address, in punctuation; 0 with a symbol or a control inside it (`M!NCHEN`, `CAF{`).
 * Letters outside Latin-1, and a letter of the other case inside a word, count a little less, so that of two
 * code pages that both give letters the more usual reading wins.
 */
function wordScore(text: string): number {
  const core = text.replace(EDGE, '');
  if (core === '') return 1;
  if (EMAIL.test(core)) return 1;
  if (!WORD.test(core)) return 0;
  let score = 1;
  const chars = [...core];
  let ascii = false;
  let other = false;
  for (const ch of chars) {
    if (/[A-Za-z]/.test(ch)) ascii = true;
    else if (ch > '\u024f' && /\p{L}/u.test(ch)) other = true;
  }
  chars.forEach((ch, i) => {
    const code = ch.codePointAt(0)!;
    if (code < 0x80 || !/\p{L}/u.test(ch)) return;
    if (code > 0xff) score = Math.min(score, code <= 0x24f ? 0.9 : ascii && other ? 0.5 : 0.9);
    const before = chars[i - 1];
    const after = chars[i + 1];
    const inWord = before !== undefined && after !== undefined && isLetter(before) && isLetter(after);
    if (inWord && isUpper(before) === isUpper(after)) {
      if (isUpper(ch) !== isUpper(before)) score = Math.min(score, 0.8);
    }
  });
  return score;
}

function isLetter(ch: string): boolean {
  return /\p{L}/u.test(ch);
}

function isUpper(ch: string): boolean {
  return ch !== ch.toLowerCase();
}

function quote(text: string): string {
  return JSON.stringify(text);
}

const WEIGHTS = new Map<Charset, Float32Array>();

/** Per byte: 1 for printable ASCII, ½ for another letter (é, Ä, Cyrillic), 0 for controls and the unmapped. */
function printableWeights(charset: Charset): Float32Array {
  let weights = WEIGHTS.get(charset);
  if (weights === undefined) {
    const table = charTable(charset);
    weights = new Float32Array(256);
    for (let b = 0; b < 256; b++) {
      const ch = table.decode[b]!;
      const code = ch.charCodeAt(0);
      weights[b] = code >= 0x20 && code < 0x7f ? 1 : /\p{L}/u.test(ch) ? 0.5 : 0;
    }
    WEIGHTS.set(charset, weights);
  }
  return weights;
}

/**
 * The alphanumeric DISPLAY fields at fixed places in every record: not behind a table that varies, not in a
 * REDEFINES view (which may hold anything), within the shortest record.
 */
function textFields(root: LayoutItem, minLength: number): { offset: number; length: number }[] {
  const out: { offset: number; length: number }[] = [];
  const walk = (item: LayoutItem, hidden: boolean) => {
    const children = item.children ?? [];
    const redefined = new Set(children.map((c) => c.redefines).filter((r) => r !== undefined));
    for (const child of children) {
      const skip =
        hidden ||
        child.redefines !== undefined ||
        redefined.has(child.cobolName) ||
        child.afterOdo !== undefined ||
        child.renames !== undefined;
      if (child.children !== undefined && child.children.length > 0) walk(child, skip);
      else if (
        !skip &&
        (child.kind === 'alphanumeric' || child.kind === 'alphabetic') &&
        child.usage === 'display' &&
        child.offset + child.length <= minLength
      ) {
        out.push({ offset: child.offset, length: child.length });
      }
    }
  };
  walk(root, false);
  return out;
}

/** The report in a few lines, for the command line. */
export function formatVerifyReport(report: VerifyReport): string {
  const format = describeFraming(report.framing);
  const ok = `OK: ${report.records} records, ${report.bytes} bytes, ${format}\n`;
  if (report.matches && report.hints.length === 0) return ok;
  if (report.matches) {
    const hints = report.hints.map((h) => `  ${h.confidence}: ${hintFlags(h)}${h.reason}\n`);
    return `${ok}but its text reads better in another code page:\n${hints.join('')}`;
  }
  const f = report.failure!;
  const field = f.field === undefined ? '' : `, ${f.field}`;
  const lines = [
    `does not match at record ${f.record} (byte ${f.offset}${field}): ${f.reason}`,
    `  read as ${format}: ${report.records} ${report.records === 1 ? 'record matches' : 'records match'} before it; ${report.rest} of the file's ${report.bytes} bytes are from there on`,
  ];
  const unknown = report.unknownSegments ?? [];
  if (unknown.length > 0) {
    const ids = unknown.map(
      (u) =>
        `${JSON.stringify(u.id)} at record ${u.record} (byte ${u.offset}), ${u.count} record${u.count === 1 ? '' : 's'}`,
    );
    lines.push(`  segment ids not in the segments file: ${ids.join('; ')}`);
  }
  if (report.hints.length === 0)
    lines.push('no hint: no other record format, length or code page reads the start of the file');
  else lines.push('hints:');
  for (const h of report.hints) lines.push(`  ${h.confidence}: ${hintFlags(h)}${h.reason}`);
  return `${lines.join('\n')}\n`;
}

/** A hint's flags before its reason: `--recfm V: `; the code pages of a tie, `--encoding cp277, cp278 or cp1142: `. */
function hintFlags(hint: VerifyHint): string {
  if (hint.encodings !== undefined && hint.encodings.length > 0) return `--encoding ${listEncodings(hint.encodings)}: `;
  return hint.flags.length === 0 ? '' : `${hint.flags.join(' ')}: `;
}
