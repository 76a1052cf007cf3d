/**
 * Page cursors: opaque to clients, a versioned and encoded keyset position (`<kind>1:<number>` in base64url),
 * so the kind and its meaning can change without clients noticing; one that this API did not issue is a 400
 * naming the query parameter.
 */
import { Type } from 'typebox';
import { ApiError } from '../errors.ts';

/** The query parameter's schema: what a cursor looks like on the wire. */
export const CursorParam = (description: string, options: { deprecated?: true } = {}) =>
  Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_-]{1,40}$', description, ...options }));

export function cursorCodec(kind: 'o' | 'e' | 'd' | 'a' | 'p' | 'l' | 's' | 't', parameter: string) {
  const pattern = new RegExp(`^${kind}1:([0-9]{1,15})$`);
  return {
    encode: (position: number): string => Buffer.from(`${kind}1:${position}`).toString('base64url'),
    decode(cursor: string): number {
      const match = pattern.exec(Buffer.from(cursor, 'base64url').toString('latin1'));
      if (!match) {
        throw new ApiError('VALIDATION_FAILED', `${parameter} is not a cursor this API issued`, {
          violations: [{ pointer: `/${parameter}`, in: 'query', detail: 'is not a valid cursor' }],
        });
      }
      return Number(match[1]);
    },
  };
}
