/**
 * Health probes come from a balancer or an orchestrator, many to the second from one address, so they are not
 * counted against the per-address rate limits (a burst of other anonymous traffic would turn readiness into 429
 * and take a healthy instance out). What an anonymous probe may cost is bounded here instead.
 */

/**
 * `check` run at most once per `intervalMs`: calls while it runs share its answer, calls within `intervalMs`
 * of its end get that answer, so any number of probes costs one check per interval. A check that throws is
 * "not ready".
 */
export function boundedCheck(check: () => Promise<boolean>, intervalMs: number): () => Promise<boolean> {
  let running: Promise<boolean> | null = null;
  let answer = false;
  // performance.now: a wall-clock step must not freeze the answer or force a check.
  let answeredAt = -Infinity;
  return () => {
    if (running) return running;
    if (performance.now() - answeredAt < intervalMs) return Promise.resolve(answer);
    running = check()
      .catch(() => false)
      .then((ready) => {
        answer = ready;
        answeredAt = performance.now();
        running = null;
        return ready;
      });
    return running;
  };
}
