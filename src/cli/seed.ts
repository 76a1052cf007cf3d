/**
 * npm run seed: reloads the demo data into the embedded store under DATA_DIR (every business row is
 * replaced) and forgets stored idempotency records, whose responses would no longer match.
 */
import { join } from 'node:path';
import { openIdempotencyStore } from '../api/idempotency/store.ts';
import { backendFile, openBackendStore } from '../backend/index.ts';
import { seedDemoData } from '../backend/store/seed.ts';
import { ConfigError, loadConfig, processEnv } from '../config.ts';

try {
  const config = loadConfig(processEnv());
  const db = openBackendStore(backendFile(config.dataDir));
  seedDemoData(db);
  db.close();
  const idempotency = openIdempotencyStore(join(config.dataDir, 'api.sqlite'), config.idempotency);
  idempotency.clear();
  idempotency.close();
  process.stdout.write(`demo data loaded into ${backendFile(config.dataDir)}\n`);
} catch (error) {
  process.stderr.write(`seed: ${error instanceof ConfigError ? error.message : String(error)}\n`);
  process.exit(1);
}
