/** The embedded default: the back-end runs in this process, still reached through encoded bytes. */
import type { Backend } from '../backend/index.ts';
import { CallNotStartedError, type Transport } from './transport.ts';

export function inProcessTransport(backend: Backend): Transport {
  let closed = false;
  return {
    async call(request) {
      if (closed) throw new CallNotStartedError('transport closed');
      // Copy both ways: the two sides never share a buffer, as over a wire. Only an answer that waits for
      // a linked program is a promise: the inquiries read on the API thread pay no extra await.
      const reply = backend.handleBatch([Buffer.from(request)])[0]!;
      return Buffer.from(Buffer.isBuffer(reply) ? reply : await reply);
    },
    async ready() {
      return !closed && backend.ready();
    },
    async close() {
      if (closed) return;
      closed = true;
      await backend.idle();
      await backend.close();
    },
  };
}
