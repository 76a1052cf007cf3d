/**
 * The root logger, shared by the API and the back-end (also when the back-end runs in a worker thread),
 * so every line goes through the same redaction.
 */
import { pino, type Logger } from 'pino';
import { redactionOptions } from './api/logging/redaction.ts';
import type { LogLevel } from './config.ts';

export function createLogger(config: { logLevel: LogLevel }, destination?: NodeJS.WritableStream): Logger {
  const options = { level: config.logLevel, base: { service: 'corebridge' }, timestamp: pino.stdTimeFunctions.isoTime, ...redactionOptions() };
  if (destination) return pino(options, destination as pino.DestinationStream);
  // Asynchronous stdout: lines written while a write is pending are batched into the next one, which
  // halves the cost of a request under load and adds no delay when idle. server.ts flushes on shutdown.
  return pino(options, pino.destination({ dest: 1, sync: false }));
}
