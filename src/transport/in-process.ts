/** The embedded default: the back-end runs in this process, still reached through encoded bytes. */
import type { Backend } from '../backend/index.ts';
import { CallNotStartedError, type Transport } from './transport.ts';

export function inProcessTransport(backend: Backend): Transport {
  let closed = false;
  /** Calls sent and not answered yet: close() answers them first. */
  const inFlight = new Set<Promise<unknown>>();
  return {
    async call(request) {
      if (closed) throw new CallNotStartedError('transport closed');
      // Copy both ways: the two sides never share a buffer, as over a wire. An answer that waits for a
      // linked program is a promise of its own.
      const answer = backend.handleBatch([Buffer.from(request)]).then((replies) => replies[0]!);
      inFlight.add(answer);
      try {
        const reply = await answer;
        return Buffer.from(Buffer.isBuffer(reply) ? reply : await reply);
      } finally {
        inFlight.delete(answer);
      }
    },
    async ready() {
      return !closed && (await backend.ready());
    },
    async close() {
      if (closed) return;
      closed = true;
      await Promise.allSettled([...inFlight]);
      await backend.idle();
      await backend.close();
    },
  };
}
