-- Webhook subscriptions and their deliveries. A subscription belongs to the caller that made it (principal,
-- role, customer), and receives only events its owner may read. A delivery is one event to one
-- subscription: made when the relay gives the event its position, then tried until it succeeds or fails
-- for good; attempts and due times are stored, so a restart neither loses one nor tries one early.
CREATE TABLE webhook_subscriptions (
  subscription_id    TEXT PRIMARY KEY,
  owner_principal    TEXT NOT NULL,
  owner_role         TEXT NOT NULL CHECK (owner_role IN ('AGENT', 'PARTNER', 'CUSTOMER')),
  owner_customer_id  TEXT,
  url                TEXT NOT NULL,
  description        TEXT,
  event_types        TEXT NOT NULL,
  secret             TEXT NOT NULL,
  status             TEXT NOT NULL CHECK (status IN ('active', 'disabled')),
  disabled_reason    TEXT,
  created_at         TEXT NOT NULL
);
CREATE INDEX webhook_subscriptions_by_owner ON webhook_subscriptions (owner_principal, created_at);

CREATE TABLE webhook_deliveries (
  seq              INTEGER PRIMARY KEY AUTOINCREMENT,
  delivery_id      TEXT NOT NULL UNIQUE,
  subscription_id  TEXT NOT NULL REFERENCES webhook_subscriptions (subscription_id) ON DELETE CASCADE,
  event_id         TEXT NOT NULL REFERENCES events (event_id),
  event_type       TEXT NOT NULL,
  state            TEXT NOT NULL CHECK (state IN ('pending', 'succeeded', 'failed')),
  attempts         INTEGER NOT NULL,
  last_status      INTEGER,
  last_error       TEXT,
  next_attempt_at  TEXT,
  lease_until      TEXT,
  created_at       TEXT NOT NULL,
  updated_at       TEXT NOT NULL,
  UNIQUE (subscription_id, event_id)
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE state = 'pending';
CREATE INDEX webhook_deliveries_by_subscription ON webhook_deliveries (subscription_id, seq);
