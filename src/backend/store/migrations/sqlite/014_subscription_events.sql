-- Events may be about a webhook subscription (WebhookTest, WebhookSubscriptionDisabled), addressed to its owner
-- (created_by). SQLite cannot change a CHECK in place: the table is made again with its rows, seq and indexes.
-- The deliveries' references to the rows are checked when this migration commits, once the rows are back.
PRAGMA defer_foreign_keys = ON;
CREATE TEMP TABLE events_before AS SELECT * FROM events;
CREATE TEMP TABLE events_seq_before AS SELECT seq FROM sqlite_sequence WHERE name = 'events';
DROP TABLE events;
CREATE TABLE events (
  seq                INTEGER PRIMARY KEY AUTOINCREMENT,
  event_id           TEXT NOT NULL UNIQUE,
  event_type         TEXT NOT NULL,
  resource           TEXT NOT NULL CHECK (resource IN ('order', 'payment', 'loan', 'customer', 'subscription')),
  subject            TEXT NOT NULL,
  owner_customer_id  TEXT,
  created_by         TEXT,
  record_name        TEXT NOT NULL,
  record_json        TEXT NOT NULL,
  correlation_id     TEXT NOT NULL,
  occurred_at        TEXT NOT NULL,
  position           INTEGER UNIQUE
);
INSERT INTO events (seq, event_id, event_type, resource, subject, owner_customer_id, created_by, record_name,
                    record_json, correlation_id, occurred_at, position)
  SELECT seq, event_id, event_type, resource, subject, owner_customer_id, created_by, record_name, record_json,
         correlation_id, occurred_at, position FROM events_before ORDER BY seq;
UPDATE sqlite_sequence SET seq = MAX(seq, COALESCE((SELECT seq FROM events_seq_before), 0)) WHERE name = 'events';
DROP TABLE events_before;
DROP TABLE events_seq_before;
CREATE INDEX events_unsequenced ON events (seq) WHERE position IS NULL;
CREATE INDEX events_by_owner ON events (owner_customer_id, position);
CREATE INDEX events_by_creator ON events (created_by, position);
-- A time window (the feed's `since`, a recover's window) is found by time, not by reading every event; by time
-- alone, so that giving an event its position does not rewrite an entry of this index.
CREATE INDEX events_by_time ON events (occurred_at);
