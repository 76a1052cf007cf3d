/**
 * `npm run contract:check` as a developer or CI runs it, on contract files: what it prints and its exit
 * status (0 nothing breaks, 1 something breaks, 2 no comparison possible).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { readCommittedContract } from '../../src/contract/document.ts';

function contractCheck(args: string[]) {
  return spawnSync(process.execPath, ['src/cli/contract-check.ts', ...args], { encoding: 'utf8' });
}

/** base.json: the committed contract; head.json: a copy changed by `edit`. */
function contractFiles(
  t: TestContext,
  edit: (document: Record<string, any>) => void,
): { base: string; head: string; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'corebridge-contract-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const document = readCommittedContract() as Record<string, any>;
  const base = join(dir, 'base.json');
  const head = join(dir, 'head.json');
  writeFileSync(base, JSON.stringify(document));
  edit(document);
  writeFileSync(head, JSON.stringify(document));
  return { base, head, dir };
}

test('the same contract: exit 0, no differences', (t) => {
  const { base, head } = contractFiles(t, () => {});
  const run = contractCheck(['--base', base, '--head', head]);
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /No differences\./);
});

test('only additions: exit 0, listed as non-breaking, with the command that refreshes the snapshot', (t) => {
  const { base, head } = contractFiles(t, (d) => {
    d.paths['/v1/products'] = { get: { responses: { 200: { description: 'Products' } } } };
  });
  const run = contractCheck(['--base', base, '--head', head]);
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /Non-breaking \(1\):\n {2}• \/v1\/products: path added \(GET\)/);
  assert.doesNotMatch(run.stdout, /^Breaking/m);
  assert.match(run.stdout, /0 breaking, 1 non-breaking\./);
  assert.match(run.stdout, /npm run contract:update/);
});

test('a breaking change: exit 1, grouped first, with what to do instead', (t) => {
  const { base, head } = contractFiles(t, (d) => {
    delete d.paths['/v1/orders'].post.responses['201'].content['application/json'].schema.properties.amount;
    d.paths['/v1/orders'].post.description = 'Places an order.';
  });
  const run = contractCheck(['--base', base, '--head', head]);
  assert.equal(run.status, 1, run.stderr);
  assert.match(
    run.stdout,
    /Breaking \(1\):\n {2}✗ POST \/v1\/orders response 201 body: amount: property removed: no longer returned\n/,
  );
  assert.match(run.stdout, /Non-breaking \(1\):\n {2}• POST \/v1\/orders: description changed/);
  assert.ok(run.stdout.indexOf('Breaking (1)') < run.stdout.indexOf('Non-breaking (1)'));
  assert.match(
    run.stdout,
    /1 breaking, 1 non-breaking\.\nA breaking change must ship as a new major version: add \/v2\/\.\.\. paths beside \/v1/,
  );
});

test('bad arguments, unreadable or non-contract files: a message and exit 2', (t) => {
  const { base, dir } = contractFiles(t, () => {});
  const notJson = join(dir, 'not.json');
  writeFileSync(notJson, '{ "paths": ');
  const noPaths = join(dir, 'no-paths.json');
  writeFileSync(noPaths, '{"openapi": "3.1.0"}');
  const cases: Array<[string[], RegExp]> = [
    [['--base', base, '--base-ref', 'HEAD'], /give --base or --base-ref, not both/],
    [['--bogus'], /Unknown option '--bogus'/],
    [['--base', join(dir, 'missing.json'), '--head', base], /cannot read .*missing\.json: ENOENT/],
    [['--base', base, '--head', notJson], /not\.json is not JSON/],
    [['--base', base, '--head', noPaths], /no-paths\.json is not an OpenAPI document \(no "paths" object\)/],
    [['--base-ref', 'no-such-ref-anywhere', '--head', base], /cannot read openapi\/v1\.json at no-such-ref-anywhere/],
  ];
  for (const [args, message] of cases) {
    const run = contractCheck(args);
    assert.equal(run.status, 2, `${args.join(' ')}: ${run.stdout}${run.stderr}`);
    assert.match(run.stderr, message);
    assert.match(run.stderr, /usage: npm run contract:check/);
    assert.equal(run.stdout, '');
  }
});

test('--help: the usage on stdout, exit 0', () => {
  const run = contractCheck(['--help']);
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /usage: npm run contract:check \[-- --base FILE \| --base-ref GIT-REF\] \[--head FILE\]/);
  assert.match(run.stdout, /exit status: 0 nothing breaks, 1 a breaking change, 2/);
});
