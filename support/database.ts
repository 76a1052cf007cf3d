/**
 * Throwaway databases on the local PostgreSQL server, and SQL against a back-end store on either engine, for
 * tests, scripts and benches. Queries use `?` placeholders, as the repositories do, so one text runs on both.
 */
import { randomBytes } from 'node:crypto';
import { DatabaseSync } from 'node:sqlite';
import pg from 'pg';

/** Where throwaway databases are made: the local server (postgres user, trust authentication). */
export const TEST_POSTGRES_URL = process.env['TEST_POSTGRES_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres';

async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  // No PostgreSQL: the caller fails here, it does not pass without one.
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

const created: string[] = [];

/** Drops the databases this process made so far (tests: once every test of a file has ended). */
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
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === 20 || oid === 1700 ? Number : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

/** Runs SQL against a back-end store: its PostgreSQL database when `databaseUrl` is set, else its SQLite file. */
export async function queryStoreAt(
  store: { databaseUrl: string | null; file: string },
  sql: string,
  ...params: Array<string | number | null>
): Promise<Array<Record<string, unknown>>> {
  const url = store.databaseUrl;
  if (url) {
    const client = new pg.Client({ connectionString: url, types });
    await client.connect();
    try {
      let n = 0;
      return (
        await client.query(
          sql.replace(/\?/g, () => `$${++n}`),
          params,
        )
      ).rows as Array<Record<string, unknown>>;
    } finally {
      await client.end();
    }
  }
  const db = new DatabaseSync(store.file);
  try {
    const statement = db.prepare(sql);
    if (statement.columns().length === 0) {
      statement.run(...params);
      return [];
    }
    return statement.all(...params).map((row) => ({ ...row }));
  } finally {
    db.close();
  }
}
