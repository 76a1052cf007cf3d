/**
 * Loads the demo data into the back-end's store the configuration names and forgets the idempotency records shared
 * in Redis, whose responses would no longer match: what `npm run seed` does, and the tests' explicit load under
 * production mode.
 */
import { openConfiguredIdempotencyStore } from '../api/idempotency/open.ts';
import { closeRedis, connectRedis } from '../api/redis.ts';
import { openBackendStore } from '../backend/store/open.ts';
import { redactedDatabaseUrl } from '../backend/store/postgres-store.ts';
import { isEmpty, seedDemoData } from '../backend/store/seed.ts';
import type { Config } from '../config.ts';
import { createLogger } from '../logger.ts';
import { storeLocation } from '../transport/open.ts';

/** Production mode and a store that already holds data: seeding would replace its rows. */
export class StoreNotEmptyError extends Error {
  override readonly name = 'StoreNotEmptyError';
}

/**
 * Replaces every business row with the demo data; in production mode only into an empty store, since the rows
 * there are real. Returns where the data went (the database URL without its password, or the SQLite file).
 */
export async function loadDemoData(config: Config): Promise<string> {
  const location = storeLocation(config);
  const where = location.databaseUrl ? redactedDatabaseUrl(location.databaseUrl) : location.file;
  const store = await openBackendStore(location, {
    log: createLogger({ logLevel: 'warn' }, process.stderr),
    seedWhenEmpty: false,
  });
  try {
    await store.transaction(async (tx) => {
      if (config.production && !(await isEmpty(tx))) {
        throw new StoreNotEmptyError(
          `${where} already holds customers, and production mode (NODE_ENV=production) loads the demo data ` +
            'only into an empty store: every business row would be replaced',
        );
      }
      await seedDemoData(tx);
    });
  } finally {
    await store.close();
  }
  // Shared records live in Redis; without it each API instance keeps its own in memory, gone with its process.
  const redisUrl = config.protection.rateLimit.redisUrl;
  if (redisUrl) {
    const redis = await connectRedis(redisUrl, { warn: () => {} });
    try {
      const idempotency = openConfiguredIdempotencyStore(config, redis);
      await idempotency.clear();
      idempotency.close();
    } finally {
      await closeRedis(redis);
    }
  }
  return where;
}
