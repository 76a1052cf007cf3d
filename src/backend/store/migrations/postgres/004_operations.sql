-- Operations run later: see migrations/sqlite/005_operations.sql; the same table.
CREATE TABLE operations (
  seq                BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  operation_id       TEXT NOT NULL UNIQUE,
  tran_code          TEXT NOT NULL,
  owner_principal    TEXT NOT NULL,
  owner_role         TEXT NOT NULL,
  owner_customer_id  TEXT,
  idempotency_key    TEXT NOT NULL,
  correlation_id     TEXT NOT NULL,
  request_json       TEXT NOT NULL,
  status             TEXT NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
  lease_until        TEXT,
  return_code        INTEGER,
  reason_code        TEXT,
  reason_text        TEXT,
  result_record      TEXT,
  result_json        TEXT,
  created_at         TEXT NOT NULL,
  completed_at       TEXT,
  UNIQUE (owner_principal, idempotency_key)
);
CREATE INDEX operations_pending ON operations (seq) WHERE status = 'pending';
