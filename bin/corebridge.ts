#!/usr/bin/env node
import { enableCompileCache } from 'node:module';

// The CLI runs from its TypeScript sources: the compile cache keeps each module's stripped and compiled form between
// runs (in NODE_COMPILE_CACHE, else the temporary directory), and worker threads inherit it through the environment.
const cache = enableCompileCache();
if (cache.directory !== undefined) process.env['NODE_COMPILE_CACHE'] ??= cache.directory;
const { main } = await import('../src/cli/main.ts');

process.exitCode = await main(process.argv.slice(2), {
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
});
