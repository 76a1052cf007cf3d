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

/**
 * The SQL condition that keeps what an audience may read (src/backend/caller.ts); built per kind, so each uses its
 * index.
 */
function audienceFilter(audience: EventAudience): { sql: string; params: SqlValue[] } {
  switch (audience.kind) {
    case 'all':
      return { sql: '', params: [] };
    case 'owner':
      return { sql: ' AND owner_customer_id = ?', params: [audience.customerId] };
    case 'creator':
      return {
        sql: ` AND created_by = ? AND resource IN (${audience.resources.map(() => '?').join(', ')})`,
        params: [audience.principal, ...audience.resources],
      };
    case 'none':
      return { sql: ' AND 1 = 0', params: [] };
  }
}

/** Positioned events after `afterPosition` that the audience may read, oldest first. */
export async function listEvents(
  tx: Tx,
  audience: EventAudience,
  query: { afterPosition: number; type?: string; limit: number },
): Promise<StoredEvent[]> {
  const filter = audienceFilter(audience);
  const typeSql = query.type ? ' AND event_type = ?' : '';
  const rows = await tx.all(
    `SELECT ${COLUMNS} FROM events WHERE position > ?${filter.sql}${typeSql} ORDER BY position LIMIT ?`,
    query.afterPosition,
    ...filter.params,
    ...(query.type ? [query.type] : []),
    query.limit,
  );
  return rows.map(fromRow);
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

/** What fan-out to webhook subscriptions needs of a newly positioned event. */
export interface PositionedEvent {
  position: number;
  eventId: string;
  type: string;
  resource: string;
  ownerCustomerId: string | null;
  createdBy: string | null;
}

const POSITIONED_COLUMNS = 'position, event_id, event_type, resource, owner_customer_id, created_by';

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
      resource: String(row['resource']),
      ownerCustomerId: row['owner_customer_id'] == null ? null : String(row['owner_customer_id']),
      createdBy: row['created_by'] == null ? null : String(row['created_by']),
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
