import { StringDecoder } from 'node:string_decoder';
import { DatasetError } from './errors.ts';

/** A value to encode and, when it came from a file, the line it was on (for the error). */
export interface SourceValue {
  value: unknown;
  line?: number | undefined;
}

/**
 * Parses JSON Lines (one JSON value per line, UTF-8; blank lines and a `\r` before the newline are allowed), one
 * batch per chunk of the source. A line that is not JSON is an error naming the line.
 */
export function readJsonLines(source: AsyncIterable<Uint8Array | string>): AsyncGenerator<SourceValue[]> {
  const lines = parseJsonLines(source, () => unread.delete(lines));
  unread.set(lines, source);
  return lines;
}

/** The sources of `readJsonLines` generators not read from yet, which `encodeBatches` may read itself. */
const unread = new WeakMap<object, AsyncIterable<Uint8Array | string>>();

/**
 * The source of `lines` when it is a `readJsonLines` generator that has not started; that generator is then
 * left unread for good, as the caller reads its source instead.
 */
export function takeJsonLinesSource(lines: object): AsyncIterable<Uint8Array | string> | undefined {
  const source = unread.get(lines);
  unread.delete(lines);
  return source;
}

async function* parseJsonLines(
  source: AsyncIterable<Uint8Array | string>,
  started: () => void,
): AsyncGenerator<SourceValue[]> {
  started();
  const text = new StringDecoder('utf8');
  let rest = '';
  let line = 0;
  const parse = (s: string, batch: SourceValue[]): void => {
    const value = parseLine(s, ++line);
    if (value !== BLANK) batch.push({ value, line });
  };
  for await (const chunk of source) {
    const s = rest + (typeof chunk === 'string' ? chunk : text.write(chunk as Buffer));
    const batch: SourceValue[] = [];
    let from = 0;
    for (let nl = s.indexOf('\n'); nl >= 0; nl = s.indexOf('\n', from)) {
      parse(s.slice(from, nl), batch);
      from = nl + 1;
    }
    rest = s.slice(from);
    if (batch.length > 0) yield batch;
  }
  rest += text.end();
  const batch: SourceValue[] = [];
  if (rest !== '') parse(rest, batch);
  if (batch.length > 0) yield batch;
}

/** What `parseLine` gives for a blank line. */
export const BLANK: unique symbol = Symbol('blank line');

/** One line's value (a `\r` before the newline allowed), BLANK for a blank line; not JSON is an error naming it. */
export function parseLine(s: string, line: number): unknown {
  const trimmed = s.endsWith('\r') ? s.slice(0, -1) : s;
  if (trimmed.trim() === '') return BLANK;
  try {
    return JSON.parse(trimmed);
  } catch (e) {
    throw new DatasetError({ record: 0, offset: 0, line }, `not JSON: ${(e as Error).message}`);
  }
}

/** A batch of decoded values as JSON Lines text. */
export function toJsonLines(values: readonly unknown[]): string {
  let out = '';
  for (const v of values) out += JSON.stringify(v) + '\n';
  return out;
}
