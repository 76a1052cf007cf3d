/**
 * Inquiries to one transport, everything else to another: with the embedded back-end, reads are served
 * from a read-only SQLite connection on the API's thread (WAL readers never wait for the writer), and
 * writes cross to the worker that owns the store and group-commits. Both still carry encoded messages.
 * A read sees every write already answered: the worker answers only after its commit, and an answered
 * write ends the reader's current snapshot (`afterWrite`).
 */
import type { Transport } from './transport.ts';

export function splitReads(
  isInquiry: (message: Buffer) => boolean,
  reads: Transport,
  writes: Transport,
  afterWrite: () => void = () => {},
): Transport {
  return {
    async call(request, options) {
      if (isInquiry(request)) return reads.call(request, options);
      try {
        return await writes.call(request, options);
      } finally {
        afterWrite();
      }
    },
    async ready() {
      return (await writes.ready()) && (await reads.ready());
    },
    async close() {
      await writes.close();
      await reads.close();
    },
  };
}
