#!/usr/bin/env node
import { copybookCommand, UsageError } from './cli.ts';

copybookCommand(process.argv.slice(2), process, 'corebridge-copybook').then(
  (code) => (process.exitCode = code),
  (e: unknown) => {
    process.stderr.write(`corebridge-copybook: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exitCode = e instanceof UsageError ? e.exitCode : 1;
  },
);
