-- Operations run later (Prefer: respond-async): the durable queue of requests and their outcomes. A row is the
-- request record as the caller sent it, under the caller and idempotency key it came with; the runner claims
-- it under a lease and runs it as the synchronous call would, and its result (the return code and the
-- response record) is kept for GET /v1/operations/{id}.
CREATE TABLE operations (
  seq                INTEGER PRIMARY KEY AUTOINCREMENT,
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
