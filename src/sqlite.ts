/**
 * The one SQLite opener and migration runner (node:sqlite): a file under DATA_DIR in WAL mode, so every store
 * (back-end, idempotency, identity provider) opens and migrates the same way and picks its own durability.
 */
import { chmodSync, closeSync, mkdirSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { DatabaseSync, type SQLInputValue, type StatementSync } from 'node:sqlite';

/** The numbered *.sql files of `dir`, in order: the one list both engines' migration steps apply. */
export function migrationFiles(dir: string): Array<{ name: string; sql: string }> {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.sql'))
    .sort()
    .map((name) => ({ name, sql: readFileSync(join(dir, name), 'utf8') }));
}

/** A query's rows as plain objects: `get` the first, `all` every one. */
export interface RowQuery {
  get(...params: SQLInputValue[]): Record<string, unknown> | undefined;
  all(...params: SQLInputValue[]): Array<Record<string, unknown>>;
}

/** What a row object inherits: nothing, as node:sqlite's own rows (null prototype). */
const ROW_PROTOTYPE = Object.create(null) as object;

/**
 * Rows built from node:sqlite's arrays by a constructor made for the statement's columns. node:sqlite's own
 * row objects are in dictionary mode (V8): every column read is a hash lookup through a megamorphic inline
 * cache, and every row internalizes its column names again. These rows share one hidden class per statement.
 */
/** A statement answering each row as an array of its columns' values, in order. */
export interface ArrayStatement {
  get(...params: SQLInputValue[]): unknown[] | undefined;
  all(...params: SQLInputValue[]): unknown[][];
}

/** The statement, set to answer arrays (setReturnArrays); node:sqlite's types describe row objects only. */
export function arrayStatement(statement: StatementSync): ArrayStatement {
  statement.setReturnArrays(true);
  // eslint-disable-next-line no-restricted-syntax -- the same statement, typed as what returnArrays makes it answer
  return statement as unknown as ArrayStatement;
}

function rowQuery(prepared: StatementSync): RowQuery {
  const statement = arrayStatement(prepared);
  let width = -1;
  let Row: new (values: unknown[]) => Record<string, unknown> = rowConstructor([]);
  const toRow = (values: unknown[]): Record<string, unknown> => {
    // Columns are read at the first row, and again when a row has another number of them (SQLite prepared
    // the statement again after a migration added or dropped one).
    if (values.length !== width) {
      const names = prepared.columns().map((column) => column.name);
      width = names.length;
      Row = rowConstructor(names);
    }
    return new Row(values);
  };
  return {
    get: (...params) => {
      const values = statement.get(...params);
      return values === undefined ? undefined : toRow(values);
    },
    all: (...params) => statement.all(...params).map(toRow),
  };
}

/** A constructor setting each column in order (a later column of the same name wins, as in node:sqlite's rows). */
function rowConstructor(names: readonly string[]): new (values: unknown[]) => Record<string, unknown> {
  const body = names.map((name, i) => `this[${JSON.stringify(name)}] = values[${i}];`).join('\n');
  // new Function makes a plain function; the body above makes it a constructor of rows.
  const Row = new Function('values', body) as new (values: unknown[]) => Record<string, unknown>;
  Row.prototype = ROW_PROTOTYPE;
  return Row;
}

export class SqliteDatabase {
  readonly db: DatabaseSync;
  private readonly statements = new Map<string, StatementSync>();
  private readonly queries = new Map<string, RowQuery>();
  private inTransaction = false;
  /** Whether a read transaction of this event-loop turn is open (inTurnReadTransaction). */
  private turnOpen = false;

  /**
   * `readOnly`: a reader of a store another connection owns (and has created, migrated, put in WAL mode).
   * `ownerOnly`: the file (0600) and a directory it creates (0700) for the owner alone, for secrets.
   */
  constructor(file: string, options: { readOnly?: boolean; ownerOnly?: boolean } = {}) {
    if (options.readOnly) {
      this.db = new DatabaseSync(file, { timeout: 5000, readOnly: true });
      return;
    }
    if (file !== ':memory:')
      mkdirSync(dirname(file), { recursive: true, ...(options.ownerOnly ? { mode: 0o700 } : {}) });
    if (options.ownerOnly) {
      // Created (or narrowed) before SQLite opens it: SQLite gives its -wal and -shm files the same mode.
      closeSync(openSync(file, 'a', 0o600));
      chmodSync(file, 0o600);
    }
    this.db = new DatabaseSync(file, { timeout: 5000 });
    this.db.exec('PRAGMA journal_mode = WAL');
    // Every commit is on disk before it is acknowledged.
    this.db.exec('PRAGMA synchronous = FULL');
    this.db.exec('PRAGMA foreign_keys = ON');
    // Savepoint and statement journals in memory: on disk, the original of every page a request changes
    // would be written to a temporary file, once per savepoint.
    this.db.exec('PRAGMA temp_store = MEMORY');
  }

  statement(sql: string): StatementSync {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  /** `sql` prepared once, its rows as plain objects of one shape (RowQuery): for reads whose rows are used. */
  query(sql: string): RowQuery {
    let query = this.queries.get(sql);
    if (!query) {
      query = rowQuery(this.db.prepare(sql));
      this.queries.set(sql, query);
    }
    return query;
  }

  /**
   * Runs `work` in one transaction: commit on return, roll back on throw. Writers take the write lock
   * up front (IMMEDIATE) so two writers never deadlock on upgrade; readers use a deferred transaction.
   * BEGIN/COMMIT are prepared statements: `exec` would parse them again on every call.
   */
  transaction<T>(work: (db: this) => T, options: { readOnly?: boolean } = {}): T {
    this.begin(options.readOnly === true);
    try {
      return this.commit(work(this));
    } catch (error) {
      throw this.rollback(error);
    }
  }

  /**
   * transaction() for work that awaits. The caller keeps everything else off this connection until it
   * settles (src/backend/store/sqlite-store.ts queues its groups): a second BEGIN would fail.
   */
  async transactionAsync<T>(work: () => Promise<T>, options: { readOnly?: boolean } = {}): Promise<T> {
    this.begin(options.readOnly === true);
    try {
      return this.commit(await work());
    } catch (error) {
      throw this.rollback(error);
    }
  }

  private begin(readOnly: boolean): void {
    if (this.inTransaction) throw new Error('nested transaction');
    this.statement(readOnly ? 'BEGIN' : 'BEGIN IMMEDIATE').run();
    this.inTransaction = true;
  }

  private commit<T>(result: T): T {
    try {
      this.statement('COMMIT').run();
      return result;
    } finally {
      this.inTransaction = false;
    }
  }

  /** Rolls back what is still open, and gives back the error that caused it. */
  private rollback(error: unknown): unknown {
    this.inTransaction = false;
    if (this.db.isTransaction) this.statement('ROLLBACK').run();
    return error;
  }

  /**
   * Joins the read transaction of this event-loop turn, opening it if there is none: every read in one turn
   * shares one BEGIN/COMMIT, so one snapshot and one pair of WAL read-lock system calls. It ends with the turn,
   * or earlier with endTurnTransaction().
   */
  inTurnReadTransaction<T>(work: (db: this) => T): T {
    if (!this.turnOpen) {
      if (this.inTransaction) throw new Error('nested transaction');
      this.statement('BEGIN').run();
      this.turnOpen = true;
      this.inTransaction = true;
      setImmediate(() => this.endTurnTransaction());
    }
    return work(this);
  }

  /** Ends the read transaction of this turn, if any: the next read sees every commit made until now. */
  endTurnTransaction(): void {
    if (!this.turnOpen) return;
    this.turnOpen = false;
    this.inTransaction = false;
    if (this.db.isOpen && this.db.isTransaction) this.statement('COMMIT').run();
  }

  /**
   * Applies the numbered *.sql files of `dir` not applied yet, each in its own transaction. Asked again
   * under the write lock: another process on the same file may have applied it meanwhile.
   * Two executors of one list (migrationFiles): this one is synchronous, a transaction per file; the
   * PostgreSQL one (postgres-store.ts) is asynchronous, all files in one transaction under an advisory lock.
   */
  migrate(dir: string): void {
    this.db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)');
    const applied = new Set(
      this.db
        .prepare('SELECT name FROM schema_migrations')
        .all()
        .map((row) => String(row['name'])),
    );
    for (const { name, sql } of migrationFiles(dir)) {
      if (applied.has(name)) continue;
      this.transaction(() => {
        if (this.db.prepare('SELECT 1 FROM schema_migrations WHERE name = ?').get(name)) return;
        this.db.exec(sql);
        this.db
          .prepare('INSERT INTO schema_migrations (name, applied_at) VALUES (?, ?)')
          .run(name, new Date().toISOString());
      });
    }
  }

  close(): void {
    this.endTurnTransaction();
    if (this.db.isOpen) this.db.close();
  }
}
