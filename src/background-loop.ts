/**
 * The one shape of the API process's background work (event relay, webhook dispatcher, operation runner):
 * turns one at a time, polled or kicked, with jittered doubling backoff and sparse logging while failing.
 */
import type { Logger } from 'pino';

export interface BackgroundLoop {
  /** There may be work now: the next turn starts without waiting for the poll. */
  kick(): void;
  /** Stops after the turn under way. */
  close(): Promise<void>;
}

const MAX_BACKOFF_MS = 30_000;

/** 0.5 s, 1 s, 2 s, … up to 30 s, times 0.5–1: jitter, so instances that failed together retry apart. */
export function backoff(failures: number): number {
  return Math.min(MAX_BACKOFF_MS, 250 * 2 ** Math.min(failures, 7)) * (0.5 + Math.random() / 2);
}

export function startBackgroundLoop(options: {
  log: Logger;
  /** What fails, for the log line: "event relay turn", … */
  what: string;
  pollMs: number;
  /** One turn; true when there is more to do at once. */
  turn(): Promise<boolean>;
}): BackgroundLoop {
  let closed = false;
  let kicked = false;
  let wake: (() => void) | null = null;

  function sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wake = null;
        resolve();
      }
      wake = done;
    });
  }

  async function run(): Promise<void> {
    let failures = 0;
    while (!closed) {
      kicked = false;
      let again = false;
      try {
        again = await options.turn();
        if (failures > 0) options.log.info({ failures }, `${options.what} works again`);
        failures = 0;
      } catch (error) {
        failures++;
        // One line when it starts failing and one per ten after, so an outage does not flood the log.
        if (failures === 1 || failures % 10 === 0) options.log.warn({ err: error, failures }, `${options.what} failed`);
      }
      if (closed) break;
      if (failures > 0) await sleep(backoff(failures));
      else if (!again && !kicked) await sleep(options.pollMs);
    }
  }

  const running = run();
  return {
    kick() {
      kicked = true;
      wake?.();
    },
    async close() {
      closed = true;
      wake?.();
      await running;
    },
  };
}
