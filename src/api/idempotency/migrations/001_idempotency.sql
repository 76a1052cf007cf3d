-- The API layer's idempotency records: one per caller and key, with the response to replay.
CREATE TABLE idempotency_records (
  caller            TEXT NOT NULL,
  idempotency_key   TEXT NOT NULL,
  request_hash      TEXT NOT NULL,
  state             TEXT NOT NULL CHECK (state IN ('IN_FLIGHT', 'DONE')),
  status_code       INTEGER,
  content_type      TEXT,
  response_headers  TEXT,
  response_body     TEXT,
  locked_until      BIGINT NOT NULL,
  expires_at        BIGINT NOT NULL,
  created_at        BIGINT NOT NULL,
  PRIMARY KEY (caller, idempotency_key)
);
CREATE INDEX idempotency_records_expiry ON idempotency_records (expires_at);
