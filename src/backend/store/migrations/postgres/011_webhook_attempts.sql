-- Every attempt of a webhook delivery: see migrations/sqlite/013_webhook_attempts.sql; the same table.
CREATE TABLE webhook_delivery_attempts (
  seq              BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
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
CREATE INDEX webhook_deliveries_by_state ON webhook_deliveries (subscription_id, state, seq);
CREATE INDEX webhook_deliveries_by_event_type ON webhook_deliveries (subscription_id, event_type, seq);
