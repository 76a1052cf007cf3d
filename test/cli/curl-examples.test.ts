/**
 * scripts/curl-examples.sh as the README runs it: every call against a running server, or a clear message when none
 * answers.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startApp } from '../helpers/app.ts';
import { freePort } from '../../support/free-port.ts';
import { runCommand } from '../helpers/processes.ts';

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

test('curl-examples: against a running server every call answers, the payment replays under its key', async (t) => {
  const port = await freePort();
  const h = await startApp(t, { PORT: String(port) }, { singleInstance: true, backendService: false });
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
});
