/** npm run contract:update: writes the contract the code states to openapi/v1.json, the committed snapshot. */
import { relative } from 'node:path';
import { exitWithUsageIfAsked } from './help.ts';
import { COMMITTED_CONTRACT, currentContract, writeCommittedContract } from '../contract/document.ts';

exitWithUsageIfAsked(
  process.argv.slice(2),
  `usage: npm run contract:update
  writes the contract the code states (routes, schemas) to openapi/v1.json, the committed snapshot; run
  npm run contract:check first to see whether the change breaks clients.`,
);

try {
  writeCommittedContract(await currentContract());
  process.stdout.write(
    `wrote ${relative(process.cwd(), COMMITTED_CONTRACT)}; what changed since the last commit: npm run contract:check -- --base-ref HEAD\n`,
  );
} catch (error) {
  process.stderr.write(`contract:update: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}
