/**
 * The compiler-directing pass: COPY (with REPLACING) and REPLACE, applied to the tokens of the source text
 * before data descriptions are parsed, as COBOL 2002 and IBM Enterprise COBOL define them. Text is matched as
 * sequences of text words, so spacing, line breaks, separator commas and comment lines do not matter.
 */
import { CopybookError, type IncludeSite } from './errors.ts';
import { detectFormat, tokenize, type SourceFormat, type Token } from './source.ts';
import type { CopybookReader, CopybookText } from './types.ts';

export interface CopyOptions {
  fileName: string;
  /** Directories searched by the default reader, after the including file's own directory. */
  copybookPath?: readonly string[];
  readCopybook?: CopybookReader;
}

/** Nesting deeper than this is surely a mistake (IBM allows any depth; real copybooks nest two or three deep). */
export const MAX_COPY_DEPTH = 32;

/** Where a token of the expanded text was written. */
export interface SourcePlace {
  fileName: string;
  line: number;
  includes: readonly IncludeSite[];
}

export interface ExpandedSource {
  tokens: Token[];
  /**
   * Maps a token line back to its file. Tokens of copied text get line numbers after the compiled file's
   * (as a compiler listing numbers copied lines), so the passes after this one need no notion of files.
   */
  place(line: number): SourcePlace;
}

type Rule =
  | { kind: 'text'; from: Token[]; to: Token[] }
  | { kind: 'leading' | 'trailing'; from: string; to: string }
  /** IBM's and GnuCOBOL's `:TAG:` convention: pseudo-text `==:TAG:==` replaces that part of any word. */
  | { kind: 'tag'; from: string; to: string };

interface Segment {
  base: number;
  fileName: string;
  includes: readonly IncludeSite[];
}

const COPY_EXTENSIONS = ['', '.cpy', '.cbl', '.CPY', '.CBL', '.cob', '.COB'];

/** Expands COPY and REPLACE in the tokens of `source`; without either, returns the tokens as they are. */
export function expandCopybook(source: string, format: SourceFormat, options: CopyOptions): ExpandedSource {
  const tokens = tokenize(source, format, options.fileName);
  const segments: Segment[] = [{ base: 0, fileName: options.fileName, includes: [] }];
  let nextBase = source.split(/\r?\n/).length;
  const place = (line: number): SourcePlace => {
    let s = segments[0]!;
    for (const seg of segments) if (seg.base < line && seg.base >= s.base) s = seg;
    return { fileName: s.fileName, line: line - s.base, includes: s.includes };
  };
  const fail = (at: Token, reason: string, unsupported = false): never => {
    const p = place(at.line);
    throw new CopybookError(
      reason,
      { fileName: p.fileName, line: p.line, column: at.column, includes: p.includes },
      unsupported,
    );
  };
  if (!tokens.some((t) => t.kind === 'word' && (t.text === 'COPY' || t.text === 'REPLACE'))) {
    return { tokens, place };
  }

  const read = reader(options);

  const expand = (input: Token[], includes: readonly IncludeSite[], files: readonly string[]): Token[] => {
    const out: Token[] = [];
    let i = 0;
    while (i < input.length) {
      const t = input[i]!;
      if (!(t.kind === 'word' && t.text === 'COPY')) {
        out.push(t);
        i++;
        continue;
      }
      const stmt = new StatementReader(input, i + 1, fail, t);
      const name = stmt.name('a copybook name after COPY');
      let library: string | undefined;
      if (stmt.optional('OF', 'IN')) library = stmt.name(`a library name after ${input[stmt.at - 1]!.text}`);
      stmt.optional('SUPPRESS');
      const rules = stmt.optional('REPLACING') ? stmt.rules('REPLACING', true) : [];
      stmt.period('COPY');
      i = stmt.at;

      const here = place(t.line);
      const site: IncludeSite = { name, fileName: here.fileName, line: here.line, column: t.column };
      const found = read(name, library, here.fileName);
      if ('searched' in found) {
        const what = library === undefined ? name : `${name} OF ${library}`;
        return fail(t, `COPY ${what}: copybook not found (${found.searched})`);
      }
      const { text, fileName } = found;
      const cycle = files.indexOf(fileName);
      if (cycle >= 0) {
        fail(t, `COPY ${name}: a COPY cycle: ${[...files.slice(cycle), fileName].join(' → ')}`);
      }
      if (includes.length >= MAX_COPY_DEPTH) fail(t, `COPY ${name}: COPY nested more than ${MAX_COPY_DEPTH} deep`);
      const nested = [site, ...includes];
      const base = nextBase;
      nextBase += text.split(/\r?\n/).length;
      segments.push({ base, fileName, includes: nested });
      let copied: Token[];
      try {
        copied = tokenize(text, detectFormat(text), fileName);
      } catch (e) {
        if (!(e instanceof CopybookError)) throw e;
        const at = { fileName: e.fileName, line: e.line, column: e.column, includes: nested };
        throw new CopybookError(e.reason, at, e.code === 'COPYBOOK_UNSUPPORTED');
      }
      for (const c of copied) c.line += base;
      // REPLACING applies to all the copied text, nested copies included (as cobc does)
      out.push(...replaceAll(expand(copied, nested, [...files, fileName]), rules));
    }
    return out;
  };

  const copied = expand(tokens, [], [options.fileName]);
  return { tokens: applyReplace(copied, fail), place };
}

type Fail = (at: Token, reason: string, unsupported?: boolean) => never;

/** Reads the operands of one COPY or REPLACE statement. */
class StatementReader {
  at: number;
  private readonly tokens: Token[];
  private readonly fail: Fail;
  private readonly start: Token;

  constructor(tokens: Token[], at: number, fail: Fail, start: Token) {
    this.tokens = tokens;
    this.at = at;
    this.fail = fail;
    this.start = start;
  }

  private next(what: string): Token {
    const t = this.tokens[this.at];
    if (t === undefined) return this.fail(this.start, `expected ${what}, found end of file`);
    this.at++;
    return t;
  }

  peek(): Token | undefined {
    return this.tokens[this.at];
  }

  optional(...words: string[]): boolean {
    const t = this.peek();
    if (t?.kind === 'word' && words.includes(t.text)) {
      this.at++;
      return true;
    }
    return false;
  }

  name(what: string): string {
    const t = this.next(what);
    if (t.kind === 'string') return t.text;
    if (t.kind !== 'word' || !/^[A-Z0-9][A-Z0-9_-]*$/.test(t.text) || t.text === '==') {
      return this.fail(t, `expected ${what}, found ${describe(t)}`);
    }
    return t.text;
  }

  period(statement: string): void {
    const t = this.next(`the period that ends ${statement}`);
    if (t.kind !== 'period') this.fail(t, `expected the period that ends ${statement}, found ${describe(t)}`);
  }

  /** `operand BY operand …` up to the period; COPY … REPLACING also takes identifiers, literals and words. */
  rules(statement: string, words: boolean): Rule[] {
    const rules: Rule[] = [];
    while (this.peek() !== undefined && this.peek()!.kind !== 'period') {
      const first = this.peek()!;
      const partial = this.optional('LEADING') ? 'leading' : this.optional('TRAILING') ? 'trailing' : undefined;
      const from = this.operand(words && partial === undefined, `the text ${statement} looks for`);
      const by = this.next('BY');
      if (by.kind !== 'word' || by.text !== 'BY') this.fail(by, `expected BY, found ${describe(by)}`);
      const to = this.operand(words && partial === undefined, 'the replacement text');
      if (from.length === 0) this.fail(first, `the text ${statement} looks for cannot be empty`);
      if (partial !== undefined) {
        const one = (ts: Token[], empty: boolean) =>
          ts.length === 0 && empty
            ? ''
            : ts.length === 1 && ts[0]!.kind === 'word'
              ? ts[0]!.text
              : this.fail(first, `${partial.toUpperCase()} needs one partial word on each side of BY`);
        rules.push({ kind: partial, from: one(from, false), to: one(to, true) });
      } else if (from.length === 1 && from[0]!.kind === 'word' && /^:[^:]+:$/.test(from[0]!.text)) {
        const word = to.length === 0 ? '' : to.length === 1 && to[0]!.kind === 'word' ? to[0]!.text : undefined;
        if (word === undefined) this.fail(first, `${from[0]!.text} is replaced by one word or by nothing`);
        rules.push({ kind: 'tag', from: from[0]!.text, to: word });
      } else {
        rules.push({ kind: 'text', from, to });
      }
    }
    if (rules.length === 0) this.fail(this.peek() ?? this.start, `${statement} needs at least one "… BY …"`);
    return rules;
  }

  /** `==pseudo-text==`, or (where `single`) one word or literal. */
  private operand(single: boolean, what: string): Token[] {
    const t = this.next(what);
    if (t.kind === 'word' && t.text === '==') {
      const text: Token[] = [];
      for (;;) {
        const u = this.tokens[this.at];
        if (u === undefined) return this.fail(t, 'pseudo-text not closed (expected ==)');
        this.at++;
        if (u.kind === 'word' && u.text === '==') return text;
        text.push(u);
      }
    }
    if (!single || t.kind === 'period') this.fail(t, `expected ==pseudo-text== as ${what}, found ${describe(t)}`);
    return [t];
  }
}

function describe(t: Token): string {
  if (t.kind === 'period') return 'a period';
  if (t.kind === 'string') return `'${t.text}'`;
  if (t.kind === 'hex') return `X'${t.text}'`;
  return `"${t.text}"`;
}

function sameWord(a: Token, b: Token): boolean {
  return a.kind === b.kind && a.text === b.text;
}

/** Applies one rule at `i`: the tokens it produces and how many it consumed, or undefined when it does not match. */
function applyRule(rule: Rule, tokens: Token[], i: number): { out: Token[]; used: number } | undefined {
  const t = tokens[i]!;
  if (rule.kind === 'text') {
    if (i + rule.from.length > tokens.length) return undefined;
    for (let k = 0; k < rule.from.length; k++) if (!sameWord(rule.from[k]!, tokens[i + k]!)) return undefined;
    // the replacement stands where the replaced text was, so later errors point there
    return { out: rule.to.map((r) => ({ ...r, line: t.line, column: t.column })), used: rule.from.length };
  }
  if (t.kind !== 'word') return undefined;
  let text: string;
  if (rule.kind === 'tag') {
    if (!t.text.includes(rule.from)) return undefined;
    text = t.text.replaceAll(rule.from, rule.to);
  } else if (rule.kind === 'leading') {
    if (!t.text.startsWith(rule.from)) return undefined;
    text = rule.to + t.text.slice(rule.from.length);
  } else {
    if (!t.text.endsWith(rule.from)) return undefined;
    text = t.text.slice(0, t.text.length - rule.from.length) + rule.to;
  }
  return { out: text === '' ? [] : [{ ...t, text }], used: 1 };
}

/** One pass over the text: at each place the first rule that matches wins, and its output is not rescanned. */
function replaceAll(tokens: Token[], rules: readonly Rule[]): Token[] {
  if (rules.length === 0) return tokens;
  const out: Token[] = [];
  let i = 0;
  outer: while (i < tokens.length) {
    for (const rule of rules) {
      const hit = applyRule(rule, tokens, i);
      if (hit !== undefined) {
        out.push(...hit.out);
        i += hit.used;
        continue outer;
      }
    }
    out.push(tokens[i]!);
    i++;
  }
  return out;
}

/**
 * REPLACE statements, after every COPY is expanded: each applies to the text after it until the next REPLACE
 * or REPLACE OFF; `REPLACE ALSO` adds to the rules in force and `REPLACE LAST OFF` goes back one step.
 */
function applyReplace(tokens: Token[], fail: Fail): Token[] {
  const out: Token[] = [];
  const stack: Rule[][] = [];
  let rules: Rule[] = [];
  let i = 0;
  while (i < tokens.length) {
    const t = tokens[i]!;
    if (t.kind === 'word' && t.text === 'REPLACE') {
      const stmt = new StatementReader(tokens, i + 1, fail, t);
      if (stmt.optional('OFF')) {
        stack.length = 0;
        rules = [];
      } else if (stmt.optional('LAST')) {
        if (!stmt.optional('OFF')) fail(stmt.peek() ?? t, 'expected OFF after REPLACE LAST');
        rules = stack.pop() ?? [];
      } else {
        const also = stmt.optional('ALSO');
        const added = stmt.rules('REPLACE', false);
        stack.push(rules);
        rules = also ? [...added, ...rules] : added;
      }
      stmt.period('REPLACE');
      i = stmt.at;
      continue;
    }
    let hit: { out: Token[]; used: number } | undefined;
    for (const rule of rules) if ((hit = applyRule(rule, tokens, i)) !== undefined) break;
    if (hit === undefined) {
      out.push(t);
      i++;
    } else {
      out.push(...hit.out);
      i += hit.used;
    }
  }
  return out;
}

/** The default reader: node:fs, loaded only when a COPY needs it, so callers with their own reader need no fs. */
function reader(
  options: CopyOptions,
): (name: string, library: string | undefined, includingFile: string) => CopybookText | { searched: string } {
  if (options.readCopybook !== undefined) {
    const custom = options.readCopybook;
    return (name, library, includingFile) => {
      const found = custom(name, library, includingFile);
      if (found === undefined) return { searched: 'readCopybook found nothing' };
      return 'searched' in found ? { searched: `searched ${found.searched.join(', ')}` } : found;
    };
  }
  const path = options.copybookPath;
  return (name, library, includingFile) => {
    if (path === undefined) return { searched: 'no copybookPath or readCopybook was given' };
    const found = findFile(name, library, includingFile, path, undefined);
    if (found === null) return { searched: 'node:fs is not available here: pass readCopybook' };
    if (!('places' in found)) return found;
    const names = [...new Set([name, name.toLowerCase()])].join(' and ');
    const exts = COPY_EXTENSIONS.slice(1).join(', ');
    return { searched: `tried ${names}, bare or with ${exts}, in ${found.places.join(', ')}` };
  };
}

/**
 * The default reader's search, as a reader to pass as `readCopybook`, for names relative to `baseDir`: the
 * compiled file's `fileName`, the copybookPath entries, and the fileName each copybook gets in messages (a
 * service file's copybooks are named relative to it, whatever the working directory). Needs node:fs.
 */
export function fileCopybookReader(
  copybookPath: readonly string[],
  options: { baseDir?: string } = {},
): CopybookReader {
  return (name, library, includingFile) => {
    const found = findFile(name, library, includingFile, copybookPath, options.baseDir);
    if (found === null) throw new TypeError('fileCopybookReader needs node:fs');
    return 'places' in found ? { searched: found.places } : found;
  };
}

/** The first file of the search that exists; null without node:fs. */
function findFile(
  name: string,
  library: string | undefined,
  includingFile: string,
  copybookPath: readonly string[],
  baseDir: string | undefined,
): CopybookText | { places: string[] } | null {
  const fs = (globalThis.process as { getBuiltinModule?: (id: string) => unknown } | undefined)?.getBuiltinModule?.(
    'node:fs',
  ) as typeof import('node:fs') | undefined;
  if (fs === undefined) return null;
  const { places, files } = copybookSearch(name, library, includingFile, copybookPath);
  for (const file of files) {
    const onDisk = baseDir === undefined || /^([/\\]|[A-Za-z]:)/.test(file) ? file : join(baseDir, file);
    let stat;
    try {
      stat = fs.statSync(onDisk);
    } catch {
      continue;
    }
    if (stat.isFile()) return { text: fs.readFileSync(onDisk, 'utf8'), fileName: file };
  }
  return { places };
}

function dirOf(file: string): string {
  const slash = Math.max(file.lastIndexOf('/'), file.lastIndexOf('\\'));
  return slash < 0 ? '.' : slash === 0 ? '/' : file.slice(0, slash);
}

function join(dir: string, name: string): string {
  return dir === '.' ? name : dir.endsWith('/') ? dir + name : `${dir}/${name}`;
}

function baseOf(dir: string): string {
  return dir.replace(/[/\\]+$/, '').replace(/^.*[/\\]/, '');
}

/**
 * The files tried for `COPY name [OF library]`, in order: the including file's directory, then each
 * copybookPath entry (as cobc tries the current directory, then each -I). With OF library, `library` is a
 * subdirectory of each of those, or a copybookPath entry whose last component is `library`. Each name is
 * tried as written, then in lower case, each with the extensions '', .cpy, .cbl, .CPY, .CBL, .cob, .COB.
 */
export function copybookCandidates(
  name: string,
  library: string | undefined,
  includingFile: string,
  copybookPath: readonly string[],
): string[] {
  return copybookSearch(name, library, includingFile, copybookPath).files;
}

function copybookSearch(
  name: string,
  library: string | undefined,
  includingFile: string,
  copybookPath: readonly string[],
): { places: string[]; files: string[] } {
  const dirs = [dirOf(includingFile), ...copybookPath];
  const places: string[] = [];
  for (const dir of dirs) {
    if (library === undefined) places.push(dir);
    else {
      for (const lib of new Set([library, library.toLowerCase()])) places.push(join(dir, lib));
      if (baseOf(dir).toUpperCase() === library.toUpperCase()) places.push(dir);
    }
  }
  const out: string[] = [];
  for (const place of places) {
    for (const base of new Set([name, name.toLowerCase()])) {
      for (const ext of COPY_EXTENSIONS) out.push(join(place, base + ext));
    }
  }
  return { places: [...new Set(places)], files: [...new Set(out)] };
}
