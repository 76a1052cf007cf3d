/**
 * Production mode never loads the demo data: the serving back-ends (the API's embedded one, and the one
 * `corebridge backend serve` opens) leave an empty store empty and say once, at info, which command loads data;
 * `npm run seed` is that explicit load, and under production it loads only into an empty store. Outside production
 * a new store still gets the demo data.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { test, type TestContext } from 'node:test';
import type { Logger } from 'pino';
import { buildApp } from '../src/app.ts';
import { ROLE_SCOPES } from '../src/auth/roles.ts';
import { loadMessageCatalog } from '../src/backend/copybooks/index.ts';
import { loadConfig, type Config } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { loadServingConfig } from '../src/production.ts';
import { openEmbeddedBackend } from '../src/transport/open.ts';
import { queryStore, tempDir } from './helpers/backend-store.ts';
import { startSigningIssuer } from './helpers/fake-issuer.ts';

const AUDIENCE = 'https://api.bank.test';
const NOT_SEEDED = /back-end store is empty and the demo data is not loaded in production mode/;

/** A logger whose lines are kept, parsed. */
function keptLogger(config: Config): { logger: Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: createLogger(config, sink), lines };
}

async function count(where: { config: Config; dataDir: string }, table: string): Promise<number> {
  const rows = await queryStore(where, `SELECT COUNT(*) AS n FROM ${table}`);
  return Number(rows[0]!['n']);
}

/** `npm run seed` as an operator runs it, with only the given settings. */
function seed(env: Record<string, string>) {
  return spawnSync(process.execPath, ['src/cli/seed.ts'], {
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', ...env },
    encoding: 'utf8',
  });
}

test('production mode: the API leaves an empty store empty and says so once; npm run seed loads it, only while empty', async (t: TestContext) => {
  const dataDir = tempDir(t, 'production-store');
  const idp = await startSigningIssuer(t);
  const env = {
    DATA_DIR: dataDir,
    NODE_ENV: 'production',
    AUTH_EXTERNAL_ISSUER: idp.issuer,
    AUTH_AUDIENCE: AUDIENCE,
    WEBHOOK_SECRET_KEY: `k1:${randomBytes(32).toString('base64')}`,
    LOG_LEVEL: 'info',
  };
  const config = loadServingConfig(env, 'api');
  const { logger, lines } = keptLogger(config);
  const app = await buildApp(config, { logger });
  t.after(() => app.close());
  const token = await idp.signer(AUDIENCE).sign({ subject: 'clerk', role: 'agent', scopes: ROLE_SCOPES.agent });
  const customer = () =>
    app.inject({ method: 'GET', url: '/v1/customers/1001', headers: { authorization: `Bearer ${token}` } });

  assert.equal((await customer()).statusCode, 404);
  const where = { config, dataDir };
  for (const table of ['customers', 'accounts', 'ledger_postings', 'products']) {
    assert.equal(await count(where, table), 0, `no demo rows in ${table}`);
  }
  const told = lines.filter((line) => NOT_SEEDED.test(String(line['msg'])));
  assert.equal(told.length, 1, 'said once');
  assert.equal(told[0]!['level'], 30, 'at info');
  assert.match(String(told[0]!['msg']), /npm run seed/);

  const loaded = seed(env);
  assert.equal(loaded.status, 0, loaded.stderr);
  assert.match(loaded.stdout, /^demo data loaded into /);
  const after = await customer();
  assert.equal(after.statusCode, 200);
  assert.equal(after.json().name, 'Ada Lovelace');

  // The store now holds data: a second seed would replace it, which production mode refuses.
  const again = seed(env);
  assert.equal(again.status, 1);
  assert.match(
    again.stderr,
    /^seed: .* production mode \(NODE_ENV=production\) loads the demo data only into an empty store/,
  );
  assert.equal(again.stderr.trim().split('\n').length, 1, 'one line, no stack');
  assert.equal(await count(where, 'customers'), 3);
});

test('production mode: the back-end `corebridge backend serve` opens leaves an empty store empty, worker or in-process', async (t) => {
  for (const transport of ['worker', 'in-process']) {
    const dataDir = tempDir(t, `production-backend-${transport}`);
    const config = loadConfig({ DATA_DIR: dataDir, NODE_ENV: 'production', BACKEND_TRANSPORT: transport });
    const { logger, lines } = keptLogger(config);
    const backend = await openEmbeddedBackend(config, logger, loadMessageCatalog());
    await backend.close();
    assert.equal(await count({ config, dataDir }, 'customers'), 0, transport);
    assert.equal(lines.filter((line) => NOT_SEEDED.test(String(line['msg']))).length, 1, transport);
  }
});

test('outside production mode a new store gets the demo data, and nothing says otherwise', async (t) => {
  const dataDir = tempDir(t, 'development-store');
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'info' });
  const { logger, lines } = keptLogger(config);
  const app = await buildApp(config, { logger });
  t.after(() => app.close());
  const token = await app.devIssuer.sign({ subject: 'clerk', role: 'agent', scopes: ROLE_SCOPES.agent });
  const res = await app.inject({
    method: 'GET',
    url: '/v1/customers/1001',
    headers: { authorization: `Bearer ${token}` },
  });
  assert.equal(res.statusCode, 200);
  assert.equal(res.json().name, 'Ada Lovelace');
  assert.equal(await count({ config, dataDir }, 'customers'), 3);
  assert.equal(lines.filter((line) => NOT_SEEDED.test(String(line['msg']))).length, 0);
});
