import { CopybookError } from './errors.ts';
import type { Token } from './source.ts';
import type { SignSpec, Usage } from './types.ts';

/** A literal of a VALUE clause. */
export type Literal =
  | { kind: 'string'; text: string }
  | { kind: 'number'; text: string }
  | { kind: 'hex'; text: string }
  /** N"…" or NX"…": the characters, UTF-16 code units. */
  | { kind: 'national'; text: string }
  | { kind: 'figurative'; name: 'ZERO' | 'SPACE' | 'HIGH-VALUE' | 'LOW-VALUE' | 'QUOTE' };

/** One data description entry, as written. */
export interface Entry {
  level: number;
  name: string;
  line: number;
  column: number;
  picture?: { text: string; line: number; column: number };
  usage?: Usage;
  sign?: SignSpec;
  occurs?: { min: number; max: number; dependingOn?: string };
  redefines?: string;
  justifiedRight?: boolean;
  blankWhenZero?: boolean;
  /** SYNCHRONIZED [LEFT|RIGHT] (LEFT and RIGHT change nothing, as IBM documents). */
  synchronized?: boolean;
  value?: Literal;
  /** Level 66: the first and last items of the renamed range, as written (`A OF B`). */
  renames?: { from: string; thru?: string };
  /** A record's level-66 entries, which follow its last item. */
  renamings?: Entry[];
  /** Level 88: the values and ranges. */
  conditionValues?: Array<{ from: Literal; to?: Literal }>;
  conditions: Entry[];
  children: Entry[];
}

const USAGES: Record<string, Usage> = {
  DISPLAY: 'display',
  COMP: 'binary',
  COMPUTATIONAL: 'binary',
  'COMP-4': 'binary',
  'COMPUTATIONAL-4': 'binary',
  BINARY: 'binary',
  'COMP-5': 'comp-5',
  'COMPUTATIONAL-5': 'comp-5',
  'COMP-3': 'packed-decimal',
  'COMPUTATIONAL-3': 'packed-decimal',
  'PACKED-DECIMAL': 'packed-decimal',
  NATIONAL: 'national',
  'DISPLAY-1': 'display-1',
  'COMP-1': 'comp-1',
  'COMPUTATIONAL-1': 'comp-1',
  'FLOAT-SHORT': 'comp-1',
  'COMP-2': 'comp-2',
  'COMPUTATIONAL-2': 'comp-2',
  'FLOAT-LONG': 'comp-2',
  INDEX: 'index',
  POINTER: 'pointer',
  'FUNCTION-POINTER': 'pointer',
};

const UNSUPPORTED_USAGES = new Set([
  'COMP-6',
  'COMPUTATIONAL-6',
  'COMP-X',
  'COMPUTATIONAL-X',
  'COMP-N',
  'FLOAT-EXTENDED',
  'PROCEDURE-POINTER',
  'BINARY-CHAR',
  'BINARY-SHORT',
  'BINARY-LONG',
  'BINARY-DOUBLE',
  'OBJECT',
]);

const FIGURATIVES: Record<string, Literal> = {
  ZERO: { kind: 'figurative', name: 'ZERO' },
  ZEROS: { kind: 'figurative', name: 'ZERO' },
  ZEROES: { kind: 'figurative', name: 'ZERO' },
  SPACE: { kind: 'figurative', name: 'SPACE' },
  SPACES: { kind: 'figurative', name: 'SPACE' },
  'HIGH-VALUE': { kind: 'figurative', name: 'HIGH-VALUE' },
  'HIGH-VALUES': { kind: 'figurative', name: 'HIGH-VALUE' },
  'LOW-VALUE': { kind: 'figurative', name: 'LOW-VALUE' },
  'LOW-VALUES': { kind: 'figurative', name: 'LOW-VALUE' },
  QUOTE: { kind: 'figurative', name: 'QUOTE' },
  QUOTES: { kind: 'figurative', name: 'QUOTE' },
};

/** Words that start a clause; a word after the level number that is one of these means an unnamed FILLER. */
const CLAUSE_WORDS = new Set([
  'PIC',
  'PICTURE',
  'USAGE',
  'SIGN',
  'LEADING',
  'TRAILING',
  'OCCURS',
  'VALUE',
  'VALUES',
  'REDEFINES',
  'JUSTIFIED',
  'JUST',
  'BLANK',
  'SYNC',
  'SYNCHRONIZED',
  'EXTERNAL',
  'GLOBAL',
  'RENAMES',
  'IS',
  ...Object.keys(USAGES),
  ...UNSUPPORTED_USAGES,
]);

const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)$/;
/** A floating-point literal (`-1.5E+03`), for VALUE on COMP-1/COMP-2 items. */
const FLOAT_LITERAL = /^[+-]?(\d+\.?\d*|\.\d+)E[+-]?\d{1,3}$/;
const NAME = /^[A-Z0-9][A-Z0-9_-]*$/;

class EntryParser {
  private i = 0;
  private readonly tokens: Token[];
  private readonly fileName: string;

  constructor(tokens: Token[], fileName: string) {
    this.tokens = tokens;
    this.fileName = fileName;
  }

  private fail(message: string, at: { line: number; column: number } | undefined, unsupported = false): never {
    const where = at ?? this.tokens[this.tokens.length - 1] ?? { line: 1, column: 1 };
    throw new CopybookError(message, { fileName: this.fileName, line: where.line, column: where.column }, unsupported);
  }

  private peek(): Token | undefined {
    return this.tokens[this.i];
  }

  private next(what: string): Token {
    const t = this.tokens[this.i];
    if (t === undefined) this.fail(`expected ${what}, found end of file`, undefined);
    this.i++;
    return t;
  }

  private word(what: string): Token {
    const t = this.next(what);
    if (t.kind !== 'word') this.fail(`expected ${what}, found ${describe(t)}`, t);
    return t;
  }

  private optional(...words: string[]): boolean {
    const t = this.peek();
    if (t?.kind === 'word' && words.includes(t.text)) {
      this.i++;
      return true;
    }
    return false;
  }

  private integer(what: string): number {
    const t = this.word(what);
    if (!/^\d+$/.test(t.text)) this.fail(`expected ${what}, found ${describe(t)}`, t);
    return Number(t.text);
  }

  private dataName(what: string): string {
    const t = this.word(what);
    if (!NAME.test(t.text) || CLAUSE_WORDS.has(t.text)) this.fail(`expected ${what}, found ${describe(t)}`, t);
    let name = t.text;
    while (this.optional('OF', 'IN')) name += ` OF ${this.dataName('a group name after OF')}`;
    return name;
  }

  private literal(): Literal {
    const t = this.next('a literal');
    if (t.national) return { kind: 'national', text: t.text };
    if (t.kind === 'string') return { kind: 'string', text: t.text };
    if (t.kind === 'hex') return { kind: 'hex', text: t.text };
    if (t.kind === 'word') {
      const figurative = FIGURATIVES[t.text];
      if (figurative) return figurative;
      if (NUMBER.test(t.text) || FLOAT_LITERAL.test(t.text)) return { kind: 'number', text: t.text };
      if (t.text === 'ALL' || t.text === 'NULL' || t.text === 'NULLS')
        this.fail(`VALUE ${t.text} is not supported`, t, true);
    }
    return this.fail(`expected a literal, found ${describe(t)}`, t);
  }

  parseAll(): Entry[] {
    const entries: Entry[] = [];
    while (this.i < this.tokens.length) entries.push(this.entry());
    return entries;
  }

  private entry(): Entry {
    const levelToken = this.next('a level number');
    if (levelToken.kind !== 'word' || !/^\d{1,2}$/.test(levelToken.text)) {
      if (levelToken.kind === 'word' && (levelToken.text === 'COPY' || levelToken.text === 'REPLACE')) {
        this.fail(
          `${levelToken.text} statements are not supported inside a copybook; expand them first`,
          levelToken,
          true,
        );
      }
      this.fail(`expected a level number, found ${describe(levelToken)}`, levelToken);
    }
    const level = Number(levelToken.text);
    if (!((level >= 1 && level <= 49) || level === 66 || level === 77 || level === 88)) {
      this.fail(`invalid level number ${levelToken.text} (expected 01–49, 66, 77 or 88)`, levelToken);
    }
    let name = 'FILLER';
    const first = this.peek();
    if (first?.kind === 'word' && !CLAUSE_WORDS.has(first.text)) {
      name = this.dataName('a data name').split(' ')[0]!;
    }
    const entry: Entry = {
      level,
      name,
      line: levelToken.line,
      column: levelToken.column,
      conditions: [],
      children: [],
    };
    if (level === 88) {
      if (name === 'FILLER') this.fail('a level-88 condition needs a name', levelToken);
      this.conditionValues(entry);
    } else if (level === 66) {
      if (name === 'FILLER') this.fail('a level-66 item needs a name', levelToken);
      const t = this.word('RENAMES');
      if (t.text !== 'RENAMES') this.fail(`expected RENAMES after a level-66 name, found ${describe(t)}`, t);
      const from = this.dataName('the name of the first renamed item');
      entry.renames = this.optional('THRU', 'THROUGH')
        ? { from, thru: this.dataName('the name of the last renamed item') }
        : { from };
    } else {
      this.clauses(entry);
    }
    const end = this.next('a period ending the entry');
    if (end.kind !== 'period') this.fail(`unexpected ${describe(end)} (or a missing period before it)`, end);
    return entry;
  }

  private conditionValues(entry: Entry): void {
    const t = this.word('VALUE');
    if (t.text !== 'VALUE' && t.text !== 'VALUES')
      this.fail(`expected VALUE after a level-88 name, found ${describe(t)}`, t);
    this.optional('IS', 'ARE');
    const values: Array<{ from: Literal; to?: Literal }> = [];
    while (this.peek() !== undefined && this.peek()!.kind !== 'period') {
      const from = this.literal();
      if (this.optional('THRU', 'THROUGH')) values.push({ from, to: this.literal() });
      else values.push({ from });
    }
    if (values.length === 0) this.fail('level-88 VALUE needs at least one literal', t);
    entry.conditionValues = values;
  }

  private clauses(entry: Entry): void {
    for (;;) {
      const t = this.peek();
      if (t === undefined || t.kind === 'period') return;
      if (t.kind !== 'word') this.fail(`unexpected ${describe(t)}`, t);
      this.i++;
      const w = t.text;
      if (w === 'PIC' || w === 'PICTURE') {
        this.optional('IS');
        const p = this.next('a picture string');
        if (p.kind !== 'word') this.fail(`expected a picture string, found ${describe(p)}`, p);
        if (entry.picture) this.fail('PICTURE given twice', t);
        entry.picture = { text: p.text, line: p.line, column: p.column };
      } else if (w === 'USAGE' || USAGES[w] !== undefined || UNSUPPORTED_USAGES.has(w)) {
        let u = t;
        if (w === 'USAGE') {
          this.optional('IS');
          u = this.word('a usage');
        }
        if (UNSUPPORTED_USAGES.has(u.text)) this.fail(`USAGE ${u.text} is not supported`, u, true);
        const usage = USAGES[u.text];
        if (usage === undefined) this.fail(`unknown usage ${describe(u)}`, u);
        entry.usage = usage;
      } else if (w === 'SIGN' || w === 'LEADING' || w === 'TRAILING') {
        let pos = t;
        if (w === 'SIGN') {
          this.optional('IS');
          pos = this.word('LEADING or TRAILING');
        }
        if (pos.text !== 'LEADING' && pos.text !== 'TRAILING')
          this.fail(`expected LEADING or TRAILING, found ${describe(pos)}`, pos);
        const separate = this.optional('SEPARATE');
        if (separate) this.optional('CHARACTER');
        entry.sign = { position: pos.text === 'LEADING' ? 'leading' : 'trailing', separate };
      } else if (w === 'OCCURS') {
        this.occurs(entry, t);
      } else if (w === 'REDEFINES') {
        if (entry.redefines) this.fail('REDEFINES given twice', t);
        entry.redefines = this.dataName('the name of the redefined item');
      } else if (w === 'VALUE' || w === 'VALUES') {
        this.optional('IS', 'ARE');
        entry.value = this.literal();
      } else if (w === 'JUSTIFIED' || w === 'JUST') {
        this.optional('RIGHT');
        entry.justifiedRight = true;
      } else if (w === 'BLANK') {
        this.optional('WHEN');
        const z = this.word('ZERO');
        if (z.text !== 'ZERO' && z.text !== 'ZEROS' && z.text !== 'ZEROES')
          this.fail(`expected ZERO, found ${describe(z)}`, z);
        entry.blankWhenZero = true;
      } else if (w === 'RENAMES') {
        this.fail('RENAMES belongs to a level-66 entry', t);
      } else if (w === 'SYNC' || w === 'SYNCHRONIZED') {
        this.optional('LEFT', 'RIGHT');
        entry.synchronized = true;
      } else if (w === 'EXTERNAL' || w === 'GLOBAL') {
        this.fail(`${w} is not supported`, t, true);
      } else if (/^\d{1,2}$/.test(w)) {
        this.fail(`unexpected ${describe(t)} (is the period missing at the end of the entry before it?)`, t);
      } else {
        this.fail(`unexpected ${describe(t)}`, t);
      }
    }
  }

  private occurs(entry: Entry, at: Token): void {
    if (entry.occurs) this.fail('OCCURS given twice', at);
    let min = this.integer('the number of occurrences');
    let max = min;
    const ranged = this.optional('TO');
    if (ranged) max = this.integer('the maximum number of occurrences');
    this.optional('TIMES');
    let dependingOn: string | undefined;
    if (this.optional('DEPENDING')) {
      this.optional('ON');
      dependingOn = this.dataName('the name of the DEPENDING ON counter');
    }
    for (;;) {
      if (this.optional('ASCENDING', 'DESCENDING')) {
        this.optional('KEY');
        this.optional('IS');
        this.names();
      } else if (this.optional('INDEXED')) {
        this.optional('BY');
        this.names();
      } else break;
    }
    if (ranged && dependingOn === undefined) this.fail('OCCURS m TO n needs DEPENDING ON', at);
    // OCCURS n TIMES DEPENDING ON (no TO) allows 0 to n occurrences
    if (!ranged && dependingOn !== undefined) min = 0;
    if (max < 1 || min > max) this.fail(`invalid OCCURS range ${min} TO ${max}`, at);
    entry.occurs = dependingOn === undefined ? { min, max } : { min, max, dependingOn };
  }

  private names(): void {
    let count = 0;
    for (;;) {
      const t = this.peek();
      if (t?.kind !== 'word' || CLAUSE_WORDS.has(t.text) || ['ASCENDING', 'DESCENDING', 'INDEXED'].includes(t.text))
        break;
      this.i++;
      count++;
    }
    if (count === 0) this.fail('expected a name', this.peek());
  }
}

function describe(t: Token): string {
  if (t.kind === 'period') return 'a period';
  if (t.kind === 'string') return `the literal "${t.text}"`;
  if (t.kind === 'hex') return `the literal X"${t.text}"`;
  return `"${t.text}"`;
}

/** Parses tokens into entries (flat, in source order). */
export function parseEntries(tokens: Token[], fileName: string): Entry[] {
  return new EntryParser(tokens, fileName).parseAll();
}
