/**
 * Generates the EBCDIC code page tables in records/src/codepages/ebcdic/ from glibc's iconv (`npm run codepages`):
 * every byte decoded, every decoded character encoded back, by iconv itself, so the tables are iconv's.
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as prettier from 'prettier';
import type { CodePageSource, DbcsSource } from '../../src/codepages/source.ts';
import { fromUtf16be, iconv, iconvVersion, toUtf16be } from './iconv.ts';
import { DBCS_PAGES, SBCS_PAGES, SHIFT_IN, SHIFT_OUT } from './pages.ts';

export const OUT_DIR = join(dirname(fileURLToPath(import.meta.url)), '../../src/codepages/ebcdic');
const UNMAPPED = 0xffff;
/** A byte every EBCDIC page decodes to LF, marking where one character's output ends. */
const MARK = 0x25;

/** Byte → code unit by iconv, UNMAPPED where it refuses the byte. */
function sbcsDecode(name: string, mixed: boolean): number[] {
  const units = new Array<number>(256).fill(UNMAPPED);
  const bytes = Array.from({ length: 256 }, (_, b) => b).filter((b) => !mixed || (b !== SHIFT_OUT && b !== SHIFT_IN));
  // each byte then MARK, with -c: a byte iconv refuses leaves an empty piece
  const others = bytes.filter((b) => b !== MARK);
  const pieces = fromUtf16be(iconv(name, 'UTF-16BE', Buffer.from(others.flatMap((b) => [b, MARK])), true).out);
  const split = pieces.split('\n');
  if (split.length !== others.length + 1) throw new Error(`${name}: ${split.length - 1} pieces for ${others.length}`);
  const mapped = [MARK, ...others.filter((_, i) => split[i] !== '')];
  // the bytes it maps, again all at once and without -c: one code unit each
  const strict = iconv(name, 'UTF-16BE', Buffer.from(mapped));
  const text = fromUtf16be(strict.out);
  if (!strict.ok || text.length !== mapped.length) throw new Error(`${name}: a byte is not one code unit`);
  mapped.forEach((b, i) => (units[b] = text.charCodeAt(i)));
  return units;
}

/** Splits iconv's encoding of characters each followed by MARK into each character's bytes. */
function encodeEach(name: string, chars: string[], mixed: boolean): number[][] {
  const run = iconv('UTF-16BE', name, toUtf16be(chars.join('\n')));
  if (!run.ok) throw new Error(`${name}: iconv refuses to encode a character it decodes: ${run.stderr}`);
  const out: number[][] = [[]];
  let shifted = false;
  for (let i = 0; i < run.out.length; i++) {
    const b = run.out[i]!;
    if (mixed && b === SHIFT_OUT) shifted = true;
    else if (mixed && b === SHIFT_IN) shifted = false;
    else if (shifted) out[out.length - 1]!.push((b << 8) | run.out[++i]!);
    else if (b === MARK) out.push([]);
    else out[out.length - 1]!.push(b);
  }
  if (out.length !== chars.length) throw new Error(`${name}: ${out.length} encodings for ${chars.length} characters`);
  return out;
}

/** Where several bytes decode to one unit, the byte iconv encodes it to. */
function sbcsEncode(name: string, units: number[], mixed: boolean): number[] {
  const from = new Map<number, number[]>();
  units.forEach((u, b) => u !== UNMAPPED && from.set(u, [...(from.get(u) ?? []), b]));
  const shared = [...from].filter(([, bytes]) => bytes.length > 1).map(([u]) => u);
  if (shared.length === 0) return [];
  const encoded = encodeEach(
    name,
    shared.map((u) => String.fromCharCode(u)),
    mixed,
  );
  return shared.flatMap((u, i) => {
    const bytes = encoded[i]!;
    if (bytes.length !== 1 || !from.get(u)!.includes(bytes[0]!)) throw new Error(`${name}: U+${u} encodes apart`);
    return [u, bytes[0]!];
  });
}

function dbcs(name: string, sbcs: number[]): DbcsSource {
  // each code alone between SO and SI, then MARK: -c drops the codes iconv refuses, leaving an empty piece
  const codes: number[] = [];
  for (let lead = 0x40; lead <= 0xfe; lead++)
    for (let trail = 0x40; trail <= 0xfe; trail++) codes.push(lead * 256 + trail);
  const input = Buffer.from(codes.flatMap((c) => [SHIFT_OUT, c >> 8, c & 0xff, SHIFT_IN, MARK]));
  const pieces = fromUtf16be(iconv(name, 'UTF-16BE', input, true).out).split('\n');
  if (pieces.length !== codes.length + 1) throw new Error(`${name}: ${pieces.length - 1} pieces for ${codes.length}`);
  const valid = codes.map((code, i) => [code, pieces[i]!] as const).filter(([, text]) => text !== '');
  // the valid codes again, all in one shift-out run and without -c: iconv must decode them to the same
  const strict = iconv(
    name,
    'UTF-16BE',
    Buffer.from([SHIFT_OUT, ...valid.flatMap(([c]) => [c >> 8, c & 0xff]), SHIFT_IN]),
  );
  if (!strict.ok || fromUtf16be(strict.out) !== valid.map(([, t]) => t).join('')) {
    throw new Error(`${name}: the double-byte codes decode differently in one run`);
  }
  const runs: number[] = [];
  for (const [code] of valid) {
    const last = runs.length - 2;
    if (last >= 0 && runs[last]! + runs[last + 1]! === code) runs[last + 1]!++;
    else runs.push(code, 1);
  }
  const wide = valid.filter(([, text]) => text.length === 2).map(([code]) => code);
  if (valid.some(([, text]) => text.length > 2)) throw new Error(`${name}: a code decodes to more than two units`);
  // the code iconv writes for each character: a code of its own, or a byte when the single-byte half has it
  const sbcsUnits = new Set(sbcs);
  const byText = new Map<string, number[]>();
  for (const [code, text] of valid) byText.set(text, [...(byText.get(text) ?? []), code]);
  const chars = [...byText.keys()];
  const encoded = encodeEach(name, chars, true);
  const encode: (string | number)[] = [];
  chars.forEach((text, i) => {
    const [code, ...more] = encoded[i]!;
    if (code === undefined || more.length > 0) throw new Error(`${name}: ${text} encodes to ${encoded[i]!.length}`);
    const single = text.length === 1 && sbcsUnits.has(text.charCodeAt(0));
    if (code < 256 ? single : byText.get(text)!.includes(code)) {
      if (code >= 256 && byText.get(text)!.length > 1) encode.push(text, code);
      return;
    }
    throw new Error(`${name}: ${escape(text)} decodes from ${byText.get(text)} but encodes to ${code}`);
  });
  return { runs, chars: valid.map(([, t]) => t).join(''), wide, encode };
}

/** A string literal: printable letters, digits, marks of punctuation and symbols as they are, the rest escaped. */
function literal(text: string): string {
  let out = "'";
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    const plain = /^[\p{L}\p{N}\p{P}\p{S}]$/u.test(ch) && ch !== "'" && ch !== '\\' && !(cp >= 0xe000 && cp < 0xf900);
    if (plain && (cp < 0x7f || cp > 0xa0)) out += ch;
    else for (let i = 0; i < ch.length; i++) out += '\\u' + ch.charCodeAt(i).toString(16).padStart(4, '0');
  }
  return out + "'";
}

function escape(text: string): string {
  return [...text].map((c) => 'U+' + c.codePointAt(0)!.toString(16).toUpperCase()).join(' ');
}

export function charsetName(page: string): string {
  return 'cp' + page;
}

function pageModule(page: string, header: string): { file: string; source: string } {
  const name = 'IBM' + page;
  const mixed = (DBCS_PAGES as readonly string[]).includes(page);
  const sbcs = sbcsDecode(name, mixed);
  const table: CodePageSource = {
    iconv: name,
    sbcs: String.fromCharCode(...sbcs),
    sbcsEncode: sbcsEncode(name, sbcs, mixed),
    ...(mixed ? { dbcs: dbcs(name, sbcs) } : {}),
  };
  const constName = 'CP' + page;
  const lines = [
    header,
    "import type { CodePageSource } from '../source.ts';",
    '',
    `/** IBM code page ${page}${mixed ? ' (mixed single/double-byte)' : ''}, as glibc iconv's ${name} maps it. */`,
    `export const ${constName}: CodePageSource = {`,
    `  iconv: '${name}',`,
    `  sbcs: ${literal(table.sbcs)},`,
    `  sbcsEncode: [${table.sbcsEncode.join(', ')}],`,
  ];
  if (table.dbcs) {
    const d = table.dbcs;
    lines.push(
      '  dbcs: {',
      `    runs: [${d.runs.join(', ')}],`,
      `    chars: ${literal(d.chars)},`,
      `    wide: [${d.wide.join(', ')}],`,
      `    encode: [${d.encode.map((e) => (typeof e === 'number' ? String(e) : literal(e))).join(', ')}],`,
      '  },',
    );
  }
  lines.push('};', '');
  return { file: `${charsetName(page)}.ts`, source: lines.join('\n') };
}

function indexModule(header: string): string {
  const all = [...SBCS_PAGES, ...DBCS_PAGES];
  const names = all.map(charsetName);
  return [
    header,
    "import type { CodePageSource } from '../source.ts';",
    ...all.map((p) => `import { CP${p} } from './${charsetName(p)}.ts';`),
    '',
    '/** The EBCDIC code pages, by the name an encoding option gives them. */',
    `export type EbcdicCharset = ${names.map((n) => `'${n}'`).join(' | ')};`,
    '',
    '/** The mixed single/double-byte ones (shift-out 0x0E, shift-in 0x0F). */',
    `export type MixedCharset = ${DBCS_PAGES.map((p) => `'${charsetName(p)}'`).join(' | ')};`,
    '',
    `export const EBCDIC_CHARSETS: readonly EbcdicCharset[] = [${names.map((n) => `'${n}'`).join(', ')}];`,
    '',
    'export const EBCDIC_PAGES: Readonly<Record<EbcdicCharset, CodePageSource>> = {',
    ...all.map((p) => `  ${charsetName(p)}: CP${p},`),
    '};',
    '',
  ].join('\n');
}

/** Every generated file: name in OUT_DIR → its text. */
export async function generate(): Promise<Map<string, string>> {
  const header =
    `// Generated by \`npm run codepages\` (scripts/codepages/generate.ts) from glibc ${iconvVersion()} iconv. ` +
    'Do not edit.\n';
  const files = new Map<string, string>();
  const options = { ...(await prettier.resolveConfig(join(OUT_DIR, 'index.ts'))), parser: 'typescript' };
  for (const page of [...SBCS_PAGES, ...DBCS_PAGES]) {
    const { file, source } = pageModule(page, header);
    files.set(file, await prettier.format(source, options));
  }
  files.set('index.ts', await prettier.format(indexModule(header), options));
  return files;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const files = await generate();
  mkdirSync(OUT_DIR, { recursive: true });
  for (const old of readdirSync(OUT_DIR)) if (!files.has(old)) rmSync(join(OUT_DIR, old));
  for (const [file, text] of files) writeFileSync(join(OUT_DIR, file), text);
  console.log(`wrote ${files.size} files to ${OUT_DIR}`);
}
