/** npm run records:types: writes src/backend/copybooks/records.ts, the TypeScript type of every copybook. */
import { writeFileSync } from 'node:fs';
import { copybookTypes, RECORD_TYPES_FILE } from '../backend/copybooks/types.ts';
import { exitWithUsageIfAsked } from './help.ts';

exitWithUsageIfAsked(
  process.argv.slice(2),
  `usage: npm run records:types
  writes src/backend/copybooks/records.ts: the TypeScript type of every copybook in src/backend/copybooks`,
);
writeFileSync(RECORD_TYPES_FILE, copybookTypes());
process.stdout.write(`wrote ${RECORD_TYPES_FILE}\n`);
