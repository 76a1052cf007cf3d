/**
 * Webhook subscriptions, deliveries (migrations 004/003, 011/009) and their attempts (013/011): repositories over a
 * Tx, plain objects out.
 */
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
  /** When its deliveries started failing, with no success since; null while they succeed. */
  failingSince?: string | null;
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
    failingSince: row['failing_since'] == null ? null : String(row['failing_since']),
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
 * The owner's lock, held to the end of the transaction: what a create or a change checks against the owner's other
 * subscriptions (their count, an equal one) stays true until it commits.
 */
export async function lockOwnerSubscriptions(tx: Tx, owner: string): Promise<void> {
  await tx.lockName(`webhook-subscriptions:${owner}`);
}

/**
 * How many subscriptions this owner keeps, disabled ones included, with the owner's lock held to the end of the
 * transaction: two creates at once count one after the other.
 */
export async function countOwnSubscriptionsLocked(tx: Tx, owner: string): Promise<number> {
  await lockOwnerSubscriptions(tx, owner);
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

/** The secret before a rotation, sealed, and until when it still signs (migrations 012/010). */
export interface PreviousSecret {
  secret: string;
  expiresAt: string;
}

/**
 * Rotates a subscription's secret: the current one becomes the previous one until `previousExpiresAt` (null:
 * dropped at once), replacing any previous one still in its overlap, so at most two sign at a time.
 */
export async function rotateSecret(
  tx: Tx,
  subscriptionId: string,
  secret: string,
  previousExpiresAt: string | null,
  at: string,
): Promise<void> {
  // Each SET reads the row as it was: the secret being replaced becomes the previous one.
  const previous = previousExpiresAt === null ? 'NULL' : 'secret';
  await tx.run(
    `UPDATE webhook_subscriptions SET previous_secret = ${previous}, previous_secret_expires_at = ?, secret = ?, secret_rotated_at = ?
     WHERE subscription_id = ?`,
    previousExpiresAt,
    secret,
    at,
    subscriptionId,
  );
}

/** Every previous secret still stored (expired ones too), locked for the re-encryption that rewrites them. */
export async function previousSubscriptionSecrets(tx: Tx): Promise<Array<{ subscriptionId: string; secret: string }>> {
  const rows = await tx.all(
    `SELECT subscription_id, previous_secret FROM webhook_subscriptions WHERE previous_secret IS NOT NULL ORDER BY subscription_id${tx.forUpdate}`,
  );
  return rows.map((row) => ({
    subscriptionId: String(row['subscription_id']),
    secret: String(row['previous_secret']),
  }));
}

export async function replacePreviousSecret(tx: Tx, subscriptionId: string, secret: string): Promise<void> {
  await tx.run(
    'UPDATE webhook_subscriptions SET previous_secret = ? WHERE subscription_id = ?',
    secret,
    subscriptionId,
  );
}

export async function deleteSubscription(tx: Tx, subscriptionId: string): Promise<void> {
  await tx.run('DELETE FROM webhook_subscriptions WHERE subscription_id = ?', subscriptionId);
}

/** Disabled, and nothing of it left pending: a disabled subscription's pending deliveries would wait forever. */
export async function disableSubscription(tx: Tx, subscriptionId: string, reason: string, at: string): Promise<void> {
  await tx.run(
    "UPDATE webhook_subscriptions SET status = 'disabled', disabled_reason = ? WHERE subscription_id = ?",
    reason,
    subscriptionId,
  );
  await cancelPendingDeliveries(tx, subscriptionId, at);
}

/** A subscription of this owner, locked for the change the transaction makes to it; another caller's is none. */
export async function lockOwnSubscription(
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

/** Writes what an owner may change (URL, types, description, status) and the state that goes with it. */
export async function updateSubscription(tx: Tx, s: Subscription): Promise<void> {
  await tx.run(
    `UPDATE webhook_subscriptions SET url = ?, description = ?, event_types = ?, status = ?, disabled_reason = ?, failing_since = ?
     WHERE subscription_id = ?`,
    s.url,
    s.description,
    s.eventTypes.join(','),
    s.status,
    s.disabledReason,
    s.failingSince ?? null,
    s.subscriptionId,
  );
}

export async function cancelPendingDeliveries(tx: Tx, subscriptionId: string, at: string): Promise<void> {
  await tx.run(
    `UPDATE webhook_deliveries SET state = 'cancelled', next_attempt_at = NULL, lease_until = NULL, updated_at = ?
     WHERE subscription_id = ? AND state = 'pending'`,
    at,
    subscriptionId,
  );
}

/** A delivery succeeded: its subscription is not failing (written only when it was, so a success costs a read). */
export async function clearFailing(tx: Tx, subscriptionId: string): Promise<void> {
  await tx.run(
    'UPDATE webhook_subscriptions SET failing_since = NULL WHERE subscription_id = ? AND failing_since IS NOT NULL',
    subscriptionId,
  );
}

/**
 * An attempt failed: the subscription is failing since `at` unless it already was. Returns its status and since
 * when it fails, or undefined when it is gone.
 */
export async function noteFailing(
  tx: Tx,
  subscriptionId: string,
  at: string,
): Promise<(Subscription & { failingSince: string }) | undefined> {
  const row = await tx.get(
    `UPDATE webhook_subscriptions SET failing_since = COALESCE(failing_since, ?) WHERE subscription_id = ?
     RETURNING *`,
    at,
    subscriptionId,
  );
  if (!row) return undefined;
  return { ...subscriptionFromRow(row), failingSince: String(row['failing_since']) };
}

export interface Delivery {
  seq: number;
  deliveryId: string;
  subscriptionId: string;
  eventId: string;
  eventType: string;
  state: 'pending' | 'succeeded' | 'failed' | 'cancelled';
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

/** A new delivery, made at `at` and due then or at `dueAt` (none if the subscription has one of this event already). */
export async function insertDelivery(
  tx: Tx,
  d: { deliveryId: string; subscriptionId: string; eventId: string; eventType: string; at: string; dueAt?: string },
): Promise<void> {
  await tx.run(
    `INSERT INTO webhook_deliveries (delivery_id, subscription_id, event_id, event_type, state, attempts, next_attempt_at, created_at, updated_at)
     VALUES (?, ?, ?, ?, 'pending', 0, ?, ?, ?) ON CONFLICT (subscription_id, event_id) DO NOTHING`,
    d.deliveryId,
    d.subscriptionId,
    d.eventId,
    d.eventType,
    d.dueAt ?? d.at,
    d.at,
    d.at,
  );
}

/** Newest first, before `beforeSeq` (0: from the newest), only in `state` and of `eventType` when given. */
export async function listDeliveries(
  tx: Tx,
  subscriptionId: string,
  beforeSeq: number,
  limit: number,
  filter: { state?: string; eventType?: string } = {},
): Promise<Delivery[]> {
  const conditions: Array<[string, string | number]> = [['subscription_id = ?', subscriptionId]];
  if (beforeSeq > 0) conditions.push(['seq < ?', beforeSeq]);
  if (filter.state) conditions.push(['state = ?', filter.state]);
  if (filter.eventType) conditions.push(['event_type = ?', filter.eventType]);
  const rows = await tx.all(
    `SELECT * FROM webhook_deliveries WHERE ${conditions.map(([c]) => c).join(' AND ')} ORDER BY seq DESC LIMIT ?`,
    ...conditions.map(([, value]) => value),
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
  /** The secret before a rotation, whether or not its overlap has ended; null when none was kept. */
  previous: PreviousSecret | null;
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
     SELECT d.delivery_id, d.subscription_id, s.url, s.secret, s.previous_secret, s.previous_secret_expires_at, s.owner_role, d.attempts, e.seq AS event_seq
     FROM due d
     JOIN webhook_subscriptions s ON s.subscription_id = d.subscription_id AND s.status = 'active'
     JOIN events e ON e.event_id = d.event_id AND e.position IS NOT NULL
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
    previous:
      row['previous_secret'] == null
        ? null
        : { secret: String(row['previous_secret']), expiresAt: String(row['previous_secret_expires_at']) },
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

/** One attempt of a delivery, as stored. */
export interface DeliveryAttempt {
  seq: number;
  deliveryId: string;
  attemptNumber: number;
  attemptedAt: string;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
  responseBody: string | null;
  nextAttemptAt: string | null;
}

/**
 * Stores an attempt just recorded by recordAttempt, in its transaction: its number is the delivery's count of
 * attempts, which that update has just raised.
 */
export async function insertDeliveryAttempt(tx: Tx, a: Omit<DeliveryAttempt, 'seq' | 'attemptNumber'>): Promise<void> {
  await tx.run(
    `INSERT INTO webhook_delivery_attempts (delivery_id, attempt_number, attempted_at, duration_ms, status_code, error, response_body, next_attempt_at)
     SELECT delivery_id, attempts, ?, ?, ?, ?, ?, ? FROM webhook_deliveries WHERE delivery_id = ?`,
    a.attemptedAt,
    a.durationMs,
    a.statusCode,
    a.error,
    a.responseBody,
    a.nextAttemptAt,
    a.deliveryId,
  );
}

/** A delivery's attempts, newest first, before `beforeSeq` (0: from the newest). */
export async function listDeliveryAttempts(
  tx: Tx,
  deliveryId: string,
  beforeSeq: number,
  limit: number,
): Promise<DeliveryAttempt[]> {
  const rows = await tx.all(
    `SELECT * FROM webhook_delivery_attempts WHERE delivery_id = ?${beforeSeq > 0 ? ' AND seq < ?' : ''} ORDER BY seq DESC LIMIT ?`,
    deliveryId,
    ...(beforeSeq > 0 ? [beforeSeq] : []),
    limit,
  );
  return rows.map((row) => ({
    seq: Number(row['seq']),
    deliveryId: String(row['delivery_id']),
    attemptNumber: Number(row['attempt_number']),
    attemptedAt: String(row['attempted_at']),
    durationMs: Number(row['duration_ms']),
    statusCode: row['status_code'] == null ? null : Number(row['status_code']),
    error: row['error'] == null ? null : String(row['error']),
    responseBody: row['response_body'] == null ? null : String(row['response_body']),
    nextAttemptAt: row['next_attempt_at'] == null ? null : String(row['next_attempt_at']),
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
