-- Events: see migrations/sqlite/003_events.sql for what each column means; the same tables.
DROP TABLE outbox;

CREATE TABLE events (
  seq                BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  event_id           TEXT NOT NULL UNIQUE,
  event_type         TEXT NOT NULL,
  resource           TEXT NOT NULL CHECK (resource IN ('order', 'payment', 'loan', 'customer')),
  subject            TEXT NOT NULL,
  owner_customer_id  TEXT,
  created_by         TEXT,
  record_name        TEXT NOT NULL,
  record_json        TEXT NOT NULL,
  correlation_id     TEXT NOT NULL,
  occurred_at        TEXT NOT NULL,
  position           BIGINT UNIQUE,
  published_at       TEXT
);
CREATE INDEX events_unsequenced ON events (seq) WHERE position IS NULL;
CREATE INDEX events_unpublished ON events (position) WHERE position IS NOT NULL AND published_at IS NULL;
CREATE INDEX events_by_owner ON events (owner_customer_id, position);
CREATE INDEX events_by_creator ON events (created_by, position);

CREATE TABLE event_relay (
  id             INTEGER PRIMARY KEY CHECK (id = 1),
  holder         TEXT,
  lease_until    TEXT,
  last_position  BIGINT NOT NULL
);
INSERT INTO event_relay (id, holder, lease_until, last_position) VALUES (1, NULL, NULL, 0);

ALTER TABLE customers ADD COLUMN created_by TEXT;
