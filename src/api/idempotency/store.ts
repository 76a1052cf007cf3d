/**
 * The API layer's idempotency records in their own SQLite file: they replay responses and detect key misuse;
 * exactly-once of the business effect is the back-end's job (the key travels in the record header).
 */
import { fileURLToPath } from 'node:url';
import { SqliteDatabase } from '../../sqlite.ts';

const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/', import.meta.url));

/** Rows deleted per purge statement. */
export const PURGE_CHUNK = 500;

/** Purges expired records chunk by chunk, letting requests run between chunks; resolves with the count. */
export async function purgeInChunks(store: IdempotencyStore, stopped: () => boolean = () => false): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await store.purgeExpired(PURGE_CHUNK);
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

/**
 * Embedded (SQLite, this file: answers at once) or shared by every API instance (Redis, ./redis-store.ts:
 * answers with promises).
 */
export interface IdempotencyStore {
  begin(caller: string, key: string, requestHash: string): BeginResult | Promise<BeginResult>;
  complete(caller: string, key: string, response: StoredResponse): void | Promise<void>;
  /** Forgets an in-flight key whose request failed without a result to replay. */
  release(caller: string, key: string): void | Promise<void>;
  /** Deletes at most `maxRows` expired records (a bounded statement: the event loop is never held long). */
  purgeExpired(maxRows?: number): number | Promise<number>;
  /** Forgets every record (demo data reload). */
  clear(): void | Promise<void>;
  close(): void;
}

/** The embedded store answers at once. */
export interface EmbeddedIdempotencyStore extends IdempotencyStore {
  begin(caller: string, key: string, requestHash: string): BeginResult;
  complete(caller: string, key: string, response: StoredResponse): void;
  release(caller: string, key: string): void;
  purgeExpired(maxRows?: number): number;
  clear(): void;
}

export function openIdempotencyStore(
  file: string,
  options: { ttlSeconds: number; leaseMs: number; now?: () => number },
): EmbeddedIdempotencyStore {
  const store = new SqliteDatabase(file, { synchronous: 'NORMAL' });
  store.migrate(MIGRATIONS_DIR);
  const now = options.now ?? Date.now;
  const sql = (text: string) => store.statement(text);

  // One transaction per event-loop turn: a commit per write would cost each payment two WAL appends on the API's
  // thread. Losing the newest records in a crash is harmless: the back-end keeps the key and finds the original.
  const write = <T>(work: () => T): T => store.inTurnTransaction(work);

  return {
    begin(caller, key, requestHash) {
      const t = now();
      return write((): BeginResult => {
        // The usual case, a new key: one statement.
        const fresh = sql(
          `INSERT INTO idempotency_records (caller, idempotency_key, request_hash, state, locked_until, expires_at, created_at)
           VALUES (?, ?, ?, 'IN_FLIGHT', ?, ?, ?) ON CONFLICT (caller, idempotency_key) DO NOTHING`,
        ).run(caller, key, requestHash, t + options.leaseMs, t + options.ttlSeconds * 1000, t);
        if (Number(fresh.changes) === 1) return { outcome: 'execute' };
        const row = sql('SELECT * FROM idempotency_records WHERE caller = ? AND idempotency_key = ?').get(caller, key)!;
        if (Number(row['expires_at']) <= t) {
          sql(
            `UPDATE idempotency_records SET request_hash = ?, state = 'IN_FLIGHT', status_code = NULL, content_type = NULL,
               response_headers = NULL, response_body = NULL, locked_until = ?, expires_at = ?, created_at = ?
             WHERE caller = ? AND idempotency_key = ?`,
          ).run(requestHash, t + options.leaseMs, t + options.ttlSeconds * 1000, t, caller, key);
          return { outcome: 'execute' };
        }
        if (row['request_hash'] !== requestHash) return { outcome: 'mismatch' };
        if (row['state'] === 'DONE') {
          return {
            outcome: 'replay',
            response: {
              statusCode: Number(row['status_code']),
              contentType: String(row['content_type']),
              headers: JSON.parse(String(row['response_headers'] ?? '{}')) as Record<string, string>,
              body: String(row['response_body'] ?? ''),
            },
          };
        }
        if (Number(row['locked_until']) > t) return { outcome: 'in-flight' };
        // The holder's lease ran out (it crashed or hung): take over. The back-end finds any effect
        // the first attempt committed under the same key, so re-executing cannot duplicate it.
        sql('UPDATE idempotency_records SET locked_until = ? WHERE caller = ? AND idempotency_key = ?').run(
          t + options.leaseMs,
          caller,
          key,
        );
        return { outcome: 'execute' };
      });
    },
    complete(caller, key, response) {
      write(() =>
        sql(
          `UPDATE idempotency_records SET state = 'DONE', status_code = ?, content_type = ?, response_headers = ?, response_body = ?
         WHERE caller = ? AND idempotency_key = ?`,
        ).run(response.statusCode, response.contentType, JSON.stringify(response.headers), response.body, caller, key),
      );
    },
    release(caller, key) {
      write(() =>
        sql("DELETE FROM idempotency_records WHERE caller = ? AND idempotency_key = ? AND state = 'IN_FLIGHT'").run(
          caller,
          key,
        ),
      );
    },
    purgeExpired(maxRows = PURGE_CHUNK) {
      return write(() =>
        Number(
          sql(
            'DELETE FROM idempotency_records WHERE rowid IN (SELECT rowid FROM idempotency_records WHERE expires_at <= ? LIMIT ?)',
          ).run(now(), maxRows).changes,
        ),
      );
    },
    clear() {
      write(() => sql('DELETE FROM idempotency_records').run());
      store.endTurnTransaction();
    },
    close() {
      store.close();
    },
  };
}
