-- Events: a past-tense fact per state change, written in the business transaction (the outbox).
-- `seq` is insertion order: a change that waited for another's row lock comes after it. `position` is the
-- order consumers see (the events feed, the broker): the relay gives positions, in `seq` order, to what has
-- committed, so a position never appears before one below it. The old outbox table was written for
-- LoanApproved only and never read; its rows never left the store.
DROP TABLE outbox;

CREATE TABLE events (
  seq                INTEGER PRIMARY KEY AUTOINCREMENT,
  event_id           TEXT NOT NULL UNIQUE,
  event_type         TEXT NOT NULL,
  resource           TEXT NOT NULL CHECK (resource IN ('order', 'payment', 'loan', 'customer')),
  subject            TEXT NOT NULL,
  -- who may see it: the customer the resource belongs to, and the principal that created the resource
  owner_customer_id  TEXT,
  created_by         TEXT,
  -- the resource as its response record (copybook `record_name`), as the program answered it
  record_name        TEXT NOT NULL,
  record_json        TEXT NOT NULL,
  correlation_id     TEXT NOT NULL,
  occurred_at        TEXT NOT NULL,
  position           INTEGER UNIQUE,
  published_at       TEXT
);
CREATE INDEX events_unsequenced ON events (seq) WHERE position IS NULL;
CREATE INDEX events_unpublished ON events (position) WHERE position IS NOT NULL AND published_at IS NULL;
CREATE INDEX events_by_owner ON events (owner_customer_id, position);
CREATE INDEX events_by_creator ON events (created_by, position);

-- The one relay that gives positions: whoever holds the lease (several API instances may run one each).
CREATE TABLE event_relay (
  id             INTEGER PRIMARY KEY CHECK (id = 1),
  holder         TEXT,
  lease_until    TEXT,
  last_position  INTEGER NOT NULL
);
INSERT INTO event_relay (id, holder, lease_until, last_position) VALUES (1, NULL, NULL, 0);

-- Who onboarded a customer (a partner sees the events of the customers it onboarded); NULL for older rows.
ALTER TABLE customers ADD COLUMN created_by TEXT;
