/** What a transaction program receives and answers. Programs are pure business logic over a Tx. */
import type { Logger } from 'pino';
import type { Caller } from './caller.ts';
import type { LinkedProgramName, SegmentRecordName } from './copybooks/index.ts';
import { RC, type ReturnCode, type Segment } from './message.ts';
import type { Tx } from './store/tx.ts';

export interface ProgramContext {
  tx: Tx;
  tranCode: string;
  caller: Caller;
  correlationId: string;
  /** Empty when the caller sent none. */
  idempotencyKey: string;
  /** ISO timestamp of this transaction, one clock reading for every row it writes. */
  now: string;
  log: Logger;
  /**
   * Calls a linked program (CICS LINK) with its request record and returns its response record; it may
   * run elsewhere, in which case this program runs again once the answer is in (src/backend/links.ts).
   * Throws LinkFailure when the program does not complete.
   */
  link(program: LinkedProgramName, request: Record<string, unknown>): Record<string, unknown>;
  /** Reads the request's segments, the records after its fixed-length request record, one after another. */
  segment(name: SegmentRecordName): Record<string, unknown>;
}

export interface ProgramReply {
  returnCode: ReturnCode;
  reasonCode?: string;
  reasonText?: string;
  /** Response record as JSON; absent when the outcome carries no record (not found, invalid input). */
  body?: Record<string, unknown>;
  /** Records that follow the response record (an event list's events), in order. */
  segments?: Segment[];
}

export type Program = (ctx: ProgramContext, request: Record<string, unknown>) => Promise<ProgramReply>;

export function ok(body: Record<string, unknown>): ProgramReply {
  return { returnCode: RC.OK, body };
}

export function rejected(reasonCode: string, body: Record<string, unknown>, reasonText = ''): ProgramReply {
  return { returnCode: RC.REJECTED, reasonCode, reasonText, body };
}

/** A decided resource (payment, order, loan): REJECTED answers with its reason, anything else OK; both carry its record. */
export function decided(outcome: { status: string; rejectReason: string | null }, body: Record<string, unknown>): ProgramReply {
  return outcome.status === 'REJECTED' ? rejected(outcome.rejectReason ?? '', body) : ok(body);
}

export function fail(returnCode: ReturnCode, reasonCode: string, reasonText: string): ProgramReply {
  return { returnCode, reasonCode, reasonText };
}

/** Alphanumeric record fields arrive trimmed; blank means absent. */
export function field(request: Record<string, unknown>, name: string): string {
  const value = request[name];
  return typeof value === 'string' ? value.trim() : value == null ? '' : String(value);
}
