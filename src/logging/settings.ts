/** The root logger's settings (LOG_*). */
import { choice, read, section, type Env } from '../settings/schema.ts';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** `pretty`: readable lines for a terminal (pino-pretty); `json`: one object per line, for files, pipes, collectors. */
export type LogFormat = 'pretty' | 'json';
const LOG_FORMATS: readonly LogFormat[] = ['pretty', 'json'];

export const LOGGING_SETTINGS = section('Logs', {
  LOG_LEVEL: choice<LogLevel>(LOG_LEVELS, { default: 'info', description: 'the least severe lines written' }),
  LOG_FORMAT: choice<LogFormat>(LOG_FORMATS, { description: 'default pretty when stdout is a terminal, else json' }),
});

export interface LoggingSettings {
  logLevel: LogLevel;
  /** LOG_FORMAT; default `pretty` when stdout is a terminal, else `json`. */
  logFormat: LogFormat;
}

export function loadLoggingSettings(env: Env): LoggingSettings {
  return {
    logLevel: read(env, LOGGING_SETTINGS, 'LOG_LEVEL'),
    // Readable lines for a person at a terminal; JSON for anything that reads them back.
    logFormat: read(env, LOGGING_SETTINGS, 'LOG_FORMAT') ?? (process.stdout.isTTY ? 'pretty' : 'json'),
  };
}
