/**
 * The back-end's store as a test sees it, on either engine. TEST_DATABASE=postgres (`npm run test:postgres`)
 * gives every test app a database of its own on the local PostgreSQL server; tests then read what was
 * stored with the same SQL (`?` placeholders) as on SQLite.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import type { TestContext } from 'node:test';
import pg from 'pg';

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

/** A new, empty database for one test, dropped after it; its URL. */
export async function createTestDatabase(t: TestContext): Promise<string> {
  const name = `corebridge_test_${randomBytes(6).toString('hex')}`;
  await admin((client) => client.query(`CREATE DATABASE ${name}`));
  t.after(() => admin((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)));
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
  const url = h.config.backend.databaseUrl;
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
  const db = new DatabaseSync(join(h.dataDir, 'backend.sqlite'));
  try {
    const statement = db.prepare(sql);
    return statement.columns().length > 0 ? statement.all(...params).map((row) => ({ ...row })) : (statement.run(...params), []);
  } finally {
    db.close();
  }
}
