/**
 * Conditional requests (RFC 9110 §13) on resources whose ETag is their version: `"<version>"`. Versions
 * start at 1, so `"0"` names no version, and an unconditional change must say so with `If-Match: *`.
 */
import { ApiError } from '../errors.ts';

/** The precondition a change carries to the back-end: a version, or `any` for `If-Match: *`. */
export type IfMatch = { kind: 'any' } | { kind: 'version'; version: number };

/** A strong entity-tag list member: `"…"`; weak ones start with `W/`. */
const ENTITY_TAG = /^(W\/)?"([\x21\x23-\x7e]*)"$/;
const VERSION = /^[1-9][0-9]{0,8}$/;

function entityTags(header: string): { weak: boolean; opaque: string }[] {
  return header
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)
    .map((tag) => {
      const m = ENTITY_TAG.exec(tag);
      if (!m) {
        throw new ApiError('VALIDATION_FAILED', 'not an entity-tag list: send the ETag as read, e.g. "3"', {
          violations: [{ pointer: '/if-match', in: 'header', detail: 'is not a list of entity-tags' }],
        });
      }
      return { weak: m[1] !== undefined, opaque: m[2]! };
    });
}

export function etagOf(version: number): string {
  return `"${version}"`;
}

/**
 * `If-Match` of a change: required (428 without it). Strong comparison: a weak tag never matches, nor does a
 * tag that is no version of this resource (`"0"`), so both fail the precondition without reaching the back-end.
 */
export function requiredIfMatch(header: string | undefined, what: string): IfMatch {
  if (header === undefined || header.trim() === '') {
    throw new ApiError(
      'PRECONDITION_REQUIRED',
      `send If-Match with the ETag of the ${what} as read (or * to change it whatever its version)`,
    );
  }
  if (header.trim() === '*') return { kind: 'any' };
  const strong = entityTags(header).filter((tag) => !tag.weak && VERSION.test(tag.opaque));
  // The back-end checks one version under its row lock; a list names at most one the client read.
  if (strong.length !== 1)
    throw new ApiError('PRECONDITION_FAILED', `If-Match names no current version of this ${what}`);
  return { kind: 'version', version: Number(strong[0]!.opaque) };
}

/** `If-None-Match` of a read, weak comparison (RFC 9110 §13.1.2): true when the client's copy is current. */
export function noneMatchHolds(header: string | undefined, currentEtag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  const current = currentEtag.slice(1, -1);
  try {
    return entityTags(header).some((tag) => tag.opaque === current);
  } catch {
    // A malformed If-None-Match is ignored (the request is answered in full), as caches do.
    return false;
  }
}
