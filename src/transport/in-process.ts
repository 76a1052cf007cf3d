/** The embedded default: the back-end runs in this process, still reached through encoded bytes. */
import type { Backend } from '../backend/index.ts';
import { CallNotStartedError, type Transport } from './transport.ts';

export function inProcessTransport(backend: Backend): Transport {
  let closed = false;
  /**
   * Calls sent and not answered yet: close() answers them first. A count, not a set of the calls: a Set
   * rebuilds its table as it grows and shrinks with the calls of every turn, garbage that outlives young
   * collections.
   */
  let inFlight = 0;
  let drained: (() => void) | null = null;
  return {
    async call(request) {
      if (closed) throw new CallNotStartedError('transport closed');
      // Copy both ways: the two sides never share a buffer, as over a wire. An answer that waits for a
      // linked program is a promise of its own.
      const copy = Buffer.from(request);
      inFlight += 1;
      try {
        const reply = (await backend.handleBatch([copy]))[0]!;
        return Buffer.from(Buffer.isBuffer(reply) ? reply : await reply);
      } finally {
        inFlight -= 1;
        if (inFlight === 0) drained?.();
      }
    },
    async ready() {
      return !closed && (await backend.ready());
    },
    async close() {
      if (closed) return;
      closed = true;
      if (inFlight > 0) await new Promise<void>((resolve) => (drained = resolve));
      await backend.idle();
      await backend.close();
    },
  };
}
