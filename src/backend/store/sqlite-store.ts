/**
 * The back-end store on SQLite, the embedded default: one file under DATA_DIR, one writer. A group is
 * one transaction and one fsync'd COMMIT (group commit); an item that fails keeps nothing (writeGroup).
 */
import { fileURLToPath } from 'node:url';
import { arrayStatement, SqliteDatabase } from '../../sqlite.ts';
import type { BackendStore, ItemResult, Row, Tx } from './tx.ts';

/** An item failed after changing rows, in a group run without savepoints. */
class RunAgainWithSavepoints extends Error {
  constructor(cause: unknown) {
    super('an item failed after changing rows', { cause });
  }
}

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
    lockName: () => {},
    commitsInInsertOrder: true,
  };

  // One connection, one transaction at a time: a group waits for the one before it. The work never
  // waits on I/O (SQLite answers at once), so a group runs to its end within one turn.
  let tail: Promise<unknown> = Promise.resolve();
  function serialized<T>(work: () => Promise<T>): Promise<T> {
    const run = tail.then(work);
    tail = run.catch(() => {});
    return run;
  }

  /** Rows changed on this connection so far (SQLite's total_changes(): inserted, updated or deleted by a statement). */
  const changesQuery = arrayStatement(db.statement('SELECT total_changes()'));
  const changesSoFar = (): number => Number(changesQuery.get()![0]);

  /** Runs each item in turn; a failed item's error takes its place. */
  async function runItems<I, T>(
    items: readonly I[],
    work: (tx: Tx, item: I) => Promise<T>,
    mode: 'plain' | 'savepoints' | 'optimistic',
  ): Promise<Array<ItemResult<T>>> {
    const results: Array<ItemResult<T>> = [];
    for (const item of items) {
      if (mode === 'savepoints') db.statement('SAVEPOINT item').run();
      const before = mode === 'optimistic' ? changesSoFar() : 0;
      try {
        const value = await work(tx, item);
        if (mode === 'savepoints') db.statement('RELEASE item').run();
        results.push({ ok: true, value });
      } catch (error) {
        if (mode === 'savepoints') {
          db.statement('ROLLBACK TO item').run();
          db.statement('RELEASE item').run();
        } else if (mode === 'optimistic' && (!db.db.isTransaction || changesSoFar() !== before)) {
          // Its changes cannot be taken back alone (or SQLite already rolled everything back): the group runs again.
          throw new RunAgainWithSavepoints(error);
        }
        results.push({ ok: false, error });
      }
    }
    return results;
  }

  /**
   * A write group without a savepoint per item while no item fails after changing rows: a savepoint copies
   * the original of every page an item changes (about 4 µs of a payment's CPU). When one does fail after a
   * change, the transaction is rolled back and the group runs again from the start, a savepoint per item;
   * nothing of the first run was committed or answered.
   */
  async function writeGroup<I, T>(
    items: readonly I[],
    work: (tx: Tx, item: I) => Promise<T>,
  ): Promise<Array<ItemResult<T>>> {
    try {
      return await db.transactionAsync(() => runItems(items, work, 'optimistic'));
    } catch (error) {
      if (!(error instanceof RunAgainWithSavepoints)) throw error;
    }
    return db.transactionAsync(() => runItems(items, work, 'savepoints'));
  }

  return {
    engine: 'sqlite',
    group(items, work, groupOptions = {}) {
      const readOnly = groupOptions.readOnly === true;
      if (readOnlyInstance) {
        if (!readOnly) return Promise.reject(new Error('a write on a read-only store'));
        // Joins (or opens) this turn's read transaction: one snapshot, no BEGIN/COMMIT per call.
        return db.inTurnReadTransaction(() => runItems(items, work, 'plain'));
      }
      // A read-only group has nothing to roll back.
      if (readOnly) return serialized(() => db.transactionAsync(() => runItems(items, work, 'plain'), { readOnly }));
      return serialized(() => writeGroup(items, work));
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
