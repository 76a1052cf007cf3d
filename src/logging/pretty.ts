/**
 * LOG_FORMAT=pretty: pino-pretty's lines, with the request line (src/api/logging/request-line.ts) said as a person
 * reads it — `201 POST /v1/payments <duration> ms alan req=…` — instead of its fields as JSON. JSON logs keep
 * the fields.
 */
import { pino } from 'pino';
import { prettyFactory } from 'pino-pretty';
import { isLoopbackAddress } from '../loopback.ts';

const REQUEST_MESSAGES = new Set(['request completed', 'request failed']);

/** The request line's fields the readable message says; any other field stays after it. */
const SAID = ['requestId', 'method', 'url', 'route', 'status', 'ms', 'principal', 'client', 'code', 'backend'];

/** The addresses a development client comes from: not worth a word on every line. */

/** A duration as a person reads it: tenths under 10 ms, whole milliseconds above. */
function duration(ms: unknown): string | null {
  if (typeof ms !== 'number' || !Number.isFinite(ms)) return null;
  return `${ms < 10 ? ms.toFixed(1) : Math.round(ms)} ms`;
}

function isRequestLine(log: Record<string, unknown>): boolean {
  return (
    REQUEST_MESSAGES.has(log['msg'] as string) &&
    typeof log['method'] === 'string' &&
    typeof log['url'] === 'string' &&
    typeof log['status'] === 'number'
  );
}

/** The request line as one readable message, the fields it says taken off; any other line as it is. */
export function readableRequestLine(log: Record<string, unknown>): Record<string, unknown> {
  if (!isRequestLine(log)) return log;
  const words = [String(log['status']), log['method'] as string, log['url'] as string];
  const took = duration(log['ms']);
  if (took) words.push(took);
  if (typeof log['principal'] === 'string') words.push(log['principal']);
  if (typeof log['client'] === 'string' && !isLoopbackAddress(log['client'])) words.push(`from ${log['client']}`);
  if (typeof log['requestId'] === 'string') words.push(`req=${log['requestId']}`);
  if (typeof log['code'] === 'string') words.push(log['code']);
  const backend = log['backend'] as { tran?: unknown; rc?: unknown; reason?: unknown; ms?: unknown } | undefined;
  if (backend && typeof backend === 'object') {
    words.push(`backend ${String(backend.tran)} rc=${String(backend.rc)}`);
    if (typeof backend.reason === 'string') words.push(backend.reason);
    const backendTook = duration(backend.ms);
    if (backendTook) words.push(backendTook);
  }
  const rest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(log)) if (!SAID.includes(key)) rest[key] = value;
  rest['msg'] = words.join(' ');
  return rest;
}

const OPTIONS = {
  singleLine: true,
  translateTime: 'SYS:HH:MM:ss.l',
  // The fields every line repeats.
  ignore: 'service,pid,hostname',
};

type Destination = pino.DestinationStream & { flush(done?: (error?: Error) => void): void; flushSync(): void };

/**
 * A destination that writes each JSON line pino makes as pino-pretty's readable line, at once (no line lost on
 * exit), one line each: to stdout, or to `to` (tests). The back-end worker's lines reach it too, as JSON, through
 * the main thread's logger.
 */
export function prettyDestination(
  options: { colorize?: boolean; to?: { write(text: string): unknown } } = {},
): Destination {
  const prettify = prettyFactory({
    ...OPTIONS,
    ...(options.colorize === undefined ? {} : { colorize: options.colorize }),
  });
  const file = options.to ? null : pino.destination({ dest: 1, sync: true });
  const out = options.to ?? file!;
  return {
    write(line: string) {
      let log: unknown = null;
      try {
        log = JSON.parse(line);
      } catch {
        // not JSON: pino-pretty passes it through
      }
      const text = prettify(
        log !== null && typeof log === 'object' ? readableRequestLine(log as Record<string, unknown>) : line,
      );
      if (text) out.write(text);
    },
    flush: (done) => (file ? file.flush(done) : done?.()),
    flushSync: () => file?.flushSync(),
  };
}
