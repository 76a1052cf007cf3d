/**
 * npm run seed: reloads the demo data into the back-end's store (SQLite under DATA_DIR, or PostgreSQL
 * with DATABASE_URL; every business row is replaced) and forgets the idempotency records shared in Redis, whose
 * responses would no longer match. In production mode it loads only into an empty store (src/cli/demo-data.ts).
 */
import { ConfigError, loadConfig, processEnv } from '../config.ts';
import { loadDemoData, StoreNotEmptyError } from './demo-data.ts';
import { exitWithUsageIfAsked } from './help.ts';

exitWithUsageIfAsked(
  process.argv.slice(2),
  `usage: npm run seed
  reloads the demo data into the back-end's store (SQLite under DATA_DIR, or DATABASE_URL): every business row
  is replaced, and the idempotency records shared in Redis (REDIS_URL) are forgotten; an API running without
  Redis keeps its own in memory until it is restarted. Under NODE_ENV=production it loads only into an empty
  store. Settings from the environment and .env.`,
);
if (process.argv.length > 2) {
  process.stderr.write(`seed: takes no arguments (got "${process.argv[2]}"); npm run seed -- --help\n`);
  process.exit(2);
}

try {
  const config = loadConfig(processEnv());
  const where = await loadDemoData(config);
  process.stdout.write(`demo data loaded into ${where}\n`);
  if (!config.protection.rateLimit.redisUrl) {
    process.stdout.write(
      'restart a running API: without REDIS_URL it keeps the answers of Idempotency-Keys in its memory\n',
    );
  }
} catch (error) {
  const known = error instanceof ConfigError || error instanceof StoreNotEmptyError;
  process.stderr.write(`seed: ${known ? error.message : String(error)}\n`);
  process.exit(1);
}
