import { StringDecoder } from 'node:string_decoder';
import { DatasetError } from './errors.ts';
import type { SourceValue } from './encode.ts';

/**
 * Parses JSON Lines (one JSON value per line, UTF-8; blank lines and a `\r` before the newline are allowed), one
 * batch per chunk of the source. A line that is not JSON is an error naming the line.
 */
export async function* readJsonLines(source: AsyncIterable<Uint8Array | string>): AsyncGenerator<SourceValue[]> {
  const text = new StringDecoder('utf8');
  let rest = '';
  let line = 0;
  const parse = (s: string, batch: SourceValue[]): void => {
    line++;
    const trimmed = s.endsWith('\r') ? s.slice(0, -1) : s;
    if (trimmed.trim() === '') return;
    try {
      batch.push({ value: JSON.parse(trimmed), line });
    } catch (e) {
      throw new DatasetError({ record: 0, offset: 0, line }, `not JSON: ${(e as Error).message}`);
    }
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

/** A batch of decoded values as JSON Lines text. */
export function toJsonLines(values: readonly unknown[]): string {
  let out = '';
  for (const v of values) out += JSON.stringify(v) + '\n';
  return out;
}
