/** The embedded default: the back-end runs in this process, still reached through encoded bytes. */
import type { Backend } from '../backend/index.ts';
import { TransportError, type Transport } from './transport.ts';

export function inProcessTransport(backend: Backend): Transport {
  let closed = false;
  return {
    async call(request) {
      if (closed) throw new TransportError('transport closed');
      // Copy both ways: the two sides never share a buffer, as over a wire.
      return Buffer.from(await backend.handle(Buffer.from(request)));
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
