/**
 * The API layer's idempotency records (own SQLite file, separate from the back-end's). A key is
 * scoped to the caller; an in-flight record holds a lease so a crashed process does not block the
 * key for ever. Exactly-once of the business effect is the back-end's job (the key travels in the
 * record header); this store replays responses and detects misuse.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync, type StatementSync } from 'node:sqlite';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS idempotency_records (
  caller            TEXT NOT NULL,
  idempotency_key   TEXT NOT NULL,
  request_hash      TEXT NOT NULL,
  state             TEXT NOT NULL CHECK (state IN ('IN_FLIGHT', 'DONE')),
  status_code       INTEGER,
  content_type      TEXT,
  response_headers  TEXT,
  response_body     TEXT,
  locked_until      INTEGER NOT NULL,
  expires_at        INTEGER NOT NULL,
  created_at        INTEGER NOT NULL,
  PRIMARY KEY (caller, idempotency_key)
);
CREATE INDEX IF NOT EXISTS idempotency_records_expiry ON idempotency_records (expires_at);
`;

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
  purgeExpired(): number;
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
  db.exec(SCHEMA);
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
      db.exec('BEGIN IMMEDIATE');
      try {
        const row = sql('SELECT * FROM idempotency_records WHERE caller = ? AND idempotency_key = ?').get(caller, key);
        let result: BeginResult;
        if (!row || Number(row['expires_at']) <= t) {
          sql(
            `INSERT OR REPLACE INTO idempotency_records (caller, idempotency_key, request_hash, state, locked_until, expires_at, created_at)
             VALUES (?, ?, ?, 'IN_FLIGHT', ?, ?, ?)`,
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
        db.exec('COMMIT');
        return result;
      } catch (error) {
        db.exec('ROLLBACK');
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
    purgeExpired() {
      return Number(sql('DELETE FROM idempotency_records WHERE expires_at <= ?').run(now()).changes);
    },
    clear() {
      db.exec('DELETE FROM idempotency_records');
    },
    close() {
      if (db.isOpen) db.close();
    },
  };
}
