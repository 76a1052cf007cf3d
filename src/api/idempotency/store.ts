/**
 * The API layer's idempotency records (own SQLite file, separate from the back-end's). A key is
 * scoped to the caller; an in-flight record holds a lease so a crashed process does not block the
 * key for ever. Exactly-once of the business effect is the back-end's job (the key travels in the
 * record header); this store replays responses and detects misuse.
 */
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DatabaseSync, type StatementSync } from 'node:sqlite';

const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/', import.meta.url));

function migrate(db: DatabaseSync): void {
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)');
  const applied = new Set(db.prepare('SELECT name FROM schema_migrations').all().map((r) => String(r['name'])));
  for (const name of readdirSync(MIGRATIONS_DIR).filter((f) => f.endsWith('.sql')).sort()) {
    if (applied.has(name)) continue;
    db.exec('BEGIN IMMEDIATE');
    try {
      db.exec(readFileSync(join(MIGRATIONS_DIR, name), 'utf8'));
      db.prepare('INSERT INTO schema_migrations (name, applied_at) VALUES (?, ?)').run(name, new Date().toISOString());
      db.exec('COMMIT');
    } catch (error) {
      db.exec('ROLLBACK');
      throw error;
    }
  }
}

/** Rows deleted per purge statement. */
export const PURGE_CHUNK = 500;

/** Purges expired records chunk by chunk, letting requests run between chunks; resolves with the count. */
export async function purgeInChunks(store: IdempotencyStore, stopped: () => boolean = () => false): Promise<number> {
  let total = 0;
  for (;;) {
    const n = store.purgeExpired(PURGE_CHUNK);
    total += n;
    if (n < PURGE_CHUNK || stopped()) return total;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

export interface StoredResponse {
  statusCode: number;
  contentType: string;
  headers: Record<string, string>;
  body: string;
}

export type BeginResult =
  | { outcome: 'execute' }
  | { outcome: 'replay'; response: StoredResponse }
  | { outcome: 'mismatch' }
  | { outcome: 'in-flight' };

export interface IdempotencyStore {
  begin(caller: string, key: string, requestHash: string): BeginResult;
  complete(caller: string, key: string, response: StoredResponse): void;
  /** Forgets an in-flight key whose request failed without a result to replay. */
  release(caller: string, key: string): void;
  /** Deletes at most `maxRows` expired records (a bounded statement: the event loop is never held long). */
  purgeExpired(maxRows?: number): number;
  /** Forgets every record (demo data reload). */
  clear(): void;
  close(): void;
}

export function openIdempotencyStore(file: string, options: { ttlSeconds: number; leaseMs: number; now?: () => number }): IdempotencyStore {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const db = new DatabaseSync(file, { timeout: 5000 });
  db.exec('PRAGMA journal_mode = WAL');
  // NORMAL: in WAL mode a commit survives a process crash, only a power loss may drop the newest ones.
  // Losing one is harmless: the back-end keeps the key with the business row and finds the original.
  db.exec('PRAGMA synchronous = NORMAL');
  migrate(db);
  const now = options.now ?? Date.now;
  const statements = new Map<string, StatementSync>();
  const sql = (text: string) => {
    let s = statements.get(text);
    if (!s) statements.set(text, (s = db.prepare(text)));
    return s;
  };

  return {
    begin(caller, key, requestHash) {
      const t = now();
      // The usual case, a new key: one statement, no explicit transaction.
      const fresh = sql(
        `INSERT INTO idempotency_records (caller, idempotency_key, request_hash, state, locked_until, expires_at, created_at)
         VALUES (?, ?, ?, 'IN_FLIGHT', ?, ?, ?) ON CONFLICT (caller, idempotency_key) DO NOTHING`,
      ).run(caller, key, requestHash, t + options.leaseMs, t + options.ttlSeconds * 1000, t);
      if (Number(fresh.changes) === 1) return { outcome: 'execute' };
      sql('BEGIN IMMEDIATE').run();
      try {
        const row = sql('SELECT * FROM idempotency_records WHERE caller = ? AND idempotency_key = ?').get(caller, key);
        let result: BeginResult;
        if (!row || Number(row['expires_at']) <= t) {
          sql(
            `INSERT INTO idempotency_records (caller, idempotency_key, request_hash, state, locked_until, expires_at, created_at)
             VALUES (?, ?, ?, 'IN_FLIGHT', ?, ?, ?)
             ON CONFLICT (caller, idempotency_key) DO UPDATE SET request_hash = excluded.request_hash, state = 'IN_FLIGHT',
               status_code = NULL, content_type = NULL, response_headers = NULL, response_body = NULL,
               locked_until = excluded.locked_until, expires_at = excluded.expires_at, created_at = excluded.created_at`,
          ).run(caller, key, requestHash, t + options.leaseMs, t + options.ttlSeconds * 1000, t);
          result = { outcome: 'execute' };
        } else if (row['request_hash'] !== requestHash) {
          result = { outcome: 'mismatch' };
        } else if (row['state'] === 'DONE') {
          result = {
            outcome: 'replay',
            response: {
              statusCode: Number(row['status_code']),
              contentType: String(row['content_type']),
              headers: JSON.parse(String(row['response_headers'] ?? '{}')) as Record<string, string>,
              body: String(row['response_body'] ?? ''),
            },
          };
        } else if (Number(row['locked_until']) > t) {
          result = { outcome: 'in-flight' };
        } else {
          // The holder's lease ran out (it crashed or hung): take over. The back-end finds any effect
          // the first attempt committed under the same key, so re-executing cannot duplicate it.
          sql('UPDATE idempotency_records SET locked_until = ? WHERE caller = ? AND idempotency_key = ?').run(
            t + options.leaseMs, caller, key,
          );
          result = { outcome: 'execute' };
        }
        sql('COMMIT').run();
        return result;
      } catch (error) {
        if (db.isTransaction) sql('ROLLBACK').run();
        throw error;
      }
    },
    complete(caller, key, response) {
      sql(
        `UPDATE idempotency_records SET state = 'DONE', status_code = ?, content_type = ?, response_headers = ?, response_body = ?
         WHERE caller = ? AND idempotency_key = ?`,
      ).run(response.statusCode, response.contentType, JSON.stringify(response.headers), response.body, caller, key);
    },
    release(caller, key) {
      sql("DELETE FROM idempotency_records WHERE caller = ? AND idempotency_key = ? AND state = 'IN_FLIGHT'").run(caller, key);
    },
    purgeExpired(maxRows = PURGE_CHUNK) {
      return Number(sql(
        'DELETE FROM idempotency_records WHERE rowid IN (SELECT rowid FROM idempotency_records WHERE expires_at <= ? LIMIT ?)',
      ).run(now(), maxRows).changes);
    },
    clear() {
      db.exec('DELETE FROM idempotency_records');
    },
    close() {
      if (db.isOpen) db.close();
    },
  };
}
