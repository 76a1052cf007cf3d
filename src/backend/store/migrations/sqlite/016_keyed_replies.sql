-- The reply of a call whose effect has no row of its own to hold the caller's idempotency key (a webhook test
-- event, a recover), kept under the key in the call's transaction: a retry gets this reply, not a second effect.
CREATE TABLE keyed_replies (
  principal         TEXT NOT NULL,
  idempotency_key   TEXT NOT NULL,
  tran_code         TEXT NOT NULL,
  request_hash      TEXT NOT NULL,
  reply_json        TEXT NOT NULL,
  created_at        TEXT NOT NULL,
  PRIMARY KEY (principal, idempotency_key)
);
