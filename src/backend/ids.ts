/**
 * Identifiers of new business objects: a prefix and 64 random bits in hex, e.g. ORD-9D910462994C28C3.
 * The random bytes come from a pool refilled 4 KiB at a time (as Node does for randomUUID): a call into
 * the CSPRNG per identifier costs microseconds on every write.
 */
import { randomFillSync } from 'node:crypto';

const pool = Buffer.alloc(4096);
let offset = pool.length;

export function newId(prefix: 'ORD' | 'PAY' | 'LN'): string {
  if (offset + 8 > pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  const random = pool.toString('hex', offset, offset + 8).toUpperCase();
  offset += 8;
  return `${prefix}-${random}`;
}
