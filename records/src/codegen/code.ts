/** Small builders of generated JavaScript: a statement a line, blocks indented, string literals always quoted. */

/** Generated statements: a string is one line; a nested array is a block's body, printed one step deeper. */
export type Code = Array<string | Code>;

/** A JavaScript expression's source, to tell it apart from text in `text()`. */
export interface Js {
  readonly js: string;
}

export const js = (source: string): Js => ({ js: source });

/** A string literal of `s`: names and values from copybooks and mappings never reach the code unquoted. */
export const lit = (s: string): string => JSON.stringify(s);

/** `head {`, the body one step deeper, `}` (or `close`, as in `} else {`). */
export function block(head: string, body: Code, close = '}'): Code {
  return [`${head} {`, body, close];
}

/** An expression joining text and expressions with `+`: `text('has ', js('n'), ' elements')`. */
export function text(...parts: Array<string | Js>): string {
  const merged: Array<string | Js> = [];
  for (const part of parts) {
    const last = merged.at(-1);
    if (typeof part === 'string' && typeof last === 'string') merged[merged.length - 1] = last + part;
    else if (part !== '') merged.push(part);
  }
  return merged.map((p) => (typeof p === 'string' ? lit(p) : p.js)).join(' + ') || "''";
}

/** `if (condition) { throw error; }` */
export function throwIf(condition: string, error: string): Code {
  return block(`if (${condition})`, [`throw ${error};`]);
}

export const encodeError = (path: string, message: string): string => `new RecordEncodeError(${path}, ${message})`;

export const decodeError = (offset: string, field: string, message: string): string =>
  `new RecordDecodeError(${offset}, ${field}, ${message})`;

/** A byte offset: a variable (`at`, inside a table element) plus a constant, printed folded. */
export interface Offset {
  readonly base: string | null;
  readonly delta: number;
}

export const RECORD_START: Offset = { base: null, delta: 0 };

export const offsetBy = (o: Offset, delta: number): Offset => ({ base: o.base, delta: o.delta + delta });

export function offsetJs(o: Offset): string {
  if (o.base === null) return String(o.delta);
  return o.delta === 0 ? o.base : `${o.base} + ${o.delta}`;
}

/** An expression that may span lines: source text, or an object literal of keys (as source) and values. */
export type Expr = string | { readonly entries: ReadonlyArray<readonly [key: string, value: Expr]> };

/** Statements holding `expr` between `prefix` and `suffix` (`return `, `;`), objects one key a line. */
export function withExpr(prefix: string, expr: Expr, suffix: string): Code {
  if (typeof expr === 'string') return [`${prefix}${expr}${suffix}`];
  if (expr.entries.length === 0) return [`${prefix}{}${suffix}`];
  const body: Code = expr.entries.flatMap(([key, value]) => withExpr(`${key}: `, value, ','));
  return [`${prefix}{`, body, `}${suffix}`];
}

/** The source of `code`, two spaces per level. */
export function render(code: Code, depth = 0): string {
  let out = '';
  for (const line of code) out += typeof line === 'string' ? `${'  '.repeat(depth)}${line}\n` : render(line, depth + 1);
  return out;
}
