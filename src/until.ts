/** The one polling wait: for a state that another process or a background loop brings about. */
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Calls `check` every `everyMs` until it holds; throws naming `what` once `ms` have passed. It checks once
 * even when `ms` is 0, so a caller near its own deadline still sees a state already reached.
 */
export async function until(
  what: string,
  check: () => boolean | Promise<boolean>,
  ms = 20_000,
  everyMs = 100,
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() >= deadline) throw new Error(`${what}: not within ${ms} ms`);
    await sleep(everyMs);
  }
}
