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
    ctx.tranCode,
    entity,
    entityId,
    action,
    ctx.caller.principal,
    ctx.correlationId,
    ctx.now,
  );
}

/**
 * The kinds of event a subscription may name: one past-tense fact per state change. WebhookSubscriptionDisabled
 * tells a subscription's owner that deliveries to it stopped (sent to the owner's other subscriptions that name it).
 */
export const EVENT_TYPES = [
  'OrderConfirmed',
  'OrderRejected',
  'OrderUpdated',
  'OrderCancelled',
  'PaymentCompleted',
  'PaymentRejected',
  'LoanApproved',
  'LoanRejected',
  'CustomerCreated',
  'CustomerUpdated',
  'WebhookSubscriptionDisabled',
] as const;

/**
 * Every kind of event the back-end raises: those above, and WebhookTest, which its owner asks for and which goes
 * to the one subscription it names only (no subscription names it, so it is no subscribable type).
 */
export const ALL_EVENT_TYPES = [...EVENT_TYPES, 'WebhookTest'] as const;

/** The event types the fan-out and a recover never send: each goes to the one subscription it was raised for. */
export const ONE_SUBSCRIPTION_EVENTS: readonly EventType[] = ['WebhookTest'];

export type EventType = (typeof ALL_EVENT_TYPES)[number];

/** Events about a webhook subscription are addressed to its owner (created_by) only. */
export type EventResource = 'order' | 'payment' | 'loan' | 'customer' | 'subscription';

/** The kind of resource each event type is about. */
export const EVENT_RESOURCE: Record<EventType, EventResource> = {
  OrderConfirmed: 'order',
  OrderRejected: 'order',
  OrderUpdated: 'order',
  OrderCancelled: 'order',
  PaymentCompleted: 'payment',
  PaymentRejected: 'payment',
  LoanApproved: 'loan',
  LoanRejected: 'loan',
  CustomerCreated: 'customer',
  CustomerUpdated: 'customer',
  WebhookSubscriptionDisabled: 'subscription',
  WebhookTest: 'subscription',
};

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

const EVENT_COLUMNS =
  'event_id, event_type, resource, subject, owner_customer_id, created_by, record_name, record_json, correlation_id, occurred_at';

/**
 * SQLite's next events.seq: one past the largest it ever gave (AUTOINCREMENT keeps that in sqlite_sequence), or
 * past the largest row if that is higher. The event takes it as its seq and as its position.
 */
const NEXT_EVENT_SEQ =
  "SELECT MAX(COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'events'), 0), COALESCE((SELECT MAX(seq) FROM events), 0)) + 1 AS n";

/**
 * Writes an event in the transaction of the change it tells of, under that transaction's correlation id and time;
 * answers its id.
 * Where transactions commit in the order they write (SQLite's one writer, Tx.commitsInInsertOrder), the event
 * takes its feed position here, so no later transaction gives it one; elsewhere the relay does, once it has
 * committed (store/events.ts, nextPositionedEvents).
 */
export async function writeEvent<N extends ResourceRecordName>(
  ctx: { tx: Tx; correlationId: string; now: string },
  e: NewEvent<N>,
): Promise<string> {
  const eventId = newEventId();
  const values = [
    eventId,
    e.type,
    e.resource,
    e.subject,
    e.ownerCustomerId,
    e.createdBy,
    e.recordName,
    JSON.stringify(e.record),
    ctx.correlationId,
    ctx.now,
  ];
  if (ctx.tx.commitsInInsertOrder) {
    await ctx.tx.run(
      `INSERT INTO events (seq, position, ${EVENT_COLUMNS}) SELECT next.n, next.n, ?, ?, ?, ?, ?, ?, ?, ?, ?, ? FROM (${NEXT_EVENT_SEQ}) AS next`,
      ...values,
    );
  } else {
    await ctx.tx.run(`INSERT INTO events (${EVENT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, ...values);
  }
  return eventId;
}
