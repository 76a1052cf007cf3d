-- oidc-provider's storage: one row per model and id (sessions, interactions, codes, grants, refresh tokens…).
-- IF NOT EXISTS: stores made before this migration have the table already.
CREATE TABLE IF NOT EXISTS oidc_entries (
  model TEXT NOT NULL,
  id TEXT NOT NULL,
  payload TEXT NOT NULL,
  grant_id TEXT,
  user_code TEXT,
  uid TEXT,
  expires_at INTEGER,
  PRIMARY KEY (model, id)
);
CREATE INDEX IF NOT EXISTS oidc_entries_grant ON oidc_entries (grant_id);
CREATE INDEX IF NOT EXISTS oidc_entries_uid ON oidc_entries (model, uid);
