/**
 * `corebridge` loads the command asked for and none of the others: what a command does not use (the HTTP server,
 * the back-end, the logger, the Parquet writer, the progress bar) is never loaded, which the module list shows.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

const BIN = join(import.meta.dirname, '../../bin/corebridge.ts');
const CPY = join(import.meta.dirname, '../../examples/customer-account.cpy');
const JSON_RECORD = JSON.stringify(
  JSON.parse(readFileSync(join(import.meta.dirname, '../../examples/customer-account.json'), 'utf8')),
);

// every module the process loads, one URL a line, to the file named by MODULE_TRACE
const TRACE_HOOK = `data:text/javascript,${encodeURIComponent(
  "import { registerHooks } from 'node:module'; import { appendFileSync } from 'node:fs';" +
    'registerHooks({ load(url, context, next) { appendFileSync(process.env.MODULE_TRACE, url + "\\n"); return next(url, context); } });',
)}`;

const dir = mkdtempSync(join(tmpdir(), 'corebridge-main-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the real command, returning its output and the modules it loaded. */
function traced(args: string[], input = '') {
  const trace = join(dir, `trace-${args.join('-').replace(/[^a-z]/gi, '')}.txt`);
  const r = spawnSync(process.execPath, ['--import', TRACE_HOOK, BIN, ...args], {
    input,
    env: { ...process.env, MODULE_TRACE: trace },
  });
  const modules = readFileSync(trace, 'utf8').split('\n').filter(Boolean);
  return { code: r.status, stdout: r.stdout, stderr: r.stderr.toString('utf8'), modules };
}

const SERVICE =
  /\/node_modules\/(fastify|pino|pg|ajv|@peculiar|ioredis|oidc-provider)\/|\/src\/(backend|api|identity|transport|app\.ts|config\.ts)/;

test('dataset decode loads the codec and the command, not the service, the Parquet writer or the progress bar', () => {
  const data = join(dir, 'one.dat');
  const encode = traced(['dataset', 'encode', CPY, '--output', data, '--quiet'], `${JSON_RECORD}\n`);
  assert.equal(encode.code, 0, encode.stderr);
  const decode = traced(['dataset', 'decode', CPY, '--input', data, '--limit', '1', '--quiet']);
  assert.equal(decode.code, 0, decode.stderr);
  const record = JSON.parse(decode.stdout.toString('utf8')) as { caCustomerId: number; caName: { caLastName: string } };
  assert.equal(record.caCustomerId, 1001);
  assert.equal(record.caName.caLastName, 'Lovelace');
  assert.ok(
    decode.modules.some((url) => url.includes('/records/')),
    'the codec is loaded',
  );
  assert.deepEqual(
    decode.modules.filter((url) => SERVICE.test(url) || /\/node_modules\/(hyparquet-writer|cli-progress)\//.test(url)),
    [],
  );
});

test('--format parquet loads the Parquet writer', () => {
  const data = join(dir, 'one.dat');
  traced(['dataset', 'encode', CPY, '--output', data, '--quiet'], `${JSON_RECORD}\n`);
  const parquet = traced(['dataset', 'decode', CPY, '--input', data, '--format', 'parquet', '--quiet']);
  assert.equal(parquet.code, 0, parquet.stderr);
  assert.equal(parquet.stdout.subarray(0, 4).toString('latin1'), 'PAR1');
  assert.ok(parquet.modules.some((url) => url.includes('/node_modules/hyparquet-writer/')));
});

for (const args of [
  ['--help'],
  ['copybook', 'inspect', CPY],
  ['hash-password', '--help'],
  ['backend', '--help'],
  ['webhooks', '--help'],
  ['webhooks', 'reencrypt', '--help'],
]) {
  test(`corebridge ${args.join(' ').replace(CPY, 'FILE.cpy')} loads none of the service`, () => {
    const r = traced(args);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(
      r.modules.filter((url) => SERVICE.test(url)),
      [],
    );
  });
}

test('an unknown command: the message, the usage and exit 2', () => {
  for (const command of ['nope', 'toString']) {
    const r = traced([command]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, new RegExp(`^corebridge: unknown command "${command}"\\n\\nUsage: corebridge <command>`));
    assert.match(r.stderr, /\n {2}dataset decode +LAYOUT\.cpy/);
    assert.match(r.stderr, /\nCopybook options:\n {2}--profile/);
  }
});

test('dataset --help lists each option once', () => {
  const r = traced(['dataset', '--help']);
  assert.equal(r.code, 0, r.stderr);
  const help = r.stdout.toString('utf8');
  // an option's own entry starts a line; an entry may hold a few short options side by side
  const entries = help
    .split('\n')
    .filter((line) => /^ {2}--/.test(line))
    .flatMap((line) => [...line.matchAll(/(?:^ {2}|\s{2,})(--[a-z0-9-]+)/g)].map((m) => m[1]));
  const twice = entries.filter((option, i) => entries.indexOf(option) !== i);
  assert.deepEqual(twice, []);
  assert.match(help, /\n {2}--format jsonl\|csv\|parquet +jsonl: /);
  for (const option of ['--recfm', '--lrecl', '--on-error', '--errors', '--limit', '--threads', '--split', '--quiet']) {
    assert.ok(entries.includes(option), option);
  }
});
