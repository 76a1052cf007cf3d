/**
 * The Quickstart of sdk/README.md, followed from a new project outside the repository: the SDK packed with
 * `npm pack`, installed from its tarball, the README's code type-checked under `tsc --init` defaults and run
 * against the real app. The steps and the code are read from the README, so it cannot drift from what runs.
 */
import assert from 'node:assert/strict';
import { execFile, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import {
  accessSync,
  constants,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join, relative } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startApp } from '../helpers/app.ts';

const REPO = fileURLToPath(new URL('../..', import.meta.url)).replace(/\/$/, '');
const README = readFileSync(join(REPO, 'sdk/README.md'), 'utf8');
// The repository's own compiler stands for `npx tsc`, so the test does not download TypeScript.
const TSC = join(REPO, 'node_modules/.bin/tsc');
const TYPES_NODE_VERSION = (
  JSON.parse(readFileSync(join(REPO, 'node_modules/@types/node/package.json'), 'utf8')) as { version: string }
).version;

/** The fenced blocks of the README's Quickstart section, by language. */
function quickstart(): { sh: string[]; ts: string } {
  const section = README.split(/^## /m).find((part) => part.startsWith('Quickstart'));
  assert.ok(section, 'sdk/README.md has a Quickstart section');
  const block = (lang: string) => new RegExp('```' + lang + '\\n([\\s\\S]*?)```').exec(section)?.[1];
  const sh = block('sh');
  const ts = block('ts');
  assert.ok(sh && ts, 'the Quickstart has a sh block and a ts block');
  const lines = sh
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'));
  return { sh: lines, ts };
}

/**
 * Each step of the README, and what the test runs for it: the same command, with the checkout's path, npm kept to
 * its cache where it can be (`--prefer-offline`), and the repository's tsc, Node and token helper.
 */
const STEPS: Array<[readme: string, run: string | null]> = [
  ['mkdir corebridge-quickstart && cd corebridge-quickstart', null],
  ['npm init -y && npm pkg set type=module', 'npm init -y && npm pkg set type=module'],
  ['npm pack --prefix /path/to/corebridge -w sdk', `npm pack --prefix '${REPO}' -w sdk`],
  [
    'npm install ./corebridge-sdk-0.1.0.tgz',
    'npm install --prefer-offline --no-audit --no-fund ./corebridge-sdk-0.1.0.tgz',
  ],
  [
    'npm install -D typescript @types/node',
    `npm install --prefer-offline --no-audit --no-fund -D @types/node@${TYPES_NODE_VERSION}`,
  ],
  ['npx tsc --init --types node', `'${TSC}' --init --types node`],
  ['npx tsc', `'${TSC}'`],
  ['TOKEN=$(npm --prefix /path/to/corebridge run -s token -- ada) node quickstart.js', null],
];

/** The environment of a shell outside the repository: none of the npm settings the test itself runs under. */
function outsideEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    // .npmrc's node-options (the corebridge-source condition) would send Node to sources the tarball lacks
    if (/^npm_/i.test(name) || name === 'NODE_OPTIONS' || name === 'INIT_CWD') continue;
    env[name] = value;
  }
  return env;
}

function sh(cwd: string, command: string, env: NodeJS.ProcessEnv = outsideEnv()): SpawnSyncReturns<string> {
  return spawnSync('sh', ['-c', command], { cwd, env, encoding: 'utf8' });
}

function ok(run: SpawnSyncReturns<string>, what: string): string {
  assert.equal(run.status, 0, `${what}\n${run.stdout}\n${run.stderr}`);
  return run.stdout;
}

/** A `node` on PATH other than the repository's (the machine's own, often an older one), when there is one. */
function machineNode(): string | undefined {
  for (const dir of (process.env['PATH'] ?? '').split(delimiter)) {
    if (!dir || dir.includes('node_modules')) continue;
    try {
      accessSync(join(dir, 'node'), constants.X_OK);
      return join(dir, 'node');
    } catch {
      continue;
    }
  }
  return undefined;
}

test('the Quickstart of sdk/README.md works from a new project outside the repository', async (t) => {
  const { sh: readmeSteps, ts: code } = quickstart();
  assert.deepEqual(
    readmeSteps,
    STEPS.map(([readme]) => readme),
    'the README gives the steps this test follows',
  );

  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'corebridge-quickstart-')));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  assert.ok(relative(REPO, dir).startsWith('..'), 'the project is outside the repository');
  // Up to `tsc --init`; the README's code is saved before `npx tsc`.
  for (const [readme, command] of STEPS.slice(0, -2)) if (command) ok(sh(dir, command), readme);

  // What the package ships: JavaScript and declarations, with nothing Node-only in what runs.
  const dist = join(dir, 'node_modules/@corebridge/sdk/dist');
  for (const file of readdirSync(dist)) {
    const text = readFileSync(join(dist, file), 'utf8');
    assert.doesNotMatch(text, /from\s+['"]node:/, `${file} imports nothing from node: (it runs in browsers)`);
    assert.doesNotMatch(text, /from\s+['"]\.\.?\/[^'"]+\.ts['"]/, `${file} imports no .ts file`);
  }
  const tsconfig = readFileSync(join(dir, 'tsconfig.json'), 'utf8');
  assert.match(tsconfig, /"exactOptionalPropertyTypes": true/, 'tsc --init sets exactOptionalPropertyTypes');

  // The README's code type-checks under those defaults, and compiles to quickstart.js.
  writeFileSync(join(dir, 'quickstart.ts'), code);
  const [compile, compileCommand] = STEPS.at(-2) ?? [];
  ok(sh(dir, compileCommand ?? ''), compile ?? '');

  // A body field the contract does not name is a type error, as the API refuses it.
  const misspelt = code.replace("currency: 'EUR' }", "currency: 'EUR', colour: 'red' }");
  assert.notEqual(misspelt, code);
  writeFileSync(join(dir, 'misspelt.ts'), misspelt);
  const refused = sh(dir, `'${TSC}' --noEmit`);
  rmSync(join(dir, 'misspelt.ts'));
  assert.notEqual(refused.status, 0, 'a body with an unknown field does not compile');
  assert.match(
    refused.stdout,
    /^misspelt\.ts\(\d+,\d+\): error TS2322: Type 'string' is not assignable to type 'never'/m,
  );
  assert.doesNotMatch(refused.stdout, /^quickstart\.ts/m);

  const h = await startApp(t, {}, { singleInstance: true });
  await h.app.listen({ port: 0, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`;
  // The token as `npm run token` makes it (test/cli/token.test.ts runs that command against the app).
  const env = { ...outsideEnv(), COREBRIDGE_URL: url, TOKEN: await h.token('ada') };
  // Not spawnSync: the app answers from this process's event loop.
  const run = (node: string) => promisify(execFile)(node, ['quickstart.js'], { cwd: dir, env, encoding: 'utf8' });

  const first = await run(process.execPath);
  assert.match(first.stdout, /^balance of 1001-01: 2500 EUR \(request [0-9a-f-]{36}\)$/m);
  assert.match(first.stdout, /^payment COMPLETED, key [0-9a-f-]{36}$/m);
  const balance = await h.request({ method: 'GET', url: '/v1/accounts/1001-01/balance', as: 'clerk' });
  assert.equal(balance.json().balance, 2500 - 25.5);

  // The machine's own Node too (the package says Node 20 or later), when it has another one.
  const other = machineNode();
  if (other) {
    const again = await run(other);
    assert.match(again.stdout, /^balance of 1001-01: 2474\.5 EUR /m);
    assert.match(again.stdout, /^payment COMPLETED/m);
  }
});
