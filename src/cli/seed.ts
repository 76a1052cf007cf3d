/**
 * npm run seed: reloads the demo data into the back-end's store (SQLite under DATA_DIR, or PostgreSQL
 * with DATABASE_URL; every business row is replaced) and forgets stored idempotency records, whose responses would no
 * longer match. In production mode it loads only into an empty store (src/cli/demo-data.ts).
 */
import { ConfigError, loadConfig, processEnv } from '../config.ts';
import { loadDemoData, StoreNotEmptyError } from './demo-data.ts';
import { exitWithUsageIfAsked } from './help.ts';

exitWithUsageIfAsked(
  process.argv.slice(2),
  `usage: npm run seed
  reloads the demo data into the back-end's store (SQLite under DATA_DIR, or DATABASE_URL): every business row
  is replaced, and stored idempotency records are forgotten. Under NODE_ENV=production it loads only into an empty
  store. Settings from the environment and .env.`,
);
if (process.argv.length > 2) {
  process.stderr.write(`seed: takes no arguments (got "${process.argv[2]}"); npm run seed -- --help\n`);
  process.exit(2);
}

try {
  const where = await loadDemoData(loadConfig(processEnv()));
  process.stdout.write(`demo data loaded into ${where}\n`);
} catch (error) {
  const known = error instanceof ConfigError || error instanceof StoreNotEmptyError;
  process.stderr.write(`seed: ${known ? error.message : String(error)}\n`);
  process.exit(1);
}
