/**
 * Inquiries to one transport, everything else to another: with the embedded back-end, reads run on a read-only
 * SQLite connection on the API's thread (WAL readers never wait) and writes go to the worker that owns the store.
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
