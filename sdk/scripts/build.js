// Builds dist/ (ES modules and their .d.ts) from src/ with TypeScript, so the package runs on Node 20 and in
// browsers, and type-checks in projects that do not import .ts files. Plain JavaScript, so it runs on every Node
// the package supports. npm runs it before packing (prepack), and the repository's npm ci runs it (the root's prepare).
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
let tsc;
try {
  tsc = createRequire(join(root, 'package.json')).resolve('typescript/bin/tsc');
} catch {
  process.stderr.write('@corebridge/sdk: building dist/ needs TypeScript (run npm ci in the repository first)\n');
  process.exit(1);
}
rmSync(join(root, 'dist'), { recursive: true, force: true });
const build = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);
// tsc rewrites the relative `.ts` imports of the JavaScript it emits, not those of the declarations: a consumer
// without allowImportingTsExtensions would refuse them (TS5097), so they name the .js files here too.
const dist = join(root, 'dist');
for (const file of readdirSync(dist).filter((name) => name.endsWith('.d.ts'))) {
  const path = join(dist, file);
  const text = readFileSync(path, 'utf8');
  writeFileSync(path, text.replace(/((?:from|import)\s*\(?\s*['"]\.\.?\/[^'"]+)\.ts(['"])/g, '$1.js$2'));
}
