import { CopybookError } from './errors.ts';

/** One token of copybook text, with where it starts. */
export interface Token {
  kind: 'word' | 'string' | 'hex' | 'period';
  /** The word in upper case, the string's content, or the hex literal's digits. */
  text: string;
  line: number;
  column: number;
  /** N"…" and NX"…": `text` holds the characters. */
  national?: true;
}

export type SourceFormat = 'fixed' | 'free';

interface LogicalText {
  chars: string[];
  lines: number[];
  cols: number[];
}

const INDICATORS = new Set([' ', '*', '/', '-', 'D', 'd']);

/** Fixed format when every code line has a numeric (or blank) sequence area and a valid indicator column. */
export function detectFormat(source: string): SourceFormat {
  const directive = /^\s*>>\s*SOURCE\s+(?:FORMAT\s+)?(?:IS\s+)?(FREE|FIXED)\b/im.exec(source);
  if (directive) return directive[1]!.toUpperCase() === 'FREE' ? 'free' : 'fixed';
  for (const raw of source.split(/\r?\n/)) {
    if (raw.trim() === '') continue;
    const sequence = raw.slice(0, 6);
    if (!/^[0-9 ]*$/.test(sequence)) return 'free';
    if (raw.length > 6 && !INDICATORS.has(raw[6]!)) return 'free';
  }
  return 'fixed';
}

/** Splits copybook text into tokens, handling areas, comments and continuation lines. */
export function tokenize(source: string, format: SourceFormat, fileName: string): Token[] {
  const text = assemble(source, format, fileName);
  return scan(text, fileName);
}

function isDirective(code: string): boolean {
  const t = code.trim().toUpperCase();
  return t.startsWith('>>') || /^(EJECT|SKIP[123])\.?$/.test(t);
}

function stripInlineComment(code: string, open: string | null): string {
  let quote = open;
  for (let i = 0; i < code.length; i++) {
    const ch = code[i]!;
    if (quote !== null) {
      if (ch === quote) quote = null;
    } else if (ch === '"' || ch === "'") quote = ch;
    else if (ch === '*' && code[i + 1] === '>') return code.slice(0, i);
  }
  return code;
}

/** The quote left open at the end of `code`, given the one open at its start. */
function openQuoteAfter(code: string, open: string | null): string | null {
  let quote = open;
  for (const ch of code) {
    if (quote !== null) {
      if (ch === quote) quote = null;
    } else if (ch === '"' || ch === "'") quote = ch;
  }
  return quote;
}

function assemble(source: string, format: SourceFormat, fileName: string): LogicalText {
  const out: LogicalText = { chars: [], lines: [], cols: [] };
  const push = (s: string, line: number, col: number) => {
    for (let i = 0; i < s.length; i++) {
      out.chars.push(s[i]!);
      out.lines.push(line);
      out.cols.push(col + i);
    }
  };
  let open: string | null = null;
  let openAt = { line: 0, column: 0 };
  const rawLines = source.split(/\r?\n/);
  for (let n = 0; n < rawLines.length; n++) {
    const raw = rawLines[n]!.replace(/\t/g, '    ');
    const lineNo = n + 1;
    let code: string;
    let codeCol: number;
    let continuation = false;
    if (format === 'fixed') {
      if (raw.length < 7) {
        if (raw.trim() !== '' && !/^[0-9 ]*$/.test(raw)) {
          throw new CopybookError('line too short for fixed format (code starts in column 8)', {
            fileName,
            line: lineNo,
            column: 1,
          });
        }
        continue;
      }
      const indicator = raw[6]!;
      if (indicator === '*' || indicator === '/' || indicator === 'D' || indicator === 'd') continue;
      if (!INDICATORS.has(indicator)) {
        throw new CopybookError(`invalid indicator "${indicator}" in column 7`, { fileName, line: lineNo, column: 7 });
      }
      continuation = indicator === '-';
      code = raw.slice(7, 72);
      codeCol = 8;
    } else {
      code = raw;
      codeCol = 1;
      if (code.trimStart().startsWith('*>')) continue;
    }
    if (isDirective(code) && !continuation) {
      if (open === null) continue;
    }
    if (continuation) {
      const first = code.search(/\S/);
      if (first < 0) continue;
      if (open !== null) {
        if (code[first] !== open) {
          throw new CopybookError(`continuation of a literal must start with ${open}`, {
            fileName,
            line: lineNo,
            column: codeCol + first,
          });
        }
        const rest = stripInlineComment(code.slice(first + 1), open);
        push(rest, lineNo, codeCol + first + 1);
        open = openQuoteAfter(rest, open);
      } else {
        // a word continued: drop the trailing spaces of what came before
        while (out.chars.length > 0 && out.chars[out.chars.length - 1] === ' ') {
          out.chars.pop();
          out.lines.pop();
          out.cols.pop();
        }
        const rest = stripInlineComment(code.slice(first), null);
        push(rest, lineNo, codeCol + first);
        open = openQuoteAfter(rest, null);
      }
    } else {
      if (open !== null) {
        throw new CopybookError('literal not closed (a continued literal needs "-" in column 7 of the next line)', {
          fileName,
          ...openAt,
        });
      }
      const body = stripInlineComment(code, null);
      push(' ', lineNo, codeCol);
      push(body, lineNo, codeCol);
      open = openQuoteAfter(body, null);
    }
    if (open !== null) {
      // a literal open at the end of a fixed-format line runs to column 72
      if (format === 'fixed' && code.length < 65) push(' '.repeat(65 - code.length), lineNo, codeCol + code.length);
      openAt = { line: lineNo, column: codeCol };
      if (format === 'free') {
        throw new CopybookError('literal not closed on its line', { fileName, line: lineNo, column: codeCol });
      }
    }
  }
  if (open !== null) throw new CopybookError('literal not closed at end of file', { fileName, ...openAt });
  return out;
}

function isPseudoTextDelimiter(chars: string[], i: number): boolean {
  return chars[i] === '=' && chars[i + 1] === '=';
}

function scan(text: LogicalText, fileName: string): Token[] {
  const { chars } = text;
  const tokens: Token[] = [];
  const isSpace = (c: string | undefined) => c === undefined || c === ' ';
  let i = 0;
  while (i < chars.length) {
    const c = chars[i]!;
    const line = text.lines[i]!;
    const column = text.cols[i]!;
    if (c === ' ' || ((c === ',' || c === ';') && isSpace(chars[i + 1]))) {
      i++;
      continue;
    }
    if (c === '.' && (isSpace(chars[i + 1]) || isPseudoTextDelimiter(chars, i + 1))) {
      tokens.push({ kind: 'period', text: '.', line, column });
      i++;
      continue;
    }
    // `==` delimits pseudo-text of COPY … REPLACING and REPLACE (copy.ts), also where no space separates it
    if (isPseudoTextDelimiter(chars, i)) {
      tokens.push({ kind: 'word', text: '==', line, column });
      i += 2;
      continue;
    }
    const prefix = c.toUpperCase();
    const nx = prefix === 'N' && chars[i + 1]?.toUpperCase() === 'X' && (chars[i + 2] === '"' || chars[i + 2] === "'");
    const quoteAt = nx
      ? i + 2
      : (prefix === 'X' || prefix === 'N' || prefix === 'Z') && (chars[i + 1] === '"' || chars[i + 1] === "'")
        ? i + 1
        : c === '"' || c === "'"
          ? i
          : -1;
    if (quoteAt >= 0) {
      if (quoteAt > i && prefix !== 'X' && prefix !== 'N') {
        throw new CopybookError(`${prefix}-literals are not supported`, { fileName, line, column }, true);
      }
      const quote = chars[quoteAt]!;
      let value = '';
      let j = quoteAt + 1;
      for (;;) {
        if (j >= chars.length) throw new CopybookError('literal not closed', { fileName, line, column });
        if (chars[j] === quote) {
          if (chars[j + 1] === quote) {
            value += quote;
            j += 2;
            continue;
          }
          j++;
          break;
        }
        value += chars[j];
        j++;
      }
      if (nx) {
        // UTF-16BE code units, four hex digits each
        if (!/^([0-9A-Fa-f]{4})*$/.test(value)) {
          throw new CopybookError('NX literal needs a multiple of four hex digits', { fileName, line, column });
        }
        const text = String.fromCharCode(...(value.match(/.{4}/g) ?? []).map((u) => parseInt(u, 16)));
        tokens.push({ kind: 'string', text, line, column, national: true });
      } else if (quoteAt > i && prefix === 'N') {
        tokens.push({ kind: 'string', text: value, line, column, national: true });
      } else if (quoteAt > i) {
        if (!/^([0-9A-Fa-f]{2})*$/.test(value)) {
          throw new CopybookError('hexadecimal literal needs an even number of hex digits', { fileName, line, column });
        }
        tokens.push({ kind: 'hex', text: value.toUpperCase(), line, column });
      } else {
        tokens.push({ kind: 'string', text: value, line, column });
      }
      i = j;
      continue;
    }
    let word = '';
    while (
      i < chars.length &&
      chars[i] !== ' ' &&
      !isPseudoTextDelimiter(chars, i) &&
      !(chars[i] === '.' && (isSpace(chars[i + 1]) || isPseudoTextDelimiter(chars, i + 1))) &&
      !((chars[i] === ',' || chars[i] === ';') && isSpace(chars[i + 1]))
    ) {
      word += chars[i];
      i++;
    }
    tokens.push({ kind: 'word', text: word.toUpperCase(), line, column });
  }
  return tokens;
}
