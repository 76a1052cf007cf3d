-- Every attempt of a webhook delivery, written in the transaction that records its result: when it started, how
-- long it took, the HTTP status or the network error, the first 1 KB of the answer's body (text, control
-- characters replaced) and when it is tried next. Gone with its delivery (and so with its subscription).
CREATE TABLE webhook_delivery_attempts (
  seq              INTEGER PRIMARY KEY AUTOINCREMENT,
  delivery_id      TEXT NOT NULL REFERENCES webhook_deliveries (delivery_id) ON DELETE CASCADE,
  attempt_number   INTEGER NOT NULL,
  attempted_at     TEXT NOT NULL,
  duration_ms      INTEGER NOT NULL,
  status_code      INTEGER,
  error            TEXT,
  response_body    TEXT,
  next_attempt_at  TEXT
);
CREATE INDEX webhook_delivery_attempts_by_delivery ON webhook_delivery_attempts (delivery_id, seq);
-- The history's filters: a subscription's deliveries in one state, or of one event type, newest first.
CREATE INDEX webhook_deliveries_by_state ON webhook_deliveries (subscription_id, state, seq);
CREATE INDEX webhook_deliveries_by_event_type ON webhook_deliveries (subscription_id, event_type, seq);
