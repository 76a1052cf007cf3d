/** Audit and event (outbox) rows, written inside the business transaction they describe. */
import { newEventId } from '../ids.ts';
import type { CopybookRecords, ResourceRecordName } from '../copybooks/index.ts';
import type { Tx } from './tx.ts';

/** The program's context an audit row takes its transaction, caller and clock from. */
export interface AuditContext {
  tx: Tx;
  tranCode: string;
  caller: { principal: string };
  correlationId: string;
  now: string;
}

/** One audit row: who did `action` to `entity` `entityId`, in which transaction, when. */
export async function writeAudit(ctx: AuditContext, entity: string, entityId: string, action: string): Promise<void> {
  await ctx.tx.run(
    'INSERT INTO audit_log (tran_code, entity, entity_id, action, principal, correlation_id, at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    ctx.tranCode, entity, entityId, action, ctx.caller.principal, ctx.correlationId, ctx.now,
  );
}

/** Every kind of event the back-end raises: one past-tense fact per state change. */
export const EVENT_TYPES = [
  'OrderConfirmed', 'OrderRejected', 'OrderUpdated', 'OrderCancelled',
  'PaymentCompleted', 'PaymentRejected',
  'LoanApproved', 'LoanRejected',
  'CustomerCreated', 'CustomerUpdated',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

export type EventResource = 'order' | 'payment' | 'loan' | 'customer';

export interface NewEvent<N extends ResourceRecordName> {
  type: EventType;
  resource: EventResource;
  /** The resource's id. */
  subject: string;
  /** Who may see it: the customer the resource belongs to, and the principal that created the resource. */
  ownerCustomerId: string | null;
  createdBy: string | null;
  /** The resource as its response record, exactly as the program answers it. */
  recordName: N;
  record: CopybookRecords[N];
}

/** Writes an event in the transaction of the change it tells of, under that transaction's correlation id and time. */
export async function writeEvent<N extends ResourceRecordName>(ctx: { tx: Tx; correlationId: string; now: string }, e: NewEvent<N>): Promise<void> {
  await ctx.tx.run(
    `INSERT INTO events (event_id, event_type, resource, subject, owner_customer_id, created_by, record_name, record_json, correlation_id, occurred_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    newEventId(), e.type, e.resource, e.subject, e.ownerCustomerId, e.createdBy, e.recordName, JSON.stringify(e.record),
    ctx.correlationId, ctx.now,
  );
}
