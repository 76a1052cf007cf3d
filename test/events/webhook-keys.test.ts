/**
 * A webhook test event and a recover under an Idempotency-Key, once the API layer has forgotten the key (a restart,
 * or its record dropped): the back-end keeps each reply under the key, so a retry gets the same answer and no
 * second effect, and the key stays bound to its request.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertProblem } from '../helpers/assert-shape.ts';
import { queryStore } from '../helpers/backend-store.ts';
import { startApp, type TestApp } from '../helpers/app.ts';

/** A receiver that is not there (the discard port): deliveries fail and wait for their next attempt. */
const HOOK_ENV = { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOWED_CIDRS: '127.0.0.1/32', WEBHOOK_ALLOWED_PORTS: '9' };

async function subscribe(h: TestApp, path: string) {
  const res = await h.request({
    method: 'POST',
    url: '/v1/webhook-subscriptions',
    as: 'acme-shop',
    body: { url: `http://127.0.0.1:9/${path}`, eventTypes: ['OrderConfirmed'] },
  });
  assert.equal(res.statusCode, 201, res.body);
  return (res.json() as { subscriptionId: string }).subscriptionId;
}

const forget = (h: TestApp) => Promise.all(h.apps.map((app) => app.idempotencyStore.clear()));

test('a test event under a key: the retry after the API forgot it gets the same delivery, not a second', async (t) => {
  const h = await startApp(t, HOOK_ENV);
  const sub = await subscribe(h, 'a');
  const other = await subscribe(h, 'b');
  const send = (id: string, key: string) =>
    h.request({
      method: 'POST',
      url: `/v1/webhook-subscriptions/${id}/test`,
      as: 'acme-shop',
      headers: { 'idempotency-key': key },
    });
  const first = await send(sub, 'test-1');
  assert.equal(first.statusCode, 202, first.body);
  await forget(h);

  const retry = await send(sub, 'test-1');
  assert.equal(retry.statusCode, 202, retry.body);
  assert.equal(retry.headers['idempotent-replayed'], 'true', 'answered again by the back-end');
  assert.deepEqual(retry.json(), first.json());
  await forget(h);
  assertProblem(await send(other, 'test-1'), 422, 'IDEMPOTENCY_KEY_REUSED');

  const tests = await queryStore(h, "SELECT delivery_id FROM webhook_deliveries WHERE event_type = 'WebhookTest'");
  assert.deepEqual(
    tests.map((r) => r['delivery_id']),
    [first.json().deliveryId],
    'one test delivery in all',
  );
  const second = await send(sub, 'test-2');
  assert.equal(second.statusCode, 202);
  assert.notEqual(second.json().deliveryId, first.json().deliveryId, 'another key is another test');
});

test('a recover under a key: the retry after the API forgot it gets the first answer and queues nothing again', async (t) => {
  const h = await startApp(t, HOOK_ENV);
  const sub = await subscribe(h, 'r');
  const since = new Date(Date.now() - 60_000).toISOString();
  const made = await h.request({
    method: 'POST',
    url: '/v1/orders',
    as: 'acme-shop',
    body: { customerId: '1001', productId: 'P-100', quantity: 1 },
  });
  assert.equal(made.statusCode, 201, made.body);
  const recover = (body: Record<string, string>) =>
    h.request({
      method: 'POST',
      url: `/v1/webhook-subscriptions/${sub}/recover`,
      as: 'acme-shop',
      body,
      headers: { 'idempotency-key': 'recover-1' },
    });
  const first = await recover({ since });
  assert.equal(first.statusCode, 202, first.body);
  assert.ok(first.json().queued >= 1, first.body);
  await forget(h);

  const retry = await recover({ since });
  assert.equal(retry.statusCode, 202, retry.body);
  assert.deepEqual(retry.json(), first.json(), 'the first answer, counts and window included');
  const audits = await queryStore(h, "SELECT action FROM audit_log WHERE action LIKE 'recovered%'");
  assert.equal(audits.length, 1, 'the window was queued once');
  await forget(h);
  assertProblem(await recover({ since: new Date(Date.now() - 30_000).toISOString() }), 422, 'IDEMPOTENCY_KEY_REUSED');
});
