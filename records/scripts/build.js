// Builds dist/: ES modules in dist/esm and CommonJS in dist/cjs, each with its .d.ts, from src/ with TypeScript.
// Plain JavaScript, so it runs on every Node the package supports. npm runs it before packing (prepack), and the
// repository's npm ci runs it (the root's prepare), so a checkout has dist/ for projects that link to it.
import { execFileSync } from 'node:child_process';
import { chmodSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
let tsc;
try {
  tsc = createRequire(join(root, 'package.json')).resolve('typescript/bin/tsc');
} catch {
  process.stderr.write('@corebridge/records: building dist/ needs TypeScript (run npm ci in the repository first)\n');
  process.exit(1);
}
const dist = join(root, 'dist');
rmSync(dist, { recursive: true, force: true });
const build = (outDir, ...flags) =>
  execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json'), '--outDir', outDir, ...flags], {
    stdio: 'inherit',
  });
build(join(dist, 'esm'));
// node10 resolution: the CommonJS output's require() calls name files, as Node's CommonJS loader wants
build(join(dist, 'cjs'), '--module', 'commonjs', '--moduleResolution', 'node10');
writeFileSync(join(dist, 'esm', 'package.json'), '{ "type": "module" }\n');
writeFileSync(join(dist, 'cjs', 'package.json'), '{ "type": "commonjs" }\n');
const bin = join(dist, 'esm', 'bin.js');
chmodSync(bin, 0o755);
