import { RecordError } from '../errors.ts';

/** Where a fault is: a record of a file (decode, verify) or a line of JSON Lines input (encode). */
export interface DatasetPlace {
  /** 1-based record number; 0 when the fault is before the first record (a block header). */
  record: number;
  /** Byte offset in the file where the record (its RDW for V/VB) or block starts. */
  offset: number;
  /** The COBOL name of the field at fault (decode) or the JSON path of the value (encode). */
  field?: string | undefined;
  /** Encode: the 1-based line of the JSON Lines input. */
  line?: number | undefined;
}

/**
 * A data set that does not match its layout or record format, or input that cannot become one: names the record
 * and its byte offset (or the input line), the field when one is at fault, and why.
 */
export class DatasetError extends RecordError {
  readonly code = 'DATASET_INVALID' as const;
  readonly record: number;
  readonly offset: number;
  readonly field: string | undefined;
  readonly line: number | undefined;
  readonly reason: string;

  constructor(where: DatasetPlace, reason: string) {
    const field = where.field === undefined || where.field === '' ? '' : ` (${where.field})`;
    const place = where.line === undefined ? `record ${where.record} at byte ${where.offset}` : `line ${where.line}`;
    super(`${place}${field}: ${reason}`);
    this.name = 'DatasetError';
    this.record = where.record;
    this.offset = where.offset;
    this.field = where.field;
    this.line = where.line;
    this.reason = reason;
  }

  /** The error as one entry of a JSON Lines error report (`--errors FILE`). */
  toJSON(): { record: number; offset: number; line?: number; field?: string; reason: string } {
    return {
      record: this.record,
      offset: this.offset,
      ...(this.line === undefined ? {} : { line: this.line }),
      ...(this.field === undefined ? {} : { field: this.field }),
      reason: this.reason,
    };
  }
}
