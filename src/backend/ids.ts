/** Identifiers of new business objects: a prefix and 64 random bits in hex, e.g. ORD-9D910462994C28C3. */
import { randomBytes } from 'node:crypto';

export function newId(prefix: 'ORD' | 'PAY' | 'LN' | 'WHS' | 'WHD' | 'OP'): string {
  return `${prefix}-${randomBytes(8).toString('hex').toUpperCase()}`;
}
