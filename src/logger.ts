/**
 * The root logger, shared by the API and the back-end (in a worker thread too), so every line goes through the
 * same redaction. LOG_FORMAT=pretty: readable lines through pino-pretty; json: one JSON object per line.
 */
import { pino, type Logger } from 'pino';
import { isoNow } from './iso-time.ts';
import { prettyDestination } from './logging/pretty.ts';
import { redactionOptions } from './logging/redaction.ts';
import type { LogFormat, LogLevel } from './logging/settings.ts';

/** `destination`: where JSON lines go instead of stdout (tests, the worker's pipe to the main thread): always JSON. */
export function createLogger(
  config: { logLevel: LogLevel; logFormat?: LogFormat },
  destination?: NodeJS.WritableStream,
): Logger {
  const options = {
    level: config.logLevel,
    base: { service: 'corebridge' },
    timestamp: () => `,"time":"${isoNow()}"`,
    ...redactionOptions(),
  };
  if (destination) return pino(options, destination as pino.DestinationStream);
  // A person reads these as they come: written at once, one line each, the request line in words.
  if (config.logFormat === 'pretty') return pino(options, prettyDestination());
  // One synchronous write per event-loop turn, so lines reach a pipe in order under load
  // (test/observability/log-destination.test.ts).
  return pino(options, linesPerTurn(pino.destination({ dest: 1, sync: true })));
}

type FileDestination = ReturnType<typeof pino.destination>;

/** One 'exit' listener for every destination, ahead of the files' own exit flush. */
const handOvers = new Set<() => void>();
function handOverOnExit(handOver: () => void): void {
  if (handOvers.size === 0) process.prependListener('exit', () => handOvers.forEach((h) => h()));
  handOvers.add(handOver);
}

/**
 * Collects the lines of one event-loop turn and hands them to `file` in one string at the turn's end: no
 * delay, one write per turn instead of one per line. A process.exit() hands over the lines of its turn first.
 */
export function linesPerTurn(
  file: FileDestination,
): pino.DestinationStream & { flush(done?: (error?: Error) => void): void; flushSync(): void } {
  let lines: string[] = [];
  let scheduled = false;
  const handOver = (): void => {
    scheduled = false;
    if (lines.length === 0) return;
    const text = lines.length === 1 ? lines[0]! : lines.join('');
    lines = [];
    file.write(text);
  };
  handOverOnExit(handOver);
  return {
    write(line: string) {
      lines.push(line);
      if (!scheduled) {
        scheduled = true;
        setImmediate(handOver);
      }
    },
    flush(done) {
      handOver();
      file.flush(done);
    },
    flushSync() {
      handOver();
      file.flushSync();
    },
  };
}
