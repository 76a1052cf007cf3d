/**
 * scripts/curl-examples.sh as the README runs it: every call against a running server, or a clear message when none
 * answers.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startApp } from '../helpers/app.ts';
import { freePort } from '../../support/free-port.ts';
import { runCommand } from '../helpers/processes.ts';
import { ROUTES } from '../../src/api/route-table.ts';

/** The operation each `$ METHOD /path` line of the script's output calls, by the route table's templates. */
function operationsShown(stdout: string): Set<string> {
  const routes = Object.entries(ROUTES).map(([id, r]) => ({
    id,
    method: r.method,
    path: new RegExp(`^${r.url.replace(/:[A-Za-z]+/g, '[^/?]+')}(\\?.*)?$`),
  }));
  const shown = new Set<string>();
  for (const [, method, url] of stdout.matchAll(/^\$ ([A-Z]+) (\S+)/gm)) {
    const route = routes.find((r) => r.method === method && r.path.test(url!));
    assert.ok(route, `the script calls ${method} ${url}, which is no operation of the route table`);
    shown.add(route.id);
  }
  return shown;
}

const examples = (env: Record<string, string>, ...args: string[]) =>
  runCommand('bash', ['scripts/curl-examples.sh', ...args], env);

test('curl-examples: no server at the URL → a message saying so and how to start one, exit 1', async () => {
  const port = await freePort();
  const run = await examples({}, `http://localhost:${port}`);
  assert.equal(run.status, 1);
  assert.equal(run.stdout, '');
  assert.match(
    run.stderr,
    new RegExp(`^curl-examples: no server answers at http://localhost:${port}\\. Start one with 'npm start'`),
  );
});

test('curl-examples: against a running server it calls every operation, each answers, the payment replays under its key', async (t) => {
  const port = await freePort();
  const h = await startApp(
    t,
    // The settings the script's header names for its webhook calls: a local receiver is let in.
    {
      PORT: String(port),
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOWED_CIDRS: '127.0.0.1/32',
      WEBHOOK_ALLOWED_PORTS: '3000',
    },
    { singleInstance: true, backendService: false },
  );
  await h.app.listen({ port, host: 'localhost' });
  const run = await examples(
    { DATA_DIR: h.dataDir, PATH: `${process.execPath.replace(/\/node$/, '')}:${process.env['PATH']}` },
    `http://localhost:${port}`,
  );
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /\$ POST \/v1\/orders\n\{"orderId":"ORD-/);
  assert.match(run.stdout, /"status":"CANCELLED"/);
  assert.match(run.stdout, /idempotent-replayed: true/i);
  assert.doesNotMatch(run.stdout, /"status":(4|5)\d\d/, 'no problem answer');
  assert.match(run.stdout, /HTTP\/1\.1 202/, 'the asynchronous payment is accepted');
  assert.match(run.stdout, /"deliveryId":"WHD-/, 'the subscription got a delivery of the order');
  assert.match(run.stdout, /\n204\n/, 'the subscription is deleted');
  assert.deepEqual(
    Object.keys(ROUTES).filter((id) => !operationsShown(run.stdout).has(id)),
    [],
    'every operation of the route table is called',
  );
});

test('curl-examples: a server that refuses local webhook receivers → the other calls, then how to start it for webhooks', async (t) => {
  const port = await freePort();
  const h = await startApp(t, { PORT: String(port) }, { singleInstance: true, backendService: false });
  await h.app.listen({ port, host: 'localhost' });
  const run = await examples(
    { DATA_DIR: h.dataDir, PATH: `${process.execPath.replace(/\/node$/, '')}:${process.env['PATH']}` },
    `http://localhost:${port}`,
  );
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /"code":"VALIDATION_FAILED"/, 'the refusal is shown as the server sent it');
  assert.match(
    run.stderr,
    /WEBHOOK_ALLOW_HTTP=true WEBHOOK_ALLOWED_CIDRS=127\.0\.0\.1\/32 WEBHOOK_ALLOWED_PORTS=3000 npm start/,
  );
});
