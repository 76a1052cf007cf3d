/**
 * A receiver on the developer's machine, as docs/webhooks.md starts the server for one: its
 * address is let in, `localhost` is refused with an answer that says to name the address, and the example
 * receiver (examples/webhooks/receiver.ts) gets and verifies the events.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { startApp } from '../helpers/app.ts';
import { freePort } from '../../support/free-port.ts';
import { until } from '../../src/until.ts';

test('a local receiver: localhost is refused, saying to name 127.0.0.1; by address the example receiver gets the events', async (t) => {
  const port = await freePort();
  const h = await startApp(t, {
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOWED_CIDRS: '127.0.0.1/32',
    WEBHOOK_ALLOWED_PORTS: String(port),
  });
  const subscribe = (url: string) =>
    h.request({
      method: 'POST',
      url: '/v1/webhook-subscriptions',
      as: 'clerk',
      body: { url, eventTypes: ['OrderConfirmed'] },
    });

  const byName = await subscribe(`http://localhost:${port}/hooks`);
  assert.equal(byName.statusCode, 400);
  assert.equal(byName.json().errors[0].pointer, '/url');
  assert.match(byName.json().detail, /localhost .*name the address, 127\.0\.0\.1/);

  const byAddress = await subscribe(`http://127.0.0.1:${port}/hooks`);
  assert.equal(byAddress.statusCode, 201, byAddress.body);

  const receiver = spawn(process.execPath, ['examples/webhooks/receiver.ts'], {
    env: { ...process.env, PORT: String(port), COREBRIDGE_WEBHOOK_SECRET: byAddress.json().secret },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  t.after(() => receiver.kill('SIGKILL'));
  let printed = '';
  receiver.stdout.on('data', (d: Buffer) => (printed += d.toString()));
  let stderr = '';
  receiver.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  await until('the receiver to listen', () => stderr.includes('listening'));

  const order = await h.request({
    method: 'POST',
    url: '/v1/orders',
    as: 'ada',
    body: { customerId: '1001', productId: 'P-100', quantity: 1 },
  });
  assert.equal(order.statusCode, 201);
  await until('the delivery', () => printed.includes('OrderConfirmed'));
  assert.match(printed, /^OrderConfirmed \S*\s?\([0-9a-f-]{36}\)$/m, 'one verified event, printed once');
});

test('the example receiver refuses to start without the whsec_ secret: one line, exit 1', async () => {
  const receiver = spawn(process.execPath, ['examples/webhooks/receiver.ts'], {
    env: { ...process.env, COREBRIDGE_WEBHOOK_SECRET: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  receiver.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise((resolve) => receiver.once('close', resolve));
  assert.equal(code, 1);
  assert.match(stderr, /^webhook-receiver: set COREBRIDGE_WEBHOOK_SECRET to the whsec_… secret/);
});
