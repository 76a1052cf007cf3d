/**
 * The back-end store on SQLite, the embedded default: one file under DATA_DIR, one writer. A group is
 * one transaction with a savepoint per item and one fsync'd COMMIT (group commit).
 */
import { fileURLToPath } from 'node:url';
import { SqliteDatabase } from '../../sqlite.ts';
import type { BackendStore, ItemResult, Row, Tx } from './tx.ts';

export const SQLITE_MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/sqlite/', import.meta.url));

/**
 * `readOnly`: an instance that serves inquiries from a store another connection owns (and has migrated).
 * It reads every group of an event-loop turn from one snapshot, until refresh().
 */
export function openSqliteStore(file: string, options: { readOnly?: boolean } = {}): BackendStore {
  const readOnlyInstance = options.readOnly === true;
  const db = readOnlyInstance ? new SqliteDatabase(file, { readOnly: true }) : new SqliteDatabase(file);
  if (!readOnlyInstance) db.migrate(SQLITE_MIGRATIONS_DIR);

  const tx: Tx = {
    get: (sql, ...params) => db.query(sql).get(...params) as Row | undefined,
    all: (sql, ...params) => db.query(sql).all(...params) as Row[],
    run: (sql, ...params) => {
      db.statement(sql).run(...params);
    },
    forUpdate: '',
  };

  // One connection, one transaction at a time: a group waits for the one before it. The work never
  // waits on I/O (SQLite answers at once), so a group runs to its end within one turn.
  let tail: Promise<unknown> = Promise.resolve();
  function serialized<T>(work: () => Promise<T>): Promise<T> {
    const run = tail.then(work);
    tail = run.catch(() => {});
    return run;
  }

  async function runItems<I, T>(items: readonly I[], work: (tx: Tx, item: I) => Promise<T>, savepoints: boolean): Promise<Array<ItemResult<T>>> {
    const results: Array<ItemResult<T>> = [];
    for (const item of items) {
      if (savepoints) db.statement('SAVEPOINT item').run();
      try {
        const value = await work(tx, item);
        if (savepoints) db.statement('RELEASE item').run();
        results.push({ ok: true, value });
      } catch (error) {
        if (savepoints) {
          db.statement('ROLLBACK TO item').run();
          db.statement('RELEASE item').run();
        }
        results.push({ ok: false, error });
      }
    }
    return results;
  }

  return {
    engine: 'sqlite',
    group(items, work, groupOptions = {}) {
      const readOnly = groupOptions.readOnly === true;
      if (readOnlyInstance) {
        if (!readOnly) return Promise.reject(new Error('a write on a read-only store'));
        // Joins (or opens) this turn's read transaction: one snapshot, no BEGIN/COMMIT per call.
        return db.inTurnTransaction(() => runItems(items, work, false), { readOnly: true });
      }
      // A read-only group has nothing to roll back: no savepoints.
      return serialized(() => db.transactionAsync(() => runItems(items, work, !readOnly), { readOnly }));
    },
    transaction(work) {
      return serialized(() => db.transactionAsync(() => work(tx)));
    },
    refresh: () => db.endTurnTransaction(),
    async ready() {
      try {
        db.statement('SELECT 1').get();
        return true;
      } catch {
        return false;
      }
    },
    async close() {
      db.close();
    },
  };
}
