/**
 * The back-end's store as a test sees it, on either engine. TEST_DATABASE=postgres (`npm run test:postgres`)
 * gives every test app a database of its own on the local PostgreSQL server; tests then read what was
 * stored with the same SQL (`?` placeholders) as on SQLite.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import pg from 'pg';
import { openSqliteStore } from '../../src/backend/store/sqlite-store.ts';
import type { BackendStore } from '../../src/backend/store/tx.ts';

/** Where test databases are made: the local server (postgres user, trust authentication). */
export const TEST_POSTGRES_URL = process.env['TEST_POSTGRES_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export const testOnPostgres = process.env['TEST_DATABASE'] === 'postgres';

async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  // No PostgreSQL: the test fails here, it does not pass without one.
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

const created: string[] = [];

/** Drops the databases made so far: once every test of a file has ended (test/helpers/app.ts). */
export async function dropTestDatabases(): Promise<void> {
  if (created.length === 0) return;
  await admin(async (client) => {
    for (const name of created.splice(0)) await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  });
}

/**
 * A new, empty database, dropped by dropTestDatabases(); its URL. `create: false` only names it, for the
 * back-end to create (as for a new user).
 */
export async function createTestDatabase(options: { prefix?: string; create?: boolean } = {}): Promise<string> {
  const name = `${options.prefix ?? 'corebridge_test'}_${randomBytes(6).toString('hex')}`;
  if (options.create !== false) await admin((client) => client.query(`CREATE DATABASE ${name}`));
  created.push(name);
  const url = new URL(TEST_POSTGRES_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

/** BIGINT and NUMERIC as numbers, as SQLite gives them (test data stays far below 2^53). */
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => (oid === 20 || oid === 1700 ? Number : pg.types.getTypeParser(oid, format))) as typeof pg.types.getTypeParser,
};

/** Runs SQL against the store of a test app (its DATABASE_URL, else DATA_DIR/backend.sqlite); the rows. */
export async function queryStore(
  h: { config: { backend: { databaseUrl: string | null } }; dataDir: string }, sql: string, ...params: Array<string | number | null>
): Promise<Array<Record<string, unknown>>> {
  return queryStoreAt({ databaseUrl: h.config.backend.databaseUrl, file: join(h.dataDir, 'backend.sqlite') }, sql, ...params);
}

/** The same, by where the store is. */
export async function queryStoreAt(
  store: { databaseUrl: string | null; file: string }, sql: string, ...params: Array<string | number | null>
): Promise<Array<Record<string, unknown>>> {
  const url = store.databaseUrl;
  if (url) {
    const client = new pg.Client({ connectionString: url, types });
    await client.connect();
    try {
      let n = 0;
      return (await client.query(sql.replace(/\?/g, () => `$${++n}`), params)).rows as Array<Record<string, unknown>>;
    } finally {
      await client.end();
    }
  }
  const db = new DatabaseSync(store.file);
  try {
    const statement = db.prepare(sql);
    return statement.columns().length > 0 ? statement.all(...params).map((row) => ({ ...row })) : (statement.run(...params), []);
  } finally {
    db.close();
  }
}

type TestEnd = { after(fn: () => void | Promise<void>): void };

/** A new folder, removed when the test ends. */
export function tempDir(t: TestEnd, name: string): string {
  const dir = mkdtempSync(join(tmpdir(), `corebridge-${name}-`));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The SQLite back-end store in `file` (migrated), closed when the test ends. */
export function openSqliteStoreFor(t: TestEnd, file: string): BackendStore {
  const store = openSqliteStore(file);
  t.after(() => store.close());
  return store;
}

/** A new SQLite back-end store in a folder of its own, closed and removed when the test ends. */
export function openTempSqliteStore(t: TestEnd, name = 'backend'): BackendStore {
  return openSqliteStoreFor(t, join(tempDir(t, name), 'backend.sqlite'));
}
