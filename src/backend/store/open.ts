/**
 * Opens the back-end store the configuration names: PostgreSQL with a database URL, else the SQLite file.
 * Migrations run first; a new store gets the demo data unless told not to.
 */
import type { Logger } from 'pino';
import { openPostgresStore, redactedDatabaseUrl } from './postgres-store.ts';
import { isEmpty, seedDemoData } from './seed.ts';
import { openSqliteStore } from './sqlite-store.ts';
import type { BackendStore, Tx } from './tx.ts';

export interface StoreLocation {
  /** SQLite file, usually DATA_DIR/backend.sqlite; not used when `databaseUrl` is set. */
  file: string;
  /** PostgreSQL (DATABASE_URL). */
  databaseUrl?: string | null;
  /** Connections to PostgreSQL (DATABASE_POOL_SIZE). */
  poolSize?: number;
}

export async function openBackendStore(
  location: StoreLocation,
  options: { log: Logger; readOnly?: boolean; seedWhenEmpty?: boolean },
): Promise<BackendStore> {
  const seed =
    options.seedWhenEmpty !== false && !options.readOnly
      ? async (tx: Tx) => {
          if (await isEmpty(tx)) await seedDemoData(tx);
        }
      : undefined;
  if (location.databaseUrl) {
    if (options.readOnly) throw new Error('a read-only back-end instance reads SQLite only');
    const store = await openPostgresStore({
      url: location.databaseUrl,
      log: options.log,
      ...(location.poolSize ? { poolSize: location.poolSize } : {}),
      ...(seed ? { prepare: seed } : {}),
    });
    options.log.info({ database: redactedDatabaseUrl(location.databaseUrl) }, 'back-end store: PostgreSQL');
    return store;
  }
  const store = openSqliteStore(location.file, { readOnly: options.readOnly === true });
  if (seed) await store.transaction(seed);
  return store;
}
