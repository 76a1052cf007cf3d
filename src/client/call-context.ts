/** What a back-end call carries besides its record: who calls, for which request, in which trace. */
import type { Span } from '@opentelemetry/api';
import type { Role } from '../auth/roles.ts';

/** A caller of the API, or the service itself (its relay, dispatcher and runner) for its own transactions. */
export interface CallerIdentity {
  /** The token subject, or the service part's name. */
  subject: string;
  role: Role | 'system';
  /** The customer a `customer` caller is bound to. */
  customerId: string | null;
}

/** Where a call's failures are logged: a pino logger, or a request's. */
export interface CallLog {
  error(details: object, message: string): void;
}

/** A call's facts as far as it got, for the caller's log line. */
export interface CallFacts {
  tran: string;
  /** null: no answer (the transport failed). */
  rc: number | null;
  reason: string | undefined;
  /** Transport round trip, ms. */
  ms: number;
}

export interface CallContext {
  caller: CallerIdentity;
  /** The request's X-Request-ID, or the service part's own id for the call. */
  correlationId: string;
  idempotencyKey?: string;
  /** The W3C traceparent the call belongs to, when no span of its own is made. */
  traceparent?: string;
  /** The caller's span: the call gets a CLIENT span under it, when tracing is on. */
  span?: Span | null;
  /** Epoch milliseconds after which the call is abandoned (the transport is told to give up). */
  deadline?: number;
  log?: CallLog;
  /** Filled as the call goes, so that the caller's log line tells what the back-end did. */
  facts?: CallFacts;
  /** Background work that can wait a few milliseconds to share the next batch (the transport's `joinNextBatch`). */
  joinNextBatch?: boolean;
}

/** The context of one of the service's own transactions (EVTNXT, WHDDUE, OPNXT, OPDONE): the SYSTEM caller. */
export function systemContext(subject: string, correlationId: string, joinNextBatch = false): CallContext {
  return { caller: { subject, role: 'system', customerId: null }, correlationId, joinNextBatch };
}
