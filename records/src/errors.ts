/** Typed errors of the record translation layer: each names where the problem is. */

export type RecordErrorCode =
  | 'COPYBOOK_SYNTAX'
  | 'COPYBOOK_UNSUPPORTED'
  | 'ENCODE_INVALID_VALUE'
  | 'DECODE_INVALID_DATA'
  | 'MAPPING_INVALID'
  | 'DATASET_INVALID';

export abstract class RecordError extends Error {
  abstract readonly code: RecordErrorCode;
}

/** A COPY statement that brought text in: the copybook's name and where the statement is. */
export interface IncludeSite {
  name: string;
  fileName: string;
  line: number;
  column: number;
}

/** ` (in COPY B from A.cpy:4:12, in COPY A from MAIN.cpy:2:8)`: innermost first. */
export function includeChain(includes: readonly IncludeSite[]): string {
  if (includes.length === 0) return '';
  return ` (${includes.map((s) => `in COPY ${s.name} from ${s.fileName}:${s.line}:${s.column}`).join(', ')})`;
}

/** A copybook that cannot be compiled: names the file, line and column, and the COPY statements that led there. */
export class CopybookError extends RecordError {
  readonly code: 'COPYBOOK_SYNTAX' | 'COPYBOOK_UNSUPPORTED';
  readonly fileName: string;
  readonly line: number;
  readonly column: number;
  readonly reason: string;
  /** The COPY statements that included `fileName`, innermost first; empty for the file compiled. */
  readonly includes: readonly IncludeSite[];

  constructor(
    reason: string,
    where: { fileName: string; line: number; column: number; includes?: readonly IncludeSite[] },
    unsupported = false,
  ) {
    super(`${where.fileName}:${where.line}:${where.column}: ${reason}${includeChain(where.includes ?? [])}`);
    this.includes = where.includes ?? [];
    this.name = 'CopybookError';
    this.code = unsupported ? 'COPYBOOK_UNSUPPORTED' : 'COPYBOOK_SYNTAX';
    this.fileName = where.fileName;
    this.line = where.line;
    this.column = where.column;
    this.reason = reason;
  }
}

/**
 * The field limit a value broke, for callers that explain it in their own words (an API says "at most 2
 * decimal places", not "the picture holds 2"). Absent for shape errors (wrong type, unknown field).
 */
export type EncodeLimit =
  | { kind: 'length'; max: number }
  | { kind: 'character'; character: string; position: number; charset: string }
  | { kind: 'decimals'; max: number }
  | { kind: 'range'; min: string; max: string };

/** A JSON value that the record cannot hold: names the JSON path. */
export class RecordEncodeError extends RecordError {
  readonly code = 'ENCODE_INVALID_VALUE' as const;
  path: string;
  readonly reason: string;
  readonly limit: EncodeLimit | undefined;

  constructor(path: string, reason: string, limit?: EncodeLimit) {
    super(`${path || '(record)'}: ${reason}`);
    this.name = 'RecordEncodeError';
    this.path = path;
    this.reason = reason;
    this.limit = limit;
  }

  /** Re-anchors the error under an enclosing path (used by array loops, so paths cost nothing until an error). */
  under(prefix: string): this {
    this.path = this.path === '' ? prefix : this.path.startsWith('[') ? prefix + this.path : `${prefix}.${this.path}`;
    this.message = `${this.path}: ${this.reason}`;
    return this;
  }
}

/** Record bytes that do not match the layout: names the byte offset and the field. */
export class RecordDecodeError extends RecordError {
  readonly code = 'DECODE_INVALID_DATA' as const;
  readonly offset: number;
  readonly field: string;
  readonly reason: string;

  constructor(offset: number, field: string, reason: string) {
    super(`offset ${offset} (${field}): ${reason}`);
    this.name = 'RecordDecodeError';
    this.offset = offset;
    this.field = field;
    this.reason = reason;
  }
}

/** A mapping (renames, omissions, view selection) that does not fit the copybook. */
export class MappingError extends RecordError {
  readonly code = 'MAPPING_INVALID' as const;
  readonly key: string;

  constructor(key: string, reason: string) {
    super(`mapping "${key}": ${reason}`);
    this.name = 'MappingError';
    this.key = key;
  }
}
