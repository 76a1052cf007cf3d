/**
 * The events table (the outbox journal.ts writes) as the relay and the events feed read it, by position:
 * the order consumers see, given so that a reader going by position never misses an event that commits late.
 */
import type { EventAudience } from '../caller.ts';
import { isResourceRecord, type CopybookRecords, type ResourceRecordName } from '../copybooks/index.ts';
import type { Row, SqlValue, Tx } from './tx.ts';

export interface StoredEvent {
  position: number;
  eventId: string;
  type: string;
  subject: string;
  occurredAt: string;
  correlationId: string;
  ownerCustomerId: string | null;
  recordName: ResourceRecordName;
  /** The record `recordName` names, as writeEvent stored it. */
  record: CopybookRecords[ResourceRecordName];
}

function fromRow(row: Row): StoredEvent {
  const recordName = String(row['record_name']);
  if (!isResourceRecord(recordName))
    throw new Error(`event ${String(row['event_id'])} names no resource record (${recordName})`);
  return {
    position: Number(row['position']),
    eventId: String(row['event_id']),
    type: String(row['event_type']),
    subject: String(row['subject']),
    occurredAt: String(row['occurred_at']),
    correlationId: String(row['correlation_id']),
    ownerCustomerId: row['owner_customer_id'] == null ? null : String(row['owner_customer_id']),
    recordName,
    record: JSON.parse(String(row['record_json'])) as CopybookRecords[ResourceRecordName],
  };
}

const COLUMNS =
  'position, event_id, event_type, subject, occurred_at, correlation_id, owner_customer_id, record_name, record_json';
/** COLUMNS of the events row `e`. */
const E_COLUMNS = COLUMNS.split(', ')
  .map((c) => `e.${c}`)
  .join(', ');

/** A piece of SQL and the values of its placeholders, in order. */
interface Sql {
  sql: string;
  params: SqlValue[];
}

function sql(strings: TemplateStringsArray, ...parts: Sql[]): Sql {
  let text = strings[0]!;
  const params: SqlValue[] = [];
  parts.forEach((part, i) => {
    text += part.sql + strings[i + 1]!;
    params.push(...part.params);
  });
  return { sql: text, params };
}
const value = (v: SqlValue): Sql => ({ sql: '?', params: [v] });
const column = (name: string): Sql => ({ sql: name, params: [] });
const anyOf = (parts: readonly Sql[]): Sql => ({
  sql: `(${parts.map((p) => p.sql).join(' OR ')})`,
  params: parts.flatMap((p) => p.params),
});

/** A reader of events in SQL: bound values (one caller) or a webhook_subscriptions row's columns (its owner). */
interface SqlReader {
  principal: Sql;
  customerId: Sql;
}

/**
 * Who receives which event (src/backend/caller.ts says it in words): the only place the rule is written. Per kind
 * of reader, the events of resources it may read through the API; beside them, each reader's own subscriptions'
 * events. Links are read as they are when the events are: a linked partner reads the customer's events, earlier
 * ones too, while the link lasts.
 */
const RESOURCE_EVENTS_OF: Record<'AGENT' | 'CUSTOMER' | 'PARTNER', (r: SqlReader) => Sql> = {
  AGENT: () => sql`e.resource <> 'subscription'`,
  CUSTOMER: (r) => sql`(e.resource <> 'subscription' AND e.owner_customer_id = ${r.customerId})`,
  PARTNER: (r) =>
    sql`((e.resource IN ('order', 'customer') AND e.created_by = ${r.principal}) OR (e.resource = 'customer' AND EXISTS (SELECT 1 FROM partner_customers pc WHERE pc.principal = ${r.principal} AND pc.customer_id = e.subject)))`,
};
const OWN_EVENTS_OF = (r: SqlReader): Sql => sql`(e.resource = 'subscription' AND e.created_by = ${r.principal})`;

/** The condition on the events row `e` that keeps what one caller may read. */
function readableBy(audience: EventAudience): Sql {
  if (audience.kind === 'none') return sql`1 = 0`;
  const reader = {
    principal: value(audience.principal),
    customerId: value(audience.kind === 'customer' ? audience.customerId : null),
  };
  const kind = audience.kind === 'staff' ? 'AGENT' : audience.kind === 'customer' ? 'CUSTOMER' : 'PARTNER';
  return anyOf([RESOURCE_EVENTS_OF[kind](reader), OWN_EVENTS_OF(reader)]);
}

/** The same condition for the owner of the webhook_subscriptions row `s`, whatever its role. */
function readableByOwnerOf(): Sql {
  const owner = { principal: column('s.owner_principal'), customerId: column('s.owner_customer_id') };
  const kinds = Object.entries(RESOURCE_EVENTS_OF).map(
    ([role, rule]) => sql`(s.owner_role = ${value(role)} AND ${rule(owner)})`,
  );
  return anyOf([...kinds, OWN_EVENTS_OF(owner)]);
}

/** Positioned events after `afterPosition` that the audience may read, oldest first. */
export async function listEvents(
  tx: Tx,
  audience: EventAudience,
  query: { afterPosition: number; types?: readonly string[]; since?: string; limit: number },
): Promise<StoredEvent[]> {
  const filter = readableBy(audience);
  const types = query.types ?? [];
  const typeSql = types.length > 0 ? ` AND e.event_type IN (${types.map(() => '?').join(', ')})` : '';
  const sinceSql = query.since ? ' AND e.occurred_at >= ?' : '';
  const rows = await tx.all(
    `SELECT ${E_COLUMNS} FROM events e WHERE e.position > ? AND ${filter.sql}${typeSql}${sinceSql} ORDER BY e.position LIMIT ?`,
    query.afterPosition,
    ...filter.params,
    ...types,
    ...(query.since ? [query.since] : []),
    query.limit,
  );
  return rows.map(fromRow);
}

/** A positioned event the audience may read, or none: another's is "not found". */
export async function findReadableEvent(
  tx: Tx,
  audience: EventAudience,
  eventId: string,
): Promise<StoredEvent | undefined> {
  const filter = readableBy(audience);
  const row = await tx.get(
    `SELECT ${E_COLUMNS} FROM events e WHERE e.event_id = ? AND e.position IS NOT NULL AND ${filter.sql}`,
    eventId,
    ...filter.params,
  );
  return row ? fromRow(row) : undefined;
}

/**
 * The active subscriptions that name each event's type and whose owner may read it, for the positioned events
 * from `fromPosition` through `toPosition`, in position order: the fan-out's answer, by the same rule as the feed.
 * Events that go to one subscription only (`except`: WebhookTest) are left out.
 */
export async function subscriptionsReading(
  tx: Tx,
  range: { fromPosition: number; toPosition: number; except: readonly string[] },
): Promise<Array<{ eventId: string; subscriptionId: string }>> {
  const filter = readableByOwnerOf();
  const except = range.except.length > 0 ? ` AND e.event_type NOT IN (${range.except.map(() => '?').join(', ')})` : '';
  const rows = await tx.all(
    `SELECT e.event_id, s.subscription_id FROM events e
       JOIN webhook_subscriptions s ON s.status = 'active'
        AND (',' || s.event_types || ',') LIKE ('%,' || e.event_type || ',%') AND ${filter.sql}
     WHERE e.position >= ? AND e.position <= ?${except}
     ORDER BY e.position, s.subscription_id`,
    ...filter.params,
    range.fromPosition,
    range.toPosition,
    ...range.except,
  );
  return rows.map((row) => ({ eventId: String(row['event_id']), subscriptionId: String(row['subscription_id']) }));
}

/** An event a recover queues: which, and when it was raised. */
export interface WindowEvent {
  position: number;
  eventId: string;
  type: string;
  occurredAt: string;
}

/**
 * The positioned events raised from `since` on and before `until` that a subscription would have been sent: of its
 * types, and readable by its owner by the fan-out's rule (WebhookTest, sent to one subscription on request, never).
 * In the order raised (by position within one instant), at most `limit`.
 */
export async function eventsInWindowFor(
  tx: Tx,
  subscriptionId: string,
  query: { since: string; until: string; limit: number; except: readonly string[] },
): Promise<WindowEvent[]> {
  const filter = readableByOwnerOf();
  const except = query.except.length > 0 ? ` AND e.event_type NOT IN (${query.except.map(() => '?').join(', ')})` : '';
  const rows = await tx.all(
    `SELECT e.position, e.event_id, e.event_type, e.occurred_at FROM events e
       JOIN webhook_subscriptions s ON s.subscription_id = ?
        AND (',' || s.event_types || ',') LIKE ('%,' || e.event_type || ',%') AND ${filter.sql}
     WHERE e.occurred_at >= ? AND e.occurred_at < ? AND e.position IS NOT NULL${except}
     ORDER BY e.occurred_at, e.position LIMIT ?`,
    subscriptionId,
    ...filter.params,
    query.since,
    query.until,
    ...query.except,
    query.limit,
  );
  return rows.map((row) => ({
    position: Number(row['position']),
    eventId: String(row['event_id']),
    type: String(row['event_type']),
    occurredAt: String(row['occurred_at']),
  }));
}

export interface RelayState {
  holder: string | null;
  leaseUntil: string | null;
  lastPosition: number;
}

/** The relay's lease row, locked until the transaction ends: one relay gives positions at a time. */
export async function lockRelay(tx: Tx): Promise<RelayState> {
  const row = await tx.get(`SELECT holder, lease_until, last_position FROM event_relay WHERE id = 1${tx.forUpdate}`);
  if (!row) throw new Error('event_relay has no row (migration 003/002 not applied)');
  return {
    holder: row['holder'] == null ? null : String(row['holder']),
    leaseUntil: row['lease_until'] == null ? null : String(row['lease_until']),
    lastPosition: Number(row['last_position']),
  };
}

export async function saveRelay(tx: Tx, state: RelayState): Promise<void> {
  await tx.run(
    'UPDATE event_relay SET holder = ?, lease_until = ?, last_position = ? WHERE id = 1',
    state.holder,
    state.leaseUntil,
    state.lastPosition,
  );
}

/** What fan-out to webhook subscriptions needs of a newly positioned event (who reads it, it asks in SQL). */
export interface PositionedEvent {
  position: number;
  eventId: string;
  type: string;
}

const POSITIONED_COLUMNS = 'position, event_id, event_type';

/**
 * The events after `lastPosition` (at most `max`, in position order): those the relay has not handed on yet.
 * Only under the relay's lock (lockRelay). Where transactions commit concurrently (PostgreSQL), events are
 * written without a position, and this gives the next ones, in `seq` order, to those that have committed;
 * where they commit in insert order (SQLite), each event took its position as it was written (journal.ts),
 * and this only reads them.
 */
export async function nextPositionedEvents(tx: Tx, lastPosition: number, max: number): Promise<PositionedEvent[]> {
  const given = tx.commitsInInsertOrder
    ? await tx.all(
        `SELECT ${POSITIONED_COLUMNS} FROM events WHERE position > ? ORDER BY position LIMIT ?`,
        lastPosition,
        max,
      )
    : await tx.all(
        `UPDATE events SET position = ? + numbered.n
       FROM (SELECT seq, ROW_NUMBER() OVER (ORDER BY seq) AS n FROM events WHERE position IS NULL ORDER BY seq LIMIT ?) AS numbered
       WHERE events.seq = numbered.seq
       RETURNING ${POSITIONED_COLUMNS}`,
        lastPosition,
        max,
      );
  return given
    .map((row) => ({
      position: Number(row['position']),
      eventId: String(row['event_id']),
      type: String(row['event_type']),
    }))
    .sort((a, b) => a.position - b.position);
}

/**
 * Takes back the positions after `lastPosition` that this turn gave but did not hand on (its fan-out stopped
 * short), so the next turn gives them again in the same order; nothing to do where events took theirs as written.
 */
export async function returnPositionsAfter(tx: Tx, lastPosition: number): Promise<void> {
  if (tx.commitsInInsertOrder) return;
  await tx.run('UPDATE events SET position = NULL WHERE position > ?', lastPosition);
}

export async function eventsBySeq(tx: Tx, seqs: readonly number[]): Promise<Map<number, StoredEvent>> {
  if (seqs.length === 0) return new Map();
  const rows = await tx.all(
    `SELECT seq, ${COLUMNS} FROM events WHERE seq IN (${seqs.map(() => '?').join(', ')})`,
    ...seqs,
  );
  return new Map(rows.map((row) => [Number(row['seq']), fromRow(row)]));
}

/**
 * Every event up to `throughPosition` is published. The relay publishes in position order and a broker confirms
 * a prefix, so what is published is one mark (event_relay.published_through), not a mark on each event's row.
 */
export async function markPublished(tx: Tx, throughPosition: number): Promise<void> {
  await tx.run(
    'UPDATE event_relay SET published_through = ? WHERE id = 1 AND published_through < ?',
    throughPosition,
    throughPosition,
  );
}

/** The oldest events the relay has handed on (up to `throughPosition`) and not published yet. */
export async function unpublishedEvents(tx: Tx, throughPosition: number, limit: number): Promise<StoredEvent[]> {
  const rows = await tx.all(
    `SELECT ${COLUMNS} FROM events WHERE position > (SELECT published_through FROM event_relay WHERE id = 1) AND position <= ? ORDER BY position LIMIT ?`,
    throughPosition,
    limit,
  );
  return rows.map(fromRow);
}
