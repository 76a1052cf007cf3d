/** Webhook subscriptions and deliveries (migrations 004/003): repositories over a Tx, plain objects out. */
import type { CallerRole } from '../caller.ts';
import type { Row, Tx } from './tx.ts';

export interface Subscription {
  subscriptionId: string;
  ownerPrincipal: string;
  ownerRole: Exclude<CallerRole, 'SYSTEM'>;
  ownerCustomerId: string | null;
  url: string;
  description: string | null;
  eventTypes: string[];
  /** Sealed by the API (a plain `whsec_` one only in a store from before, until `corebridge webhooks reencrypt`). */
  secret: string;
  status: 'active' | 'disabled';
  disabledReason: string | null;
  createdAt: string;
}

function subscriptionFromRow(row: Row): Subscription {
  return {
    subscriptionId: String(row['subscription_id']),
    ownerPrincipal: String(row['owner_principal']),
    ownerRole: String(row['owner_role']) as Subscription['ownerRole'],
    ownerCustomerId: row['owner_customer_id'] == null ? null : String(row['owner_customer_id']),
    url: String(row['url']),
    description: row['description'] == null ? null : String(row['description']),
    eventTypes: String(row['event_types']).split(',').filter(Boolean),
    secret: String(row['secret']),
    status: String(row['status']) as Subscription['status'],
    disabledReason: row['disabled_reason'] == null ? null : String(row['disabled_reason']),
    createdAt: String(row['created_at']),
  };
}

export async function insertSubscription(tx: Tx, s: Subscription): Promise<void> {
  await tx.run(
    `INSERT INTO webhook_subscriptions (subscription_id, owner_principal, owner_role, owner_customer_id, url, description, event_types, secret, status, disabled_reason, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    s.subscriptionId,
    s.ownerPrincipal,
    s.ownerRole,
    s.ownerCustomerId,
    s.url,
    s.description,
    s.eventTypes.join(','),
    s.secret,
    s.status,
    s.disabledReason,
    s.createdAt,
  );
}

/** A subscription of this owner, or none: another caller's is "not found". */
export async function findOwnSubscription(
  tx: Tx,
  owner: string,
  subscriptionId: string,
): Promise<Subscription | undefined> {
  const row = await tx.get(
    'SELECT * FROM webhook_subscriptions WHERE subscription_id = ? AND owner_principal = ?',
    subscriptionId,
    owner,
  );
  return row ? subscriptionFromRow(row) : undefined;
}

/**
 * How many subscriptions this owner keeps, disabled ones included, with the owner's lock held to the end of the
 * transaction: two creates at once count one after the other.
 */
export async function countOwnSubscriptionsLocked(tx: Tx, owner: string): Promise<number> {
  await tx.lockName(`webhook-subscriptions:${owner}`);
  const row = await tx.get('SELECT COUNT(*) AS n FROM webhook_subscriptions WHERE owner_principal = ?', owner);
  return Number(row?.['n'] ?? 0);
}

/** This owner's subscriptions after `afterSeq` (0: from the oldest), oldest first. */
export async function listOwnSubscriptions(
  tx: Tx,
  owner: string,
  afterSeq: number,
  limit: number,
): Promise<Array<Subscription & { seq: number }>> {
  const rows = await tx.all(
    'SELECT * FROM webhook_subscriptions WHERE owner_principal = ? AND seq > ? ORDER BY seq LIMIT ?',
    owner,
    afterSeq,
    limit,
  );
  return rows.map((row) => ({ ...subscriptionFromRow(row), seq: Number(row['seq']) }));
}

/**
 * This owner's subscription with the same URL and the same set of event types (in any order), if there is one.
 * Only under the owner's lock (countOwnSubscriptionsLocked), so that two equal creates cannot both pass.
 */
export async function findOwnEqualSubscription(
  tx: Tx,
  owner: string,
  url: string,
  eventTypes: readonly string[],
): Promise<Subscription | undefined> {
  const rows = await tx.all(
    'SELECT * FROM webhook_subscriptions WHERE owner_principal = ? AND url = ? ORDER BY seq',
    owner,
    url,
  );
  const wanted = [...eventTypes].sort().join(',');
  return rows.map(subscriptionFromRow).find((s) => [...s.eventTypes].sort().join(',') === wanted);
}

/** A subscription of this owner, locked to the end of the transaction: a disable and a recover wait for each other. */
export async function findOwnSubscriptionForUpdate(
  tx: Tx,
  owner: string,
  subscriptionId: string,
): Promise<Subscription | undefined> {
  const row = await tx.get(
    `SELECT * FROM webhook_subscriptions WHERE subscription_id = ? AND owner_principal = ?${tx.forUpdate}`,
    subscriptionId,
    owner,
  );
  return row ? subscriptionFromRow(row) : undefined;
}

export async function activeSubscriptions(tx: Tx): Promise<Subscription[]> {
  return (await tx.all("SELECT * FROM webhook_subscriptions WHERE status = 'active'")).map(subscriptionFromRow);
}

/** Every subscription's stored secret, locked for the re-encryption that rewrites them. */
export async function subscriptionSecrets(tx: Tx): Promise<Array<{ subscriptionId: string; secret: string }>> {
  const rows = await tx.all(
    `SELECT subscription_id, secret FROM webhook_subscriptions ORDER BY subscription_id${tx.forUpdate}`,
  );
  return rows.map((row) => ({ subscriptionId: String(row['subscription_id']), secret: String(row['secret']) }));
}

export async function replaceSecret(tx: Tx, subscriptionId: string, secret: string): Promise<void> {
  await tx.run('UPDATE webhook_subscriptions SET secret = ? WHERE subscription_id = ?', secret, subscriptionId);
}

export async function deleteSubscription(tx: Tx, subscriptionId: string): Promise<void> {
  await tx.run('DELETE FROM webhook_subscriptions WHERE subscription_id = ?', subscriptionId);
}

export async function disableSubscription(tx: Tx, subscriptionId: string, reason: string): Promise<void> {
  await tx.run(
    "UPDATE webhook_subscriptions SET status = 'disabled', disabled_reason = ? WHERE subscription_id = ?",
    reason,
    subscriptionId,
  );
}

export interface Delivery {
  seq: number;
  deliveryId: string;
  subscriptionId: string;
  eventId: string;
  eventType: string;
  state: 'pending' | 'succeeded' | 'failed';
  attempts: number;
  lastStatus: number | null;
  lastError: string | null;
  nextAttemptAt: string | null;
  createdAt: string;
  updatedAt: string;
}

function deliveryFromRow(row: Row): Delivery {
  return {
    seq: Number(row['seq']),
    deliveryId: String(row['delivery_id']),
    subscriptionId: String(row['subscription_id']),
    eventId: String(row['event_id']),
    eventType: String(row['event_type']),
    state: String(row['state']) as Delivery['state'],
    attempts: Number(row['attempts']),
    lastStatus: row['last_status'] == null ? null : Number(row['last_status']),
    lastError: row['last_error'] == null ? null : String(row['last_error']),
    nextAttemptAt: row['next_attempt_at'] == null ? null : String(row['next_attempt_at']),
    createdAt: String(row['created_at']),
    updatedAt: String(row['updated_at']),
  };
}

export async function insertDelivery(
  tx: Tx,
  d: { deliveryId: string; subscriptionId: string; eventId: string; eventType: string; at: string },
): Promise<void> {
  await tx.run(
    `INSERT INTO webhook_deliveries (delivery_id, subscription_id, event_id, event_type, state, attempts, next_attempt_at, created_at, updated_at)
     VALUES (?, ?, ?, ?, 'pending', 0, ?, ?, ?) ON CONFLICT (subscription_id, event_id) DO NOTHING`,
    d.deliveryId,
    d.subscriptionId,
    d.eventId,
    d.eventType,
    d.at,
    d.at,
    d.at,
  );
}

/** Newest first, before `beforeSeq` (0: from the newest). */
export async function listDeliveries(
  tx: Tx,
  subscriptionId: string,
  beforeSeq: number,
  limit: number,
): Promise<Delivery[]> {
  const rows =
    beforeSeq > 0
      ? await tx.all(
          'SELECT * FROM webhook_deliveries WHERE subscription_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?',
          subscriptionId,
          beforeSeq,
          limit,
        )
      : await tx.all(
          'SELECT * FROM webhook_deliveries WHERE subscription_id = ? ORDER BY seq DESC LIMIT ?',
          subscriptionId,
          limit,
        );
  return rows.map(deliveryFromRow);
}

export async function findDelivery(
  tx: Tx,
  subscriptionId: string,
  deliveryId: string,
  options: { forUpdate?: boolean } = {},
): Promise<Delivery | undefined> {
  const row = await tx.get(
    `SELECT * FROM webhook_deliveries WHERE delivery_id = ? AND subscription_id = ?${options.forUpdate ? tx.forUpdate : ''}`,
    deliveryId,
    subscriptionId,
  );
  return row ? deliveryFromRow(row) : undefined;
}

/** Due again now, with its attempts kept (a manual redelivery). */
export async function rescheduleDelivery(tx: Tx, deliveryId: string, at: string): Promise<void> {
  await tx.run(
    "UPDATE webhook_deliveries SET state = 'pending', next_attempt_at = ?, lease_until = NULL, updated_at = ? WHERE delivery_id = ?",
    at,
    at,
    deliveryId,
  );
}

export interface DueDelivery {
  deliveryId: string;
  subscriptionId: string;
  url: string;
  secret: string;
  ownerRole: string;
  attempts: number;
  eventSeq: number;
}

/**
 * Claims due deliveries of active subscriptions for `leaseUntil`: at most `perEndpoint` in flight per
 * subscription (one slow receiver holds up no other), oldest due first. A claim that runs out (a crashed
 * dispatcher) is due again.
 */
export async function claimDueDeliveries(
  tx: Tx,
  now: string,
  leaseUntil: string,
  max: number,
  perEndpoint: number,
): Promise<DueDelivery[]> {
  // Nothing due is the usual answer (the relay asks after every turn): one probe of webhook_deliveries_due
  // instead of the query below, whose window and CTEs cost 30–160 µs even over empty tables.
  if (
    !(await tx.get(
      "SELECT 1 AS due FROM webhook_deliveries WHERE state = 'pending' AND next_attempt_at <= ? LIMIT 1",
      now,
    ))
  )
    return [];
  // Each subscription's claims in flight counted once (not per due row: a backlog of thousands stays cheap).
  const rows = await tx.all(
    `WITH busy AS (
       SELECT subscription_id, COUNT(*) AS n FROM webhook_deliveries WHERE state = 'pending' AND lease_until >= ? GROUP BY subscription_id
     ), due AS (
       SELECT delivery_id, subscription_id, event_id, attempts, next_attempt_at, seq,
              ROW_NUMBER() OVER (PARTITION BY subscription_id ORDER BY next_attempt_at, seq) AS n
       FROM webhook_deliveries
       WHERE state = 'pending' AND next_attempt_at <= ? AND (lease_until IS NULL OR lease_until < ?)
     )
     SELECT d.delivery_id, d.subscription_id, s.url, s.secret, s.owner_role, d.attempts, e.seq AS event_seq
     FROM due d
     JOIN webhook_subscriptions s ON s.subscription_id = d.subscription_id AND s.status = 'active'
     JOIN events e ON e.event_id = d.event_id
     LEFT JOIN busy b ON b.subscription_id = d.subscription_id
     WHERE d.n <= ? - COALESCE(b.n, 0)
     ORDER BY d.next_attempt_at, d.seq
     LIMIT ?`,
    now,
    now,
    now,
    perEndpoint,
    max,
  );
  // The claim re-checks the lease under the row's lock: another dispatcher's turn that read the same due row
  // (PostgreSQL, READ COMMITTED, several API instances) waits for it, then finds it leased and skips it.
  const claimed: typeof rows = [];
  for (const row of rows) {
    const won = await tx.get(
      'UPDATE webhook_deliveries SET lease_until = ? WHERE delivery_id = ? AND (lease_until IS NULL OR lease_until < ?) RETURNING delivery_id',
      leaseUntil,
      String(row['delivery_id']),
      now,
    );
    if (won) claimed.push(row);
  }
  return claimed.map((row) => ({
    deliveryId: String(row['delivery_id']),
    subscriptionId: String(row['subscription_id']),
    url: String(row['url']),
    secret: String(row['secret']),
    ownerRole: String(row['owner_role']),
    attempts: Number(row['attempts']),
    eventSeq: Number(row['event_seq']),
  }));
}

export type DeliveryOutcome =
  | { kind: 'succeeded'; status: number }
  | { kind: 'retry'; status: number | null; error: string | null; nextAttemptAt: string }
  | { kind: 'failed'; status: number | null; error: string | null };

/** Records one attempt; returns the subscription it was for, or undefined for an unknown delivery. */
export async function recordAttempt(
  tx: Tx,
  deliveryId: string,
  outcome: DeliveryOutcome,
  at: string,
): Promise<string | undefined> {
  const row = await tx.get(
    `SELECT subscription_id FROM webhook_deliveries WHERE delivery_id = ?${tx.forUpdate}`,
    deliveryId,
  );
  if (!row) return undefined;
  const state = outcome.kind === 'retry' ? 'pending' : outcome.kind;
  await tx.run(
    `UPDATE webhook_deliveries SET state = ?, attempts = attempts + 1, last_status = ?, last_error = ?, next_attempt_at = ?, lease_until = NULL, updated_at = ?
     WHERE delivery_id = ?`,
    state,
    outcome.status,
    outcome.kind === 'succeeded' ? null : outcome.error,
    outcome.kind === 'retry' ? outcome.nextAttemptAt : null,
    at,
    deliveryId,
  );
  return String(row['subscription_id']);
}

/** An event a recover looks at: what the audience rule (src/backend/caller.ts) asks, and its time. */
export interface WindowEvent {
  position: number;
  eventId: string;
  type: string;
  resource: string;
  ownerCustomerId: string | null;
  createdBy: string | null;
  occurredAt: string;
}

/**
 * Positioned events of these types raised from `since` on and before `until`, in the order they were raised (by
 * position within one instant), at most `limit`. Who may read them is asked after, by the fan-out's rule.
 */
export async function eventsInWindow(
  tx: Tx,
  query: { types: readonly string[]; since: string; until: string; limit: number },
): Promise<WindowEvent[]> {
  if (query.types.length === 0) return [];
  const rows = await tx.all(
    `SELECT position, event_id, event_type, resource, owner_customer_id, created_by, occurred_at FROM events
     WHERE occurred_at >= ? AND occurred_at < ? AND position IS NOT NULL AND event_type IN (${query.types.map(() => '?').join(', ')})
     ORDER BY occurred_at, position LIMIT ?`,
    query.since,
    query.until,
    ...query.types,
    query.limit,
  );
  return rows.map((row) => ({
    position: Number(row['position']),
    eventId: String(row['event_id']),
    type: String(row['event_type']),
    resource: String(row['resource']),
    ownerCustomerId: row['owner_customer_id'] == null ? null : String(row['owner_customer_id']),
    createdBy: row['created_by'] == null ? null : String(row['created_by']),
    occurredAt: String(row['occurred_at']),
  }));
}

/**
 * Makes the subscription's deliveries of these events due at the time given for each, attempts kept, except one
 * being attempted right now (its lease runs): that one is on its way already, and a second send would only be a
 * duplicate. Returns the events that had a delivery (due again or on its way); the others have none yet.
 */
export async function redueDeliveries(
  tx: Tx,
  subscriptionId: string,
  due: ReadonlyArray<{ eventId: string; dueAt: string }>,
  now: string,
): Promise<Set<string>> {
  const had = new Set<string>();
  // IN lists of at most 500: far below either engine's limit on parameters.
  for (let i = 0; i < due.length; i += 500) {
    const chunk = due.slice(i, i + 500);
    const marks = chunk.map(() => '?').join(', ');
    const ids = chunk.map((d) => d.eventId);
    const rows = await tx.all(
      `UPDATE webhook_deliveries
       SET state = 'pending', lease_until = NULL, updated_at = ?,
           next_attempt_at = CASE event_id ${chunk.map(() => 'WHEN ? THEN ?').join(' ')} END
       WHERE subscription_id = ? AND event_id IN (${marks}) AND NOT (state = 'pending' AND lease_until >= ?)
       RETURNING event_id`,
      now,
      ...chunk.flatMap((d) => [d.eventId, d.dueAt]),
      subscriptionId,
      ...ids,
      now,
    );
    for (const row of rows) had.add(String(row['event_id']));
    const inFlight = await tx.all(
      `SELECT event_id FROM webhook_deliveries
       WHERE subscription_id = ? AND event_id IN (${marks}) AND state = 'pending' AND lease_until >= ?`,
      subscriptionId,
      ...ids,
      now,
    );
    for (const row of inFlight) had.add(String(row['event_id']));
  }
  return had;
}

/** A new delivery, made at `at` and due at `dueAt` (none if the subscription has one of this event already). */
export async function insertDueDelivery(
  tx: Tx,
  d: { deliveryId: string; subscriptionId: string; eventId: string; eventType: string; at: string; dueAt: string },
): Promise<void> {
  await tx.run(
    `INSERT INTO webhook_deliveries (delivery_id, subscription_id, event_id, event_type, state, attempts, next_attempt_at, created_at, updated_at)
     VALUES (?, ?, ?, ?, 'pending', 0, ?, ?, ?) ON CONFLICT (subscription_id, event_id) DO NOTHING`,
    d.deliveryId,
    d.subscriptionId,
    d.eventId,
    d.eventType,
    d.dueAt,
    d.at,
    d.at,
  );
}
