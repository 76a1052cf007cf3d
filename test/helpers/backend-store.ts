/**
 * The back-end's store as a test sees it, on either engine: TEST_DATABASE=postgres (`npm run test:postgres`)
 * gives every test app a database of its own (support/database.ts); tests read it with the same SQL as on SQLite.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteStore } from '../../src/backend/store/sqlite-store.ts';
import type { BackendStore } from '../../src/backend/store/tx.ts';
import { queryStoreAt } from '../../support/database.ts';

export const testOnPostgres = process.env['TEST_DATABASE'] === 'postgres';

/** Runs SQL against the store of a test app (its DATABASE_URL, else DATA_DIR/backend.sqlite); the rows. */
export async function queryStore(
  h: { config: { backend: { databaseUrl: string | null } }; dataDir: string },
  sql: string,
  ...params: Array<string | number | null>
): Promise<Array<Record<string, unknown>>> {
  const store = { databaseUrl: h.config.backend.databaseUrl, file: join(h.dataDir, 'backend.sqlite') };
  return queryStoreAt(store, sql, ...params);
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
