/**
 * npm run seed: reloads the demo data into the embedded store under DATA_DIR (every business row is
 * replaced) and forgets stored idempotency records, whose responses would no longer match.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { backendFile, openBackendStore } from '../backend/index.ts';
import { seedDemoData } from '../backend/store/seed.ts';
import { ConfigError, loadConfig, processEnv } from '../config.ts';

try {
  const config = loadConfig(processEnv());
  const db = openBackendStore(backendFile(config.dataDir));
  seedDemoData(db);
  db.close();
  for (const suffix of ['', '-wal', '-shm']) rmSync(join(config.dataDir, `api.sqlite${suffix}`), { force: true });
  process.stdout.write(`demo data loaded into ${backendFile(config.dataDir)}\n`);
} catch (error) {
  process.stderr.write(`seed: ${error instanceof ConfigError ? error.message : String(error)}\n`);
  process.exit(1);
}
