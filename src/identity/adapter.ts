/**
 * oidc-provider's storage (sessions, interactions, codes, grants, refresh tokens…) in a SQLite file under
 * DATA_DIR, so that a restart keeps users signed in and refresh tokens valid, and several processes on one
 * data directory share them. Expired rows are ignored on read and purged on write.
 */
import { chmodSync, closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import type { Adapter, AdapterPayload } from 'oidc-provider';

const SCHEMA = `
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
`;

export function providerStoreFile(dataDir: string): string {
  return join(dataDir, 'identity', 'provider.sqlite');
}

export interface ProviderStore {
  adapterFor(model: string): Adapter;
  close(): void;
}

export function openProviderStore(file: string): ProviderStore {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  // Sessions and refresh tokens live here: owner-only (SQLite gives its -wal and -shm files the same mode).
  closeSync(openSync(file, 'a', 0o600));
  chmodSync(file, 0o600);
  const db = new DatabaseSync(file);
  db.exec('PRAGMA journal_mode = WAL; PRAGMA busy_timeout = 5000;');
  db.exec(SCHEMA);
  const now = () => Date.now();
  const upsert = db.prepare(`INSERT INTO oidc_entries (model, id, payload, grant_id, user_code, uid, expires_at)
    VALUES (?, ?, ?, ?, ?, ?, ?)
    ON CONFLICT (model, id) DO UPDATE SET payload = excluded.payload, grant_id = excluded.grant_id,
      user_code = excluded.user_code, uid = excluded.uid, expires_at = excluded.expires_at`);
  const purge = db.prepare('DELETE FROM oidc_entries WHERE expires_at IS NOT NULL AND expires_at < ?');
  const byId = db.prepare('SELECT payload FROM oidc_entries WHERE model = ? AND id = ? AND (expires_at IS NULL OR expires_at >= ?)');
  const byUid = db.prepare('SELECT payload FROM oidc_entries WHERE model = ? AND uid = ? AND (expires_at IS NULL OR expires_at >= ?)');
  const byUserCode = db.prepare('SELECT payload FROM oidc_entries WHERE model = ? AND user_code = ? AND (expires_at IS NULL OR expires_at >= ?)');
  const remove = db.prepare('DELETE FROM oidc_entries WHERE model = ? AND id = ?');
  const removeGrant = db.prepare('DELETE FROM oidc_entries WHERE grant_id = ?');
  const consume = db.prepare(`UPDATE oidc_entries SET payload = json_set(payload, '$.consumed', ?) WHERE model = ? AND id = ?`);
  let writes = 0;

  const parse = (row: unknown): AdapterPayload | undefined =>
    row ? (JSON.parse((row as { payload: string }).payload) as AdapterPayload) : undefined;

  return {
    adapterFor(model) {
      return {
        async upsert(id, payload, expiresIn) {
          if (++writes % 500 === 0) purge.run(now());
          upsert.run(model, id, JSON.stringify(payload), payload.grantId ?? null, payload.userCode ?? null, payload.uid ?? null,
            expiresIn ? now() + expiresIn * 1000 : null);
        },
        async find(id) {
          return parse(byId.get(model, id, now()));
        },
        async findByUid(uid) {
          return parse(byUid.get(model, uid, now()));
        },
        async findByUserCode(userCode) {
          return parse(byUserCode.get(model, userCode, now()));
        },
        async consume(id) {
          consume.run(Math.floor(now() / 1000), model, id);
        },
        async destroy(id) {
          remove.run(model, id);
        },
        async revokeByGrantId(grantId) {
          removeGrant.run(grantId);
        },
      };
    },
    close() {
      db.close();
    },
  };
}
