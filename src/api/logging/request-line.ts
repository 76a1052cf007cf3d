/**
 * The request's log line, the same JSON pino would write with the same redaction, but built by concatenation
 * because its fields are known; a logger it cannot serve the same way gets the object through pino.
 */
import type { FastifyBaseLogger } from 'fastify';
import { pino, type Logger } from 'pino';
import type { CallFacts } from '../../client/call-context.ts';
import { scrub } from '../../logging/redaction.ts';

export interface RequestLine {
  method: string;
  url: string;
  route: string | undefined;
  status: number;
  /** Rounded to hundredths. */
  ms: number;
  principal: string | undefined;
  /** The client's address: the peer's, or the one a trusted proxy names (TRUST_PROXY). */
  client?: string;
  code: string | undefined;
  backend: CallFacts | undefined;
  trace_id: string | undefined;
  span_id: string | undefined;
}

const { lsCacheSym, timeSym, chindingsSym, streamSym, mixinSym, hooksSym, needsMetadataGsym, messageKeySym, endSym } =
  pino.symbols;

type Internals = Record<symbol, unknown>;

/** Writes `line` with `msg` at `level` (when enabled). */
export function writeRequestLine(
  requestLog: FastifyBaseLogger,
  level: 'debug' | 'info' | 'error',
  msg: string,
  line: RequestLine,
): void {
  // Fastify's request logger is the pino child the root logger (src/logger.ts) made.
  const log = requestLog as Logger;
  if (!log.isLevelEnabled(level)) return;
  // pino's write internals are not in its types; they are read once and checked
  // eslint-disable-next-line no-restricted-syntax -- the comment above says why
  const own = log as unknown as Internals;
  const stream = own[streamSym] as { write(text: string): void } & Internals;
  if (own[mixinSym] || (own[hooksSym] as { streamWrite?: unknown }).streamWrite || stream[needsMetadataGsym] === true) {
    log[level](line, msg);
    return;
  }
  // pino's own prefix for the level (its level formatter applied), its time, and the bindings of the
  // request's child logger, serialized once when the child was made.
  const levelPrefix = (own[lsCacheSym] as Record<number, string>)[log.levels.values[level]!]!;
  let text =
    levelPrefix +
    (own[timeSym] as () => string)() +
    (own[chindingsSym] as string) +
    ',"method":' +
    str(line.method) +
    ',"url":' +
    str(line.url);
  if (line.route !== undefined) text += ',"route":' + str(line.route);
  text += ',"status":' + num(line.status) + ',"ms":' + hundredths(line.ms);
  if (line.principal !== undefined) text += ',"principal":' + str(line.principal);
  if (line.client !== undefined) text += ',"client":' + str(line.client);
  if (line.code !== undefined) text += ',"code":' + str(line.code);
  const backend = line.backend;
  if (backend !== undefined) {
    text += ',"backend":{"tran":' + str(backend.tran) + ',"rc":' + (backend.rc === null ? 'null' : num(backend.rc));
    if (backend.reason !== undefined) text += ',"reason":' + str(backend.reason);
    text += ',"ms":' + hundredths(backend.ms) + '}';
  }
  if (line.trace_id !== undefined) text += ',"trace_id":' + str(line.trace_id);
  if (line.span_id !== undefined) text += ',"span_id":' + str(line.span_id);
  stream.write(text + ',' + JSON.stringify(own[messageKeySym]) + ':' + str(msg) + (own[endSym] as string));
}

function str(value: string): string {
  return JSON.stringify(scrub(value));
}

/** As JSON.stringify and pino write numbers: a non-finite one as null. */
function num(value: number): string {
  return Number.isFinite(value) ? String(value) : 'null';
}

/**
 * A duration rounded to hundredths, as `num` writes it, from integers: V8 formats a fractional double through
 * its shortest-representation search, a small integer from a cache.
 */
function hundredths(value: number): string {
  const h = Math.round(value * 100);
  if (h / 100 !== value || h < 0 || h > 0x3fffffff) return num(value);
  const whole = Math.trunc(h / 100);
  const part = h - whole * 100;
  if (part === 0) return String(whole);
  return part % 10 === 0 ? `${whole}.${part / 10}` : `${whole}.${part < 10 ? '0' : ''}${part}`;
}
