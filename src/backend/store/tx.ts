/**
 * What the back-end's repositories and programs see of a database, on either engine: SQLite (the embedded
 * default, src/backend/store/sqlite-store.ts) or PostgreSQL (DATABASE_URL, src/backend/store/postgres-store.ts).
 * SQL is written once, with `?` placeholders, in the part of SQL both engines share.
 */

export type SqlValue = string | number | null;
export type Row = Record<string, unknown>;
/** SQLite answers at once; PostgreSQL over the network. Callers always `await`. */
export type Awaitable<T> = T | Promise<T>;

/** A handle valid inside one transaction. Repositories receive one and never open transactions. */
export interface Tx {
  get(sql: string, ...params: SqlValue[]): Awaitable<Row | undefined>;
  all(sql: string, ...params: SqlValue[]): Awaitable<Row[]>;
  run(sql: string, ...params: SqlValue[]): Awaitable<void>;
  /**
   * Appended to a SELECT that reads rows the transaction will change on what it read (a balance, a stock
   * level): ' FOR UPDATE' on PostgreSQL, where several back-end instances write at once; '' on SQLite,
   * whose one writer holds the whole store. Take such locks in one order (customers, accounts by id,
   * products by id), so two transactions never wait on each other.
   */
  readonly forUpdate: string;
  /**
   * Holds a lock on `name` until the transaction ends, for a rule over rows that may not exist yet (a count
   * per owner): a PostgreSQL advisory lock; nothing on SQLite, whose one writer holds the whole store.
   */
  lockName(name: string): Awaitable<void>;
  /**
   * True where one writer holds the whole store (SQLite), so transactions commit in the order their rows were
   * inserted: an event takes its feed position as it is written (journal.ts). False where transactions commit
   * concurrently (PostgreSQL): the event relay gives positions once they have committed (store/events.ts).
   */
  readonly commitsInInsertOrder: boolean;
}

/**
 * Rows of `table` by their key column, locked until the transaction ends (Tx.forUpdate). They are taken
 * in key order, so two transactions that lock some of the same rows never wait on each other in a circle.
 */
export async function lockRows(
  tx: Tx,
  table: 'accounts' | 'products',
  key: string,
  ids: readonly string[],
): Promise<Map<string, Row>> {
  const sorted = [...new Set(ids)].sort();
  const marks = sorted.map(() => '?').join(', ');
  const rows = await tx.all(
    `SELECT * FROM ${table} WHERE ${key} IN (${marks}) ORDER BY ${key}${tx.forUpdate}`,
    ...sorted,
  );
  return new Map(rows.map((row) => [String(row[key]), row]));
}

export type ItemResult<T> = { ok: true; value: T } | { ok: false; error: unknown };

export interface BackendStore {
  readonly engine: 'sqlite' | 'postgres';
  /**
   * Runs every item in its own unit of work and returns once every kept change is durable. An item that
   * throws keeps nothing; its error comes back in its place. If the commit itself fails, it rejects and
   * nothing of the items is known to be kept.
   * - SQLite: one transaction and one COMMIT (one fsync) for all; an item that fails after changing rows makes
   *   the group run again with a savepoint per item (sqlite-store.ts, writeGroup).
   * - PostgreSQL: one transaction per item, run at once on a pool of connections (the server batches
   *   their WAL flushes); an item that lost a race (deadlock, serialization failure, a unique key taken
   *   meanwhile) runs again, so it sees the winner's row.
   * A read-only group writes nothing and takes no locks.
   */
  group<I, T>(
    items: readonly I[],
    work: (tx: Tx, item: I) => Promise<T>,
    options?: { readOnly?: boolean },
  ): Promise<Array<ItemResult<T>>>;
  /** Runs `work` in one transaction (seeding, tests). */
  transaction<T>(work: (tx: Tx) => Promise<T>): Promise<T>;
  /** Ends any snapshot kept across calls (SQLite read-only instances), so the next read sees every commit. */
  refresh(): void;
  /** Can it answer a query now? */
  ready(): Promise<boolean>;
  close(): Promise<void>;
}

/** The reason code (RC 99) of a transaction the database could not take: the API answers 503 with Retry-After. */
export const STORE_UNAVAILABLE = 'STORE_UNAVAILABLE';

/** The database could not be reached, or the connection broke; an open transaction's outcome is unknown. */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';
  constructor(cause: unknown) {
    super(`database unavailable: ${(cause as Error)?.message ?? String(cause)}`, { cause });
  }
}
