/**
 * Rotating a webhook signing secret against a real receiver: the new secret is shown once; during the overlap
 * each delivery carries both signatures, and standardwebhooks verifies it with the new secret and, separately,
 * with the old one; after the overlap (or at once, with expireCurrentIn 0) the old one verifies nothing; a second
 * rotation drops the oldest; `corebridge webhooks reencrypt` reseals the previous secret too.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { pino } from 'pino';
import { Webhook } from 'standardwebhooks';
import { buildApp } from '../../src/app.ts';
import { findDemoIdentity, ROLE_SCOPES } from '../../src/auth/roles.ts';
import { openBackendStore } from '../../src/backend/store/open.ts';
import { previousSubscriptionSecrets, subscriptionSecrets } from '../../src/backend/store/webhooks.ts';
import { reencryptWebhookSecrets } from '../../src/cli/webhooks.ts';
import { loadConfig } from '../../src/config.ts';
import { parseKeyring, WebhookKeyring } from '../../src/events/webhook-secrets.ts';
import { storeLocation } from '../../src/transport/open.ts';
import { until } from '../../src/until.ts';
import { startApp, type TestApp } from '../helpers/app.ts';
import { startReceiver, type Received, type Receiver } from '../helpers/webhook-receiver.ts';

type Ask = (method: 'GET' | 'POST', url: string, as: string, body?: object) => Promise<{ status: number; json: any }>;

const asking =
  (h: TestApp): Ask =>
  async (method, url, as, body) => {
    const res = await h.request({ method, url, as, ...(body ? { body } : {}) });
    return { status: res.statusCode, json: res.body ? res.json() : null };
  };

async function subscribe(ask: Ask, receiver: Receiver): Promise<{ subscriptionId: string; secret: string }> {
  const res = await ask('POST', '/v1/webhook-subscriptions', 'clerk', {
    url: receiver.url,
    eventTypes: ['OrderConfirmed'],
  });
  assert.equal(res.status, 201, JSON.stringify(res.json));
  return res.json;
}

async function rotate(ask: Ask, subscriptionId: string, body?: object) {
  return ask('POST', `/v1/webhook-subscriptions/${subscriptionId}/rotate-secret`, 'clerk', body);
}

/** Places an order and waits for its delivery: what the receiver got. */
async function nextDelivery(ask: Ask, receiver: Receiver): Promise<Received> {
  const before = receiver.received.length;
  const res = await ask('POST', '/v1/orders', 'ada', { customerId: '1001', productId: 'P-100', quantity: 1 });
  assert.equal(res.status, 201);
  await until('the delivery', () => receiver.received.length > before);
  return receiver.received[before]!;
}

function verifies(secret: string, hit: Received): boolean {
  try {
    new Webhook(secret).verify(hit.body, hit.headers as Record<string, string>);
    return true;
  } catch {
    return false;
  }
}

const signatures = (hit: Received) => String(hit.headers['webhook-signature']).split(' ');

test('rotate: the new secret shown once; both verify during the overlap, only the new one after it', async (t) => {
  const receiver = await startReceiver(t);
  const h = await startApp(t, { ...receiver.env, WEBHOOK_SECRET_OVERLAP: '3s' });
  const ask = asking(h);
  const sub = await subscribe(ask, receiver);

  const rotated = await rotate(ask, sub.subscriptionId);
  assert.equal(rotated.status, 200, JSON.stringify(rotated.json));
  const { secret, secretRotatedAt, previousSecretExpiresAt } = rotated.json;
  assert.deepEqual(Object.keys(rotated.json).sort(), [
    'previousSecretExpiresAt',
    'secret',
    'secretRotatedAt',
    'subscriptionId',
  ]);
  assert.equal(rotated.json.subscriptionId, sub.subscriptionId);
  assert.match(secret, /^whsec_[A-Za-z0-9+/]{32}$/);
  assert.notEqual(secret, sub.secret);
  assert.equal(Date.parse(previousSecretExpiresAt) - Date.parse(secretRotatedAt), 3000, 'WEBHOOK_SECRET_OVERLAP');

  assert.ok(!JSON.stringify(h.logs).includes(secret.slice('whsec_'.length)), 'nor in the logs');
  const read = await h.request({ method: 'GET', url: `/v1/webhook-subscriptions/${sub.subscriptionId}`, as: 'clerk' });
  assert.equal(read.statusCode, 200);
  assert.ok(!read.body.includes(secret) && !read.body.includes(sub.secret), 'the GET shows no secret');

  const during = await nextDelivery(ask, receiver);
  assert.equal(signatures(during).length, 2, 'v1,<new> v1,<old>');
  assert.ok(verifies(secret, during), 'the new secret verifies');
  assert.ok(verifies(sub.secret, during), 'the old secret verifies too, during the overlap');
  assert.ok(!verifies(`whsec_${randomBytes(24).toString('base64')}`, during), 'another secret does not');

  await until('the overlap to end', () => Date.now() > Date.parse(previousSecretExpiresAt) + 100);
  const after = await nextDelivery(ask, receiver);
  assert.equal(signatures(after).length, 1);
  assert.ok(verifies(secret, after), 'the new secret verifies');
  assert.ok(!verifies(sub.secret, after), 'the old secret no longer does');
});

test('expireCurrentIn: 0 stops the old secret at once, more than the overlap is refused; rotating again drops the oldest', async (t) => {
  const receiver = await startReceiver(t);
  const h = await startApp(t, receiver.env);
  const ask = asking(h);
  const sub = await subscribe(ask, receiver);

  const tooLong = await rotate(ask, sub.subscriptionId, { expireCurrentIn: 86_401 });
  assert.equal(tooLong.status, 400, JSON.stringify(tooLong.json));
  assert.equal(tooLong.json.code, 'VALIDATION_FAILED');
  assert.match(tooLong.json.detail, /expireCurrentIn must be 0 to 86400 seconds/);
  assert.ok(verifies(sub.secret, await nextDelivery(ask, receiver)), 'a refused rotation changes nothing');

  const now = await rotate(ask, sub.subscriptionId, { expireCurrentIn: 0 });
  assert.equal(now.status, 200, JSON.stringify(now.json));
  assert.equal(now.json.previousSecretExpiresAt, now.json.secretRotatedAt);
  const alone = await nextDelivery(ask, receiver);
  assert.equal(signatures(alone).length, 1);
  assert.ok(verifies(now.json.secret, alone));
  assert.ok(!verifies(sub.secret, alone), 'the old secret stopped at once');

  // The default overlap (24 h), then a second rotation within it: the new and the one before, never three.
  const second = await rotate(ask, sub.subscriptionId);
  assert.equal(second.status, 200);
  assert.equal(Date.parse(second.json.previousSecretExpiresAt) - Date.parse(second.json.secretRotatedAt), 86_400_000);
  const third = await rotate(ask, sub.subscriptionId, { expireCurrentIn: 600 });
  assert.equal(third.status, 200);
  const hit = await nextDelivery(ask, receiver);
  assert.equal(signatures(hit).length, 2);
  assert.ok(verifies(third.json.secret, hit), 'the newest verifies');
  assert.ok(verifies(second.json.secret, hit), 'the one it replaced verifies');
  assert.ok(!verifies(now.json.secret, hit), 'the one before that no longer does');

  const unknown = await rotate(ask, 'WHS-0000000000000000');
  assert.equal(unknown.status, 404);
  const others = await ask('POST', `/v1/webhook-subscriptions/${sub.subscriptionId}/rotate-secret`, 'acme-shop', {});
  assert.equal(others.status, 404, "another owner's subscription is not found");
  const bad = await rotate(ask, sub.subscriptionId, { expireCurrentIn: -1 });
  assert.equal(bad.status, 400);
});

/** The real app on `dataDir` with these settings; closed by the test or at its end. */
async function appOn(t: TestContext, dataDir: string, env: Record<string, string>) {
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0', ...env });
  const app = await buildApp(config);
  let closing: Promise<void> | undefined;
  const close = () => (closing ??= app.close());
  t.after(close);
  const ask: Ask = async (method, url, as, body) => {
    const identity = findDemoIdentity(as)!;
    const token = await app.devIssuer.sign({
      subject: as,
      role: identity.role,
      ...(identity.customerId ? { customerId: identity.customerId } : {}),
      scopes: ROLE_SCOPES[identity.role],
    });
    const res = await app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${token}` },
      ...(body ? { payload: body } : {}),
    });
    return { status: res.statusCode, json: res.body ? res.json() : null };
  };
  return { ask, close };
}

test('reencrypt reseals the previous secret too; both still sign under the new key', async (t) => {
  const receiver = await startReceiver(t);
  const dataDir = mkdtempSync(join(tmpdir(), 'corebridge-rotation-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  const k1 = `k1:${randomBytes(32).toString('base64')}`;
  const k2 = `k2:${randomBytes(32).toString('base64')}`;
  const one = await appOn(t, dataDir, { ...receiver.env, WEBHOOK_SECRET_KEY: k1 });
  const sub = await subscribe(one.ask, receiver);
  const rotated = await rotate(one.ask, sub.subscriptionId);
  assert.equal(rotated.status, 200);
  await one.close();

  const store = await openBackendStore(storeLocation(loadConfig({ DATA_DIR: dataDir })), {
    log: pino({ level: 'silent' }),
    seedWhenEmpty: false,
  });
  const kids = () =>
    store.transaction(async (tx) => ({
      current: (await subscriptionSecrets(tx)).map((s) => WebhookKeyring.kidOf(s.secret)),
      previous: (await previousSubscriptionSecrets(tx)).map((s) => WebhookKeyring.kidOf(s.secret)),
    }));
  try {
    const audit = await store.transaction(async (tx) =>
      tx.all(
        "SELECT tran_code, action, principal FROM audit_log WHERE entity_id = ? AND tran_code = 'WHKROT'",
        sub.subscriptionId,
      ),
    );
    assert.deepEqual(
      audit.map((row) => ({ ...row })),
      [
        {
          tran_code: 'WHKROT',
          action: `secret rotated, previous until ${rotated.json.previousSecretExpiresAt}`,
          principal: 'clerk',
        },
      ],
    );
    assert.deepEqual(await kids(), { current: ['k1'], previous: ['k1'] });
    const counts = await reencryptWebhookSecrets(store, parseKeyring(`${k2},${k1}`, 'WEBHOOK_SECRET_KEY'));
    assert.deepEqual(counts, { sealed: 0, reencrypted: 2, current: 0 });
    assert.deepEqual(await kids(), { current: ['k2'], previous: ['k2'] });
  } finally {
    await store.close();
  }

  const two = await appOn(t, dataDir, { ...receiver.env, WEBHOOK_SECRET_KEY: k2 });
  const hit = await nextDelivery(two.ask, receiver);
  assert.ok(verifies(rotated.json.secret, hit), 'the new secret, opened with k2');
  assert.ok(verifies(sub.secret, hit), 'the previous secret, opened with k2');
});
