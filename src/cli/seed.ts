/**
 * npm run seed: reloads the demo data into the embedded store under DATA_DIR (every business row is
 * replaced) and forgets stored idempotency records, whose responses would no longer match.
 */
import { openConfiguredIdempotencyStore } from '../api/idempotency/open.ts';
import { closeRedis, connectRedis } from '../api/redis.ts';
import { backendFile, openBackendStore } from '../backend/index.ts';
import { seedDemoData } from '../backend/store/seed.ts';
import { ConfigError, loadConfig, processEnv } from '../config.ts';

try {
  const config = loadConfig(processEnv());
  const db = openBackendStore(backendFile(config.dataDir));
  seedDemoData(db);
  db.close();
  const redisUrl = config.protection.rateLimit.redisUrl;
  const redis = redisUrl ? await connectRedis(redisUrl, { warn: () => {} }) : null;
  const idempotency = openConfiguredIdempotencyStore(config, redis);
  await idempotency.clear();
  idempotency.close();
  if (redis) await closeRedis(redis);
  process.stdout.write(`demo data loaded into ${backendFile(config.dataDir)}\n`);
} catch (error) {
  process.stderr.write(`seed: ${error instanceof ConfigError ? error.message : String(error)}\n`);
  process.exit(1);
}
