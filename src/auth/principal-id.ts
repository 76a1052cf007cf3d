/**
 * The id the back-end knows a caller by (CBHDR's HDR-PRINCIPAL): the token's subject when the header can hold it,
 * else a stable fixed-length digest of it, so every request of that user is the same principal.
 */
import { createHash } from 'node:crypto';
import { layoutJsonSchema, type RecordLayout } from '@corebridge/records';

/** Marks a digest; a subject that itself starts with it is digested too, so no subject can pose as another's digest. */
const DIGEST_PREFIX = 'sub~';
/** Printable ASCII without the space: in every code page, and never trimmed as padding. */
const HEADER_SAFE = /^[\x21-\x7e]+$/;

/** HDR-PRINCIPAL's length, from the header copybook. */
export function principalWidth(header: RecordLayout): number {
  const schema = layoutJsonSchema(header) as {
    properties: { hdrCaller: { properties: { hdrPrincipal: { maxLength: number } } } };
  };
  return schema.properties.hdrCaller.properties.hdrPrincipal.maxLength;
}

export function principalIdFor(subject: string, width: number): string {
  if (subject.length <= width && HEADER_SAFE.test(subject) && !subject.startsWith(DIGEST_PREFIX)) return subject;
  const id = DIGEST_PREFIX + createHash('sha256').update(subject, 'utf8').digest('base64url');
  if (id.length > width) throw new Error(`HDR-PRINCIPAL holds ${width} characters, too few for a principal digest`);
  return id;
}
