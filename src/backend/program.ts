/** What a transaction program receives and answers. Programs are pure business logic over a Tx. */
import type { Logger } from 'pino';
import type { Caller } from './caller.ts';
import type {
  CopybookRecords,
  LINKED_PROGRAMS,
  LinkedProgramName,
  RequestRecord,
  ResponseRecord,
  SegmentRecordName,
  TranCode,
} from './copybooks/index.ts';
import { RC, REPLAYED_REASON, type ReturnCode, type Segment } from './message.ts';
import type { Tx } from './store/tx.ts';

/** The records of a linked program: its request (the COMMAREA as sent) and its response (as it leaves it). */
export type LinkRequestRecord<P extends LinkedProgramName> = CopybookRecords[(typeof LINKED_PROGRAMS)[P]['request']];
export type LinkResponseRecord<P extends LinkedProgramName> = CopybookRecords[(typeof LINKED_PROGRAMS)[P]['response']];

export interface ProgramContext {
  tx: Tx;
  tranCode: string;
  caller: Caller;
  correlationId: string;
  /** The call's W3C traceparent from the record header; empty when it belongs to no trace. */
  traceparent: string;
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
  link<P extends LinkedProgramName>(program: P, request: LinkRequestRecord<P>): LinkResponseRecord<P>;
  /** Reads the request's segments, the records after its fixed-length request record, one after another. */
  segment<N extends SegmentRecordName>(name: N): Readonly<CopybookRecords[N]>;
}

/** `R`: the response record (the transaction's, by its copybook). */
export interface ProgramReply<R = ResponseRecord<TranCode>> {
  returnCode: ReturnCode;
  reasonCode?: string;
  reasonText?: string;
  /** Response record as JSON; absent when the outcome carries no record (not found, invalid input). */
  body?: R;
  /** Records that follow the response record (an event list's events), in order. */
  segments?: Segment[];
}

/** The program of transaction `T`: its request record in, its response record out (copybooks/records.ts). */
export type Program<T extends TranCode> = (
  ctx: ProgramContext,
  request: RequestRecord<T>,
) => Promise<ProgramReply<ResponseRecord<T>>>;

export function ok<R>(body: R): ProgramReply<R> {
  return { returnCode: RC.OK, body };
}

export function rejected<R>(reasonCode: string, body: R, reasonText = ''): ProgramReply<R> {
  return { returnCode: RC.REJECTED, reasonCode, reasonText, body };
}

/**
 * A decided resource (payment, order, loan): REJECTED answers with its reason, anything else OK; both carry its record.
 */
export function decided<R>(outcome: { status: string; rejectReason: string | null }, body: R): ProgramReply<R> {
  return outcome.status === 'REJECTED' ? rejected(outcome.rejectReason ?? '', body) : ok(body);
}

/**
 * The reply to a request already done under the caller's idempotency key: an OK says so in its reason code
 * (REPLAYED_REASON); a REJECTED keeps the reason it was rejected for.
 */
export function replayed<R>(reply: ProgramReply<R>): ProgramReply<R> {
  return reply.returnCode === RC.OK ? { ...reply, reasonCode: REPLAYED_REASON } : reply;
}

/** An outcome without a record: it fits any program's reply. */
export function fail(returnCode: ReturnCode, reasonCode: string, reasonText: string): ProgramReply<never> {
  return { returnCode, reasonCode, reasonText };
}

/**
 * Record text as programs take it: the codec drops trailing spaces, this the leading ones a client may have
 * sent (" Ada"). Optional in the record types: fields with a VALUE clause (decode gives them all the same).
 */
export function text(value: string | undefined): string {
  return (value ?? '').trim();
}
