/**
 * The root logger, shared by the API and the back-end (also when the back-end runs in a worker thread),
 * so every line goes through the same redaction. LOG_FORMAT=pretty writes readable lines through
 * pino-pretty (the worker's lines too: they arrive as JSON and are written to this logger's stream);
 * json writes one JSON object per line.
 */
import { pino, type Logger } from 'pino';
import pretty from 'pino-pretty';
import { redactionOptions } from './api/logging/redaction.ts';
import type { LogFormat, LogLevel } from './config.ts';

/** `destination`: where JSON lines go instead of stdout (tests, the worker's pipe to the main thread): always JSON. */
export function createLogger(config: { logLevel: LogLevel; logFormat?: LogFormat }, destination?: NodeJS.WritableStream): Logger {
  const options = { level: config.logLevel, base: { service: 'corebridge' }, timestamp: pino.stdTimeFunctions.isoTime, ...redactionOptions() };
  if (destination) return pino(options, destination as pino.DestinationStream);
  if (config.logFormat === 'pretty') {
    // A person reads these as they come: written at once (no line lost on exit), one line each, without the
    // fields every line repeats.
    return pino(options, pretty({ sync: true, singleLine: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'service,pid,hostname' }));
  }
  // Asynchronous stdout: lines written while a write is pending are batched into the next one, which
  // halves the cost of a request under load and adds no delay when idle. server.ts flushes on shutdown.
  return pino(options, pino.destination({ dest: 1, sync: false }));
}
