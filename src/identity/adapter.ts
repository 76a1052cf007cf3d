/**
 * oidc-provider's storage (sessions, interactions, codes, grants, refresh tokens…) in a SQLite file under
 * DATA_DIR, so that a restart keeps users signed in and refresh tokens valid, and several processes on one
 * data directory share them. Expired rows are ignored on read and purged on write.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Adapter, AdapterPayload } from 'oidc-provider';
import { SqliteDatabase } from '../sqlite.ts';

const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/', import.meta.url));

export function providerStoreFile(dataDir: string): string {
  return join(dataDir, 'identity', 'provider.sqlite');
}

export interface ProviderStore {
  adapterFor(model: string): Adapter;
  close(): void;
}

export function openProviderStore(file: string): ProviderStore {
  // Sessions and refresh tokens live here: owner-only.
  const store = new SqliteDatabase(file, { ownerOnly: true });
  store.migrate(MIGRATIONS_DIR);
  const db = store.db;
  const now = () => Date.now();
  const upsert = db.prepare(`INSERT INTO oidc_entries (model, id, payload, grant_id, user_code, uid, expires_at)
    VALUES (?, ?, ?, ?, ?, ?, ?)
    ON CONFLICT (model, id) DO UPDATE SET payload = excluded.payload, grant_id = excluded.grant_id,
      user_code = excluded.user_code, uid = excluded.uid, expires_at = excluded.expires_at`);
  const purge = db.prepare('DELETE FROM oidc_entries WHERE expires_at IS NOT NULL AND expires_at < ?');
  const byId = db.prepare(
    'SELECT payload FROM oidc_entries WHERE model = ? AND id = ? AND (expires_at IS NULL OR expires_at >= ?)',
  );
  const byUid = db.prepare(
    'SELECT payload FROM oidc_entries WHERE model = ? AND uid = ? AND (expires_at IS NULL OR expires_at >= ?)',
  );
  const byUserCode = db.prepare(
    'SELECT payload FROM oidc_entries WHERE model = ? AND user_code = ? AND (expires_at IS NULL OR expires_at >= ?)',
  );
  const remove = db.prepare('DELETE FROM oidc_entries WHERE model = ? AND id = ?');
  const removeGrant = db.prepare('DELETE FROM oidc_entries WHERE grant_id = ?');
  const consume = db.prepare(
    `UPDATE oidc_entries SET payload = json_set(payload, '$.consumed', ?) WHERE model = ? AND id = ?`,
  );
  let writes = 0;

  const parse = (row: unknown): AdapterPayload | undefined =>
    row ? (JSON.parse((row as { payload: string }).payload) as AdapterPayload) : undefined;

  return {
    adapterFor(model) {
      return {
        async upsert(id, payload, expiresIn) {
          if (++writes % 500 === 0) purge.run(now());
          upsert.run(
            model,
            id,
            JSON.stringify(payload),
            payload.grantId ?? null,
            payload.userCode ?? null,
            payload.uid ?? null,
            expiresIn ? now() + expiresIn * 1000 : null,
          );
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
      store.close();
    },
  };
}
