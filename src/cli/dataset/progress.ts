/** The progress of a conversion on stderr: bytes, records per second and time left, only on a terminal. */
import { createRequire } from 'node:module';
import type * as CliProgress from 'cli-progress';

const require = createRequire(import.meta.url);

export interface Progress {
  /** Bytes read so far and records done so far. */
  update(bytes: number, records: number): void;
  stop(): void;
}

const QUIET: Progress = { update: () => {}, stop: () => {} };

function megabytes(bytes: number): string {
  return `${(bytes / 1e6).toFixed(1)} MB`;
}

/** A bar when `stream` is a terminal and the user did not ask for quiet; otherwise nothing is drawn. */
export function progressOn(stream: NodeJS.WritableStream, total: number | undefined, quiet: boolean): Progress {
  if (quiet || (stream as { isTTY?: boolean }).isTTY !== true) return QUIET;
  const started = Date.now();
  const known = total !== undefined && total > 0;
  // the bar's library only where a bar is drawn: a pipe or --quiet never loads it
  const { SingleBar } = require('cli-progress') as typeof CliProgress;
  const bar = new SingleBar({
    stream: stream as NodeJS.WriteStream,
    format: known
      ? '{bar} {percentage}% | {done} of {size} | {rate} records/s | ETA {eta_formatted}'
      : '{done} | {rate} records/s',
    hideCursor: true,
    clearOnComplete: true,
    etaBuffer: 50,
    fps: 5,
  });
  bar.start(known ? total : 1, 0, { done: megabytes(0), size: known ? megabytes(total) : '', rate: 0 });
  return {
    update(bytes, records) {
      const seconds = (Date.now() - started) / 1000;
      const rate = seconds > 0 ? Math.round(records / seconds) : 0;
      bar.update(known ? Math.min(bytes, total) : 0, { done: megabytes(bytes), rate });
    },
    stop() {
      bar.stop();
    },
  };
}
