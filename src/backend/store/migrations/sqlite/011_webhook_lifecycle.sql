-- A subscription remembers since when its deliveries fail (NULL while they succeed): one failing for longer than
-- WEBHOOK_DISABLE_AFTER is disabled. Disabling it (its owner, a 410, that rule) cancels its pending deliveries,
-- a state of their own. SQLite cannot widen a CHECK in place: webhook_deliveries is made anew with its rows, its
-- sequence, keys and indexes (no table refers to it).
ALTER TABLE webhook_subscriptions ADD COLUMN failing_since TEXT;

CREATE TABLE webhook_deliveries_new (
  seq              INTEGER PRIMARY KEY AUTOINCREMENT,
  delivery_id      TEXT NOT NULL UNIQUE,
  subscription_id  TEXT NOT NULL REFERENCES webhook_subscriptions (subscription_id) ON DELETE CASCADE,
  event_id         TEXT NOT NULL REFERENCES events (event_id),
  event_type       TEXT NOT NULL,
  state            TEXT NOT NULL CHECK (state IN ('pending', 'succeeded', 'failed', 'cancelled')),
  attempts         INTEGER NOT NULL,
  last_status      INTEGER,
  last_error       TEXT,
  next_attempt_at  TEXT,
  lease_until      TEXT,
  created_at       TEXT NOT NULL,
  updated_at       TEXT NOT NULL,
  UNIQUE (subscription_id, event_id)
);
INSERT INTO webhook_deliveries_new (seq, delivery_id, subscription_id, event_id, event_type, state, attempts,
                                    last_status, last_error, next_attempt_at, lease_until, created_at, updated_at)
  SELECT seq, delivery_id, subscription_id, event_id, event_type, state, attempts,
         last_status, last_error, next_attempt_at, lease_until, created_at, updated_at
  FROM webhook_deliveries;
-- The sequence goes on past the numbers of deleted deliveries, as before (a cursor names a seq).
DELETE FROM sqlite_sequence WHERE name = 'webhook_deliveries_new';
INSERT INTO sqlite_sequence (name, seq)
  SELECT 'webhook_deliveries_new', seq FROM sqlite_sequence WHERE name = 'webhook_deliveries';
DROP TABLE webhook_deliveries;
ALTER TABLE webhook_deliveries_new RENAME TO webhook_deliveries;
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE state = 'pending';
CREATE INDEX webhook_deliveries_by_subscription ON webhook_deliveries (subscription_id, seq);
