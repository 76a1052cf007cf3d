/** `npm run token` prints a token the server accepts (same DATA_DIR key), with the scopes asked for. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { assertProblem } from '../helpers/assert-shape.ts';
import { needsEmbeddedProvider, startApp } from '../helpers/app.ts';

function token(dataDir: string, ...args: string[]) {
  return spawnSync(process.execPath, ['src/cli/token.ts', ...args], {
    env: { ...process.env, DATA_DIR: dataDir, PORT: '8080' },
    encoding: 'utf8',
  });
}

test('token command: default role scopes and 10 minutes; --scope narrows; the API accepts it', async (t) => {
  if (needsEmbeddedProvider) return t.skip(needsEmbeddedProvider);
  const h = await startApp(t);
  const full = token(h.dataDir, 'ada');
  assert.equal(full.status, 0, full.stderr);
  const claims = decodeJwt(full.stdout.trim());
  assert.equal(claims.sub, 'ada');
  assert.equal(claims['customer_id'], '1001');
  assert.equal(Number(claims.exp) - Number(claims.iat), 600);
  assert.equal(decodeProtectedHeader(full.stdout.trim()).typ, 'at+jwt');

  const narrow = token(h.dataDir, 'ada', '--scope', 'orders:read', '--ttl', '5m');
  assert.equal(narrow.status, 0, narrow.stderr);
  const bearer = narrow.stdout.trim();
  assert.equal(decodeJwt(bearer)['scope'], 'orders:read');
  assert.equal((await h.request({ method: 'GET', url: '/v1/orders', token: bearer })).statusCode, 200);
  assertProblem(
    await h.request({ method: 'GET', url: '/v1/customers/1001', token: bearer }),
    403,
    'INSUFFICIENT_SCOPE',
  );

  const shop = token(h.dataDir, 'acme-shop');
  assert.equal(decodeJwt(shop.stdout.trim())['client_id'], 'acme-shop');
});

test('token command refuses unknown identities, scopes beyond the role and bad lifetimes', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'corebridge-token-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  for (const args of [
    ['nobody'],
    ['acme-shop', '--scope', 'payments:write'],
    ['ada', '--scope', 'admin'],
    ['ada', '--ttl', 'soon'],
    [],
  ]) {
    const run = token(dir, ...args);
    assert.equal(run.status, 2, args.join(' '));
    assert.equal(run.stdout, '');
    assert.match(run.stderr, /^token: /);
  }
});

test('token command makes no demo token beside an accounts file, nor in production mode', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'corebridge-token-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  for (const [env, reason] of [
    [{ AUTH_ACCOUNTS_FILE: join(dir, 'accounts.json') }, /^token: AUTH_ACCOUNTS_FILE is set/],
    [{ NODE_ENV: 'production' }, /^token: NODE_ENV=production: development tokens are not made/],
  ] as const) {
    const run = spawnSync(process.execPath, ['src/cli/token.ts', 'clerk'], {
      env: { ...process.env, DATA_DIR: dir, PORT: '8080', ...env },
      encoding: 'utf8',
    });
    assert.equal(run.status, 2);
    assert.equal(run.stdout, '');
    assert.match(run.stderr, reason);
  }
});

test('token command says on one line why it failed when DATA_DIR cannot hold the signing key', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'corebridge-token-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'not-a-directory');
  writeFileSync(file, '');
  const run = token(file, 'ada');
  assert.equal(run.status, 1);
  assert.equal(run.stdout, '');
  assert.match(run.stderr, /^token: ENOTDIR: not a directory, mkdir '.*not-a-directory\/dev-issuer'\n$/);
});
