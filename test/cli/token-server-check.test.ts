/**
 * `npm run token` checks the running server before printing: the settings of a server on another PORT or
 * with another DATA_DIR make it refuse with a message, instead of printing a token that fails with 401.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { startApp } from '../helpers/app.ts';
import { freePort } from '../../support/free-port.ts';
import { runCommand } from '../helpers/processes.ts';

// Asynchronous: the server under test runs in this process and must answer while the command runs.
const token = (env: Record<string, string>, ...args: string[]) =>
  runCommand(process.execPath, ['src/cli/token.ts', ...args], env);

test('token: signs when the server at the issuer publishes its key; refuses another DATA_DIR, another issuer, a port that is not Corebridge', async (t) => {
  const port = await freePort();
  const h = await startApp(t, { PORT: String(port) }, { singleInstance: true, backendService: false });
  await h.app.listen({ port, host: 'localhost' });

  const accepted = await token({ PORT: String(port), DATA_DIR: h.dataDir }, 'ada');
  assert.equal(accepted.status, 0, accepted.stderr);
  assert.equal(accepted.stderr, '');
  const bearer = accepted.stdout.trim();
  const balance = await fetch(`http://localhost:${port}/v1/accounts/1001-01/balance`, {
    headers: { authorization: `Bearer ${bearer}` },
  });
  assert.equal(balance.status, 200);

  const otherDir = mkdtempSync(join(tmpdir(), 'corebridge-token-'));
  t.after(() => rmSync(otherDir, { recursive: true, force: true }));
  const otherKey = await token({ PORT: String(port), DATA_DIR: otherDir }, 'ada');
  assert.equal(otherKey.status, 2);
  assert.equal(otherKey.stdout, '');
  assert.match(
    otherKey.stderr,
    /^token: the server at http:\/\/localhost:\d+ does not publish the key this command signs with .*DATA_DIR/,
  );

  const otherIssuer = await token(
    { PORT: String(port), AUTH_ISSUER: `http://127.0.0.1:${port}/oauth`, DATA_DIR: h.dataDir },
    'ada',
  );
  assert.equal(otherIssuer.status, 2);
  assert.equal(otherIssuer.stdout, '');
  assert.match(otherIssuer.stderr, /has issuer http:\/\/localhost:\d+\/oauth, not http:\/\/127\.0\.0\.1:\d+\/oauth/);

  const stranger = createServer((_req, res) => res.writeHead(404).end('nothing here'));
  await new Promise<void>((resolve) => stranger.listen(0, 'localhost', resolve));
  t.after(() => stranger.close());
  const strangerPort = (stranger.address() as { port: number }).port;
  const notCorebridge = await token({ PORT: String(strangerPort), DATA_DIR: h.dataDir }, 'ada');
  assert.equal(notCorebridge.status, 2);
  assert.match(notCorebridge.stderr, /answers, but not as a Corebridge server .*HTTP 404/);
});

test('token: with no server at the issuer it still signs, and says so on stderr', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'corebridge-token-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const port = await freePort();
  const run = await token({ PORT: String(port), DATA_DIR: dir }, 'ada');
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout.trim(), /^[\w-]+\.[\w-]+\.[\w-]+$/);
  assert.match(
    run.stderr,
    new RegExp(`^token: no server answers at http://localhost:${port} \\(ECONNREFUSED\\).*set PORT`),
  );
});
