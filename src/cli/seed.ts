/**
 * npm run seed: reloads the demo data into the back-end's store (SQLite under DATA_DIR, or PostgreSQL
 * with DATABASE_URL; every business row is replaced) and forgets stored idempotency records, whose responses would no
 * longer match.
 */
import { openConfiguredIdempotencyStore } from '../api/idempotency/open.ts';
import { closeRedis, connectRedis } from '../api/redis.ts';
import { openBackendStore } from '../backend/store/open.ts';
import { redactedDatabaseUrl } from '../backend/store/postgres-store.ts';
import { seedDemoData } from '../backend/store/seed.ts';
import { ConfigError, loadConfig, processEnv } from '../config.ts';
import { createLogger } from '../logger.ts';
import { storeLocation } from '../transport/open.ts';
import { exitWithUsageIfAsked } from './help.ts';

exitWithUsageIfAsked(
  process.argv.slice(2),
  `usage: npm run seed
  reloads the demo data into the back-end's store (SQLite under DATA_DIR, or DATABASE_URL): every business row
  is replaced, and stored idempotency records are forgotten. Settings from the environment and .env.`,
);
if (process.argv.length > 2) {
  process.stderr.write(`seed: takes no arguments (got "${process.argv[2]}"); npm run seed -- --help\n`);
  process.exit(2);
}

try {
  const config = loadConfig(processEnv());
  const location = storeLocation(config);
  const store = await openBackendStore(location, {
    log: createLogger({ logLevel: 'warn' }, process.stderr),
    seedWhenEmpty: false,
  });
  try {
    await store.transaction((tx) => seedDemoData(tx));
  } finally {
    await store.close();
  }
  const redisUrl = config.protection.rateLimit.redisUrl;
  const redis = redisUrl ? await connectRedis(redisUrl, { warn: () => {} }) : null;
  const idempotency = openConfiguredIdempotencyStore(config, redis);
  await idempotency.clear();
  idempotency.close();
  if (redis) await closeRedis(redis);
  process.stdout.write(
    `demo data loaded into ${location.databaseUrl ? redactedDatabaseUrl(location.databaseUrl) : location.file}\n`,
  );
} catch (error) {
  process.stderr.write(`seed: ${error instanceof ConfigError ? error.message : String(error)}\n`);
  process.exit(1);
}
