/**
 * The back-end store on PostgreSQL (DATABASE_URL), so several back-end instances can share one database;
 * row locks, CHECK constraints and unique keys keep them correct (an item that lost a race runs again).
 */
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { Logger } from 'pino';
import { migrationFiles } from '../../sqlite.ts';
import { StoreUnavailableError, type BackendStore, type ItemResult, type Row, type SqlValue, type Tx } from './tx.ts';

export const POSTGRES_MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/postgres/', import.meta.url));

/** SQLSTATEs of a lost race: deadlock, serialization failure, a unique key another transaction took. */
const RACE_CODES = new Set(['40P01', '40001', '23505']);
const MAX_ATTEMPTS = 3;
/** Any key; two instances starting at once migrate (and seed) one after the other. */
const MIGRATION_LOCK = 7_120_001;

export interface PostgresStoreOptions {
  url: string;
  log: Logger;
  /** Connections of this instance (DATABASE_POOL_SIZE). */
  poolSize?: number;
  /** Runs once, after the migrations, in their transaction (the demo data of a new store). */
  prepare?: (tx: Tx) => Promise<void>;
}

/** A database URL fit for a log line or a printout: no password. */
export function redactedDatabaseUrl(raw: string): string {
  const url = new URL(raw);
  if (url.password) url.password = '***';
  return url.toString();
}

/** `?` placeholders to `$1, $2, …` (the shared SQL has no `?` inside literals), and a prepared-statement name. */
const translated = new Map<string, { name: string; text: string }>();
function statement(sql: string): { name: string; text: string } {
  let found = translated.get(sql);
  if (!found) {
    let n = 0;
    found = { name: `cb${translated.size + 1}`, text: sql.replace(/\?/g, () => `$${++n}`) };
    translated.set(sql, found);
  }
  return found;
}

/** The server gave up waiting (lock_timeout, statement_timeout): nothing was kept; worth a retry soon. */
function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return code === '55P03' || code === '57014';
}

/** A failure of the connection or the server (not of the SQL): the outcome of an open transaction is unknown. */
function isConnectionFailure(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    // 08: connection exception; 57P01–57P03: shutdown, crash, not yet accepting; 53300: too many connections.
    return code.startsWith('08') || code.startsWith('57P') || code === '53300' || code.startsWith('E');
  }
  // pg's own errors (connection terminated, connect time-out) carry no code.
  return (
    error instanceof Error &&
    /connection|terminat|timeout/i.test(error.message) &&
    !(error as { severity?: unknown }).severity
  );
}

/** One query; a broken connection comes out as StoreUnavailableError, telling it from errors of the SQL. */
async function query(client: pg.PoolClient, sql: string, params?: SqlValue[]): Promise<Row[]> {
  try {
    return (await (params ? client.query<Row>({ ...statement(sql), values: params }) : client.query<Row>(sql))).rows;
  } catch (error) {
    throw isConnectionFailure(error) ? new StoreUnavailableError(error) : error;
  }
}

function txOver(client: pg.PoolClient): Tx {
  return {
    get: async (sql, ...params) => (await query(client, sql, params))[0],
    all: (sql, ...params) => query(client, sql, params),
    run: async (sql, ...params) => {
      await query(client, sql, params);
    },
    forUpdate: ' FOR UPDATE',
    lockName: async (name) => {
      await query(client, 'SELECT pg_advisory_xact_lock(hashtextextended(?, 0))', [name]);
    },
    commitsInInsertOrder: false,
  };
}

function poolFor(url: string, size: number, log: Logger): pg.Pool {
  const pool = new pg.Pool({
    // The wait for a free pooled connection counts too: under a burst, transactions queue here rather than
    // fail; the API's own time limit (BACKEND_CALL_TIMEOUT_MS) answers the client first. A server that
    // refuses connections fails at once.
    connectionString: url,
    max: size,
    connectionTimeoutMillis: 10_000,
    application_name: 'corebridge-backend',
    // A transaction never waits long for a row lock, no statement runs away, and no lock outlives a
    // caller that is gone: past these, 503 with Retry-After (isBusy) and nothing kept.
    lock_timeout: 3000,
    statement_timeout: 5000,
    idle_in_transaction_session_timeout: 10_000,
  });
  // An idle connection that breaks (server restart) is dropped from the pool; without a listener it would end the
  // process.
  pool.on('error', (error) => log.warn({ err: error }, 'PostgreSQL connection lost'));
  return pool;
}

/** Creates the database the URL names when the server has none by that name (a new development server). */
async function createDatabase(url: string, log: Logger): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
    log.info({ database: name }, 'PostgreSQL database created');
  } catch (error) {
    // Created meanwhile by another instance: 42P04, or 23505 when both got as far as the catalogue.
    const code = (error as { code?: unknown }).code;
    if (code !== '42P04' && code !== '23505') throw error;
  } finally {
    await client.end();
  }
}

// PostgreSQL's executor of the migrationFiles list (SQLite's, synchronous: SqliteDatabase.migrate): all in one
// transaction, under the lock.
async function migrate(pool: pg.Pool, prepare: PostgresStoreOptions['prepare']): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    // A migration may rewrite a large table, and waits for the instance migrating before it: no time limits.
    await client.query('SET LOCAL statement_timeout = 0');
    await client.query('SET LOCAL lock_timeout = 0');
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await client.query(
      'CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)',
    );
    const applied = new Set(
      (await client.query<{ name: string }>('SELECT name FROM schema_migrations')).rows.map((r) => r.name),
    );
    for (const { name, sql } of migrationFiles(POSTGRES_MIGRATIONS_DIR)) {
      if (applied.has(name)) continue;
      await client.query(sql);
      await client.query('INSERT INTO schema_migrations (name, applied_at) VALUES ($1, $2)', [
        name,
        new Date().toISOString(),
      ]);
    }
    if (prepare) await prepare(txOver(client));
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}

export async function openPostgresStore(options: PostgresStoreOptions): Promise<BackendStore> {
  const { url, log } = options;
  let pool = poolFor(url, options.poolSize ?? 10, log);
  try {
    await migrate(pool, options.prepare);
  } catch (error) {
    if ((error as { code?: unknown }).code !== '3D000') {
      await pool.end();
      if (isConnectionFailure(error)) {
        throw new Error(
          `PostgreSQL is not reachable at ${redactedDatabaseUrl(url)} (DATABASE_URL): ${(error as Error).message}`,
          { cause: error },
        );
      }
      throw error;
    }
    await pool.end();
    await createDatabase(url, log);
    pool = poolFor(url, options.poolSize ?? 10, log);
    await migrate(pool, options.prepare);
  }

  async function inTransaction<T>(work: (tx: Tx) => Promise<T>, readOnly: boolean): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      let client: pg.PoolClient;
      try {
        client = await pool.connect();
      } catch (error) {
        throw new StoreUnavailableError(error);
      }
      let broken = false;
      try {
        // An inquiry reads one row or one page: one statement, no transaction round trips.
        if (readOnly) return await work(txOver(client));
        await query(client, 'BEGIN');
        const value = await work(txOver(client));
        await query(client, 'COMMIT');
        return value;
      } catch (error) {
        broken = error instanceof StoreUnavailableError;
        if (!broken && !readOnly)
          await client.query('ROLLBACK').catch(() => {
            broken = true;
          });
        if (broken) throw error;
        if (isBusy(error)) throw new StoreUnavailableError(error);
        const code = (error as { code?: unknown }).code;
        if (attempt < MAX_ATTEMPTS && typeof code === 'string' && RACE_CODES.has(code)) continue;
        throw error;
      } finally {
        client.release(broken);
      }
    }
  }

  let closed = false;
  return {
    engine: 'postgres',
    group<I, T>(items: readonly I[], work: (tx: Tx, item: I) => Promise<T>, groupOptions: { readOnly?: boolean } = {}) {
      return Promise.all(
        items.map((item) =>
          inTransaction((tx) => work(tx, item), groupOptions.readOnly === true).then(
            (value): ItemResult<T> => ({ ok: true, value }),
            (error: unknown): ItemResult<T> => ({ ok: false, error }),
          ),
        ),
      );
    },
    transaction: (work) => inTransaction(work, false),
    refresh: () => {},
    async ready() {
      try {
        await pool.query('SELECT 1');
        return true;
      } catch {
        return false;
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      await pool.end();
    },
  };
}
