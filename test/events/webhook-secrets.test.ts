/**
 * Webhook signing secrets at rest: no secret in the database files, the logs or the bytes that cross the
 * transport, only in the 201 and in the signature a receiver verifies; key rotation with `corebridge webhooks
 * reencrypt`; a store with a plain secret from before; a key the keyring lacks; a bad key setting.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, test, type TestContext } from 'node:test';
import { encodeRecord } from '@corebridge/records';
import { pino } from 'pino';
import { Webhook } from 'standardwebhooks';
import { buildApp, type App } from '../../src/app.ts';
import { findDemoIdentity, ROLE_SCOPES } from '../../src/auth/roles.ts';
import { loadMessageCatalog } from '../../src/backend/copybooks/index.ts';
import { openBackendStore } from '../../src/backend/store/open.ts';
import { subscriptionSecrets, replaceSecret } from '../../src/backend/store/webhooks.ts';
import { reencryptWebhookSecrets } from '../../src/cli/webhooks.ts';
import { ConfigError, loadConfig } from '../../src/config.ts';
import {
  developmentKeyFile,
  developmentKeyring,
  newWebhookSecret,
  parseKeyring,
  WebhookKeyring,
} from '../../src/events/webhook-secrets.ts';
import { createLogger } from '../../src/logger.ts';
import { effectiveConfig } from '../../src/logging/effective-config.ts';
import { openEmbeddedBackend, storeLocation } from '../../src/transport/open.ts';
import type { Transport } from '../../src/transport/transport.ts';
import { until } from '../../src/until.ts';
import { createTestDatabase, dropTestDatabases } from '../../support/database.ts';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.ts';

after(dropTestDatabases);
const catalog = loadMessageCatalog();
const quiet = pino({ level: 'silent' });

const key = () => randomBytes(32).toString('base64');

interface Running {
  app: App;
  /** Every log line, as written. */
  logs: string[];
  /** Every request and response message that crossed the transport. */
  messages: Buffer[];
  /** Closes the app (once, whoever asks first: the test or its end). */
  close(): Promise<void>;
  request(method: 'GET' | 'POST', url: string, as: string, body?: object): Promise<{ status: number; json: any }>;
}

/** The real app on `dataDir`, its back-end in the worker thread behind a transport that keeps what crosses it. */
async function run(t: TestContext, dataDir: string, env: Record<string, string>): Promise<Running> {
  // A short relay lease: a restarted app on the same store takes over from the closed one's at once.
  const config = loadConfig({
    DATA_DIR: dataDir,
    LOG_LEVEL: 'debug',
    OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0',
    EVENTS_LEASE_SECONDS: '1',
    ...env,
  });
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      logs.push(chunk.toString('utf8'));
      done();
    },
  });
  const logger = createLogger(config, sink);
  const inner = await openEmbeddedBackend(config, logger, catalog);
  const messages: Buffer[] = [];
  const transport: Transport = {
    async call(request, options) {
      messages.push(Buffer.from(request));
      const response = await inner.call(request, options);
      messages.push(Buffer.from(response));
      return response;
    },
    ready: () => inner.ready(),
    close: () => inner.close(),
  };
  const app = await buildApp(config, { logger, transport });
  let closing: Promise<void> | undefined;
  const close = () => (closing ??= app.close());
  t.after(close);
  return {
    app,
    close,
    logs,
    messages,
    async request(method, url, as, body) {
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
    },
  };
}

function dataDirFor(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'corebridge-secrets-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Each subscription at a path of its own: an owner's second one like its first is refused (SUBSCRIPTION_EXISTS). */
let subscribed = 0;

async function subscribe(h: Running, receiver: Receiver): Promise<{ subscriptionId: string; secret: string }> {
  const res = await h.request('POST', '/v1/webhook-subscriptions', 'clerk', {
    url: `${receiver.url}/${++subscribed}`,
    eventTypes: ['OrderConfirmed'],
  });
  assert.equal(res.status, 201, JSON.stringify(res.json));
  return res.json;
}

/** Places an order and waits for its delivery to arrive; the event it carried, verified with `secret`. */
async function deliveredWith(h: Running, receiver: Receiver, secrets: string[]): Promise<void> {
  const before = receiver.received.length;
  const res = await h.request('POST', '/v1/orders', 'ada', { customerId: '1001', productId: 'P-100', quantity: 1 });
  assert.equal(res.status, 201);
  await until('the deliveries', () => receiver.received.length >= before + secrets.length);
  const hits = receiver.received.slice(before);
  for (const secret of secrets) {
    assert.ok(
      hits.some((hit) => {
        try {
          new Webhook(secret).verify(hit.body, hit.headers as Record<string, string>);
          return true;
        } catch {
          return false;
        }
      }),
      'a delivery verifies with the secret the 201 showed',
    );
  }
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => join(dir, name))
    .filter((file) => statSync(file).isFile());
}

/** A text as a record carries it (IBM-1140, the message catalog's code page), beside its UTF-8 bytes. */
function recordBytes(value: string): Buffer {
  const task = encodeRecord(catalog.segment('WHDTASK'), {
    whdtDeliveryId: '',
    whdtSubscriptionId: '',
    whdtUrl: '',
    whdtSecret: value,
    whdtOwnerRole: '',
    whdtAttempts: 0,
  });
  return task.subarray(540, 540 + value.length);
}

/** What a leaked secret looks like: the text, its base64 body and the key's bytes, as text and in a record. */
function needles(secret: string): Array<{ what: string; bytes: Buffer }> {
  const body = secret.slice('whsec_'.length);
  return [
    { what: 'the secret', bytes: Buffer.from(secret) },
    { what: 'its base64 body', bytes: Buffer.from(body) },
    { what: 'the secret in a record', bytes: recordBytes(secret) },
    { what: 'its body in a record', bytes: recordBytes(body) },
    { what: 'its key bytes', bytes: Buffer.from(body, 'base64') },
  ];
}

test('no webhook secret in the database files, the logs or a transport message; only in the 201 and the signature', async (t) => {
  const receiver = await startReceiver(t);
  const dataDir = dataDirFor(t);
  const h = await run(t, dataDir, receiver.env);
  const first = await subscribe(h, receiver);
  const second = await subscribe(h, receiver);
  assert.match(first.secret, /^whsec_[A-Za-z0-9+/]{32}$/);
  await h.request('GET', '/v1/webhook-subscriptions', 'clerk');
  await h.request('GET', `/v1/webhook-subscriptions/${first.subscriptionId}`, 'clerk');
  await deliveredWith(h, receiver, [first.secret, second.secret]);
  await until('both deliveries recorded', async () => {
    const states = await Promise.all(
      [first, second].map(
        async (s) =>
          (await h.request('GET', `/v1/webhook-subscriptions/${s.subscriptionId}/deliveries`, 'clerk')).json.items[0]
            ?.state,
      ),
    );
    return states.every((s) => s === 'succeeded');
  });

  const haystacks = (): Array<{ where: string; bytes: Buffer }> => [
    ...filesUnder(dataDir).map((file) => ({ where: file, bytes: readFileSync(file) })),
    { where: 'the logs', bytes: Buffer.from(h.logs.join('')) },
    ...h.messages.map((bytes, i) => ({ where: `transport message ${i}`, bytes })),
  ];
  const search = () => {
    for (const { where, bytes } of haystacks()) {
      for (const secret of [first.secret, second.secret]) {
        for (const needle of needles(secret)) {
          assert.equal(bytes.indexOf(needle.bytes), -1, `${needle.what} is in ${where}`);
        }
      }
    }
  };
  assert.ok(filesUnder(dataDir).some((f) => f.endsWith('backend.sqlite-wal')));
  search(); // the store's WAL as the running app leaves it
  // What does cross and is stored: the sealed form, found by the same search where the plain one is not.
  const store = await openBackendStore(storeLocation(loadConfig({ DATA_DIR: dataDir })), {
    log: quiet,
    seedWhenEmpty: false,
  });
  const stored = await store.transaction((tx) => subscriptionSecrets(tx));
  await store.close();
  assert.equal(stored.length, 2);
  for (const { secret } of stored) {
    assert.match(secret, /^v1\.dev-[0-9a-f]{8}\./, 'sealed with the development key');
    assert.ok(
      h.messages.some((m) => m.indexOf(recordBytes(secret)) >= 0),
      'the sealed form is found where it crosses',
    );
  }
  assert.ok(h.logs.length > 10, 'the logs were captured');
  await h.close();
  search(); // and once the WAL is checkpointed into the database file

  const devKey = statSync(developmentKeyFile(dataDir));
  assert.equal(devKey.mode & 0o777, 0o600, 'the development key is owner-only');
  assert.equal(loadConfig({ DATA_DIR: dataDir }).webhooks.developmentSecretKey, true);
  const [entry] = readFileSync(developmentKeyFile(dataDir), 'utf8').trim().split('\n');
  assert.ok(!h.logs.join('').includes(entry!.split(':')[1]!), 'nor is the key in the logs');
});

test('rotation: a new first key seals, old rows still sign, reencrypt moves them, the old key can go', async (t) => {
  const receiver = await startReceiver(t);
  const dataDir = dataDirFor(t);
  const k1 = `k1:${key()}`;
  const k2 = `k2:${key()}`;
  const one = await run(t, dataDir, { ...receiver.env, WEBHOOK_SECRET_KEY: k1 });
  const old = await subscribe(one, receiver);
  await one.close();

  const two = await run(t, dataDir, { ...receiver.env, WEBHOOK_SECRET_KEY: `${k2},${k1}` });
  const fresh = await subscribe(two, receiver);
  await deliveredWith(two, receiver, [old.secret, fresh.secret]);
  await two.close();

  const location = storeLocation(loadConfig({ DATA_DIR: dataDir }));
  const kids = async () => {
    const store = await openBackendStore(location, { log: quiet, seedWhenEmpty: false });
    try {
      return (await store.transaction((tx) => subscriptionSecrets(tx))).map((s) => WebhookKeyring.kidOf(s.secret));
    } finally {
      await store.close();
    }
  };
  assert.deepEqual((await kids()).sort(), ['k1', 'k2']);

  // The command itself, as an operator runs it (settings from the environment).
  const env = { ...process.env, DATA_DIR: dataDir, WEBHOOK_SECRET_KEY: `${k2},${k1}`, LOG_LEVEL: 'warn' };
  const cli = () =>
    spawnSync(process.execPath, ['bin/corebridge.ts', 'webhooks', 'reencrypt'], { env, encoding: 'utf8' });
  const ran = cli();
  assert.equal(ran.status, 0, ran.stderr);
  assert.match(ran.stdout, /under key "k2": 0 plain sealed, 1 re-encrypted, 1 already current/);
  assert.deepEqual(await kids(), ['k2', 'k2']);
  const again = cli();
  assert.equal(again.status, 0, again.stderr);
  assert.match(again.stdout, /0 plain sealed, 0 re-encrypted, 2 already current/, 'run again, it changes nothing');

  const three = await run(t, dataDir, { ...receiver.env, WEBHOOK_SECRET_KEY: k2 });
  await deliveredWith(three, receiver, [old.secret, fresh.secret]);
});

test('a store with a plain secret from before: still signed, then sealed by reencrypt', async (t) => {
  const receiver = await startReceiver(t);
  const dataDir = dataDirFor(t);
  const keys = { WEBHOOK_SECRET_KEY: `k1:${key()}` };
  const one = await run(t, dataDir, { ...receiver.env, ...keys });
  const { subscriptionId } = await subscribe(one, receiver);
  await one.close();
  const plain = `whsec_${randomBytes(24).toString('base64')}`;
  const location = storeLocation(loadConfig({ DATA_DIR: dataDir }));
  let store = await openBackendStore(location, { log: quiet, seedWhenEmpty: false });
  await store.transaction((tx) => replaceSecret(tx, subscriptionId, plain));
  await store.close();

  const two = await run(t, dataDir, { ...receiver.env, ...keys });
  await deliveredWith(two, receiver, [plain]);
  assert.match(two.logs.join(''), /stored unencrypted: run `corebridge webhooks reencrypt`/);
  await two.close();

  store = await openBackendStore(location, { log: quiet, seedWhenEmpty: false });
  t.after(() => store.close());
  const keyring = parseKeyring(keys.WEBHOOK_SECRET_KEY, 'WEBHOOK_SECRET_KEY');
  assert.deepEqual(await reencryptWebhookSecrets(store, keyring), { sealed: 1, reencrypted: 0, current: 0 });
  const [row] = await store.transaction((tx) => subscriptionSecrets(tx));
  assert.equal(keyring.open(row!.secret), plain);
  await store.close();
  for (const file of filesUnder(dataDir)) assert.equal(readFileSync(file).indexOf(plain), -1, file);

  const three = await run(t, dataDir, { ...receiver.env, ...keys });
  await deliveredWith(three, receiver, [plain]);
});

test('reencrypt on PostgreSQL: plain and old rows sealed under the current key, in one transaction', async () => {
  const store = await openBackendStore({ file: '', databaseUrl: await createTestDatabase() }, { log: quiet });
  try {
    const k1 = `k1:${key()}`;
    const plain = `whsec_${randomBytes(24).toString('base64')}`;
    const sealedOld = parseKeyring(k1, 'WEBHOOK_SECRET_KEY').seal(plain);
    await store.transaction(async (tx) => {
      for (const [id, secret] of [
        ['WHS-00000000000000A1', plain],
        ['WHS-00000000000000B2', sealedOld],
      ] as const) {
        await tx.run(
          `INSERT INTO webhook_subscriptions (subscription_id, owner_principal, owner_role, url, event_types, secret, status, created_at)
           VALUES (?, 'clerk', 'AGENT', 'https://hooks.example.com/x', 'OrderConfirmed', ?, 'active', '2026-01-01T00:00:00.000Z')`,
          id,
          secret,
        );
      }
    });
    const secrets = async () => (await store.transaction((tx) => subscriptionSecrets(tx))).map((s) => s.secret);

    // Another key under the id k1: the second row opens with nothing, and the first, sealed already in the same
    // transaction, is left plain as it was.
    const wrong = parseKeyring(`k2:${key()},k1:${key()}`, 'WEBHOOK_SECRET_KEY');
    await assert.rejects(reencryptWebhookSecrets(store, wrong), /WHS-00000000000000B2: the secret does not open/);
    assert.deepEqual(await secrets(), [plain, sealedOld], 'nothing was changed');

    const keyring = parseKeyring(`k2:${key()},${k1}`, 'WEBHOOK_SECRET_KEY');
    assert.deepEqual(await reencryptWebhookSecrets(store, keyring), { sealed: 1, reencrypted: 1, current: 0 });
    const now = await secrets();
    assert.deepEqual(
      now.map((s) => WebhookKeyring.kidOf(s)),
      ['k2', 'k2'],
    );
    assert.deepEqual(
      now.map((s) => keyring.open(s)),
      [plain, plain],
    );
    assert.deepEqual(await reencryptWebhookSecrets(store, keyring), { sealed: 0, reencrypted: 0, current: 2 });
  } finally {
    await store.close();
  }
});

test('a secret sealed with a key the keyring lacks: the delivery fails with the reason, nothing crashes', async (t) => {
  const receiver = await startReceiver(t);
  const dataDir = dataDirFor(t);
  const one = await run(t, dataDir, { ...receiver.env, WEBHOOK_SECRET_KEY: `k1:${key()}` });
  const sub = await subscribe(one, receiver);
  await one.close();

  const two = await run(t, dataDir, {
    ...receiver.env,
    WEBHOOK_SECRET_KEY: `k9:${key()}`,
    WEBHOOK_RETRY_SCHEDULE: '100ms',
  });
  const res = await two.request('POST', '/v1/orders', 'ada', { customerId: '1001', productId: 'P-100', quantity: 1 });
  assert.equal(res.status, 201);
  let delivery: { state: string; attempts: number; lastError: string | null } | undefined;
  await until('the delivery failed', async () => {
    delivery = (await two.request('GET', `/v1/webhook-subscriptions/${sub.subscriptionId}/deliveries`, 'clerk')).json
      .items[0];
    return delivery?.state === 'failed';
  });
  assert.equal(delivery!.attempts, 2, 'tried as the schedule says');
  assert.equal(delivery!.lastError, 'cannot sign: the secret is sealed with key "k1", which the keyring does not hold');
  assert.equal(receiver.received.length, 0, 'nothing is sent unsigned');
  assert.match(two.logs.join(''), /webhook secret cannot be opened: check WEBHOOK_SECRET_KEY/);
  const ready = await two.app.inject({ method: 'GET', url: '/health/ready' });
  assert.equal(ready.statusCode, 200, 'the service runs on');
});

test('a bad key setting stops the configuration, naming the variable', (t) => {
  const bad = (env: Record<string, string>) => {
    try {
      loadConfig({ DATA_DIR: '/nonexistent', ...env });
    } catch (error) {
      assert.ok(error instanceof ConfigError, String(error));
      return { variable: error.variable, message: error.message };
    }
    assert.fail('accepted');
  };
  assert.deepEqual(bad({ WEBHOOK_SECRET_KEY: 'not-a-key' }).variable, 'WEBHOOK_SECRET_KEY');
  assert.match(bad({ WEBHOOK_SECRET_KEY: `k1:${randomBytes(16).toString('base64')}` }).message, /not 32 bytes/);
  assert.match(bad({ WEBHOOK_SECRET_KEY: `k1:${key()},k1:${key()}` }).message, /names a kid twice/);
  assert.equal(bad({ WEBHOOK_SECRET_KEY: `bad kid:${key()}` }).variable, 'WEBHOOK_SECRET_KEY');
  assert.equal(bad({ WEBHOOK_SECRET_KEY_FILE: '/nonexistent/key' }).variable, 'WEBHOOK_SECRET_KEY_FILE');
  assert.equal(
    bad({ WEBHOOK_SECRET_KEY: `k1:${key()}`, WEBHOOK_SECRET_KEY_FILE: '/x' }).variable,
    'WEBHOOK_SECRET_KEY_FILE',
  );

  // The longest kid's sealed secret still fits the record fields that carry it (PIC X(128)).
  const longest = parseKeyring(`${'k'.repeat(16)}:${key()}`, 'WEBHOOK_SECRET_KEY').seal(newWebhookSecret());
  const task = catalog.segment('WHDTASK');
  const carried = task.decode(task.encode({ whdtSecret: longest, whdtAttempts: 0 }))['whdtSecret'];
  assert.equal(carried, longest);
  const create = catalog.request('WHKCRT');
  const sent = create.decode(create.encode({ whkcSecret: longest, whkcEventTypeCount: 0, whkcEventTypes: [] }));
  assert.equal(sent['whkcSecret'], longest);

  const dir = dataDirFor(t);
  const made = developmentKeyring(dir);
  assert.match(made.current, /^dev-[0-9a-f]{8}$/);
  assert.deepEqual(developmentKeyring(dir).kids, made.kids, 'made once, then read');
  writeFileSync(developmentKeyFile(dir), 'not a key\n');
  assert.throws(
    () => developmentKeyring(dir),
    (e) => e instanceof ConfigError && e.variable === 'DATA_DIR' && /webhooks\/secret-key/.test(e.message),
  );
  const file = join(dir, 'keys');
  writeFileSync(file, `k2:${key()}\nk1:${key()}\n`, { mode: 0o600 });
  const config = loadConfig({ DATA_DIR: dir, WEBHOOK_SECRET_KEY_FILE: file });
  assert.deepEqual(config.webhooks.secretKeyring?.kids, ['k2', 'k1']);
  assert.equal(config.webhooks.developmentSecretKey, false);
  const shown = JSON.stringify(effectiveConfig(config));
  assert.match(shown, /"secretKeyring":\{"kids":\["k2","k1"\]\}/, 'the startup log shows the kids');
  for (const line of readFileSync(file, 'utf8').trim().split('\n')) {
    assert.ok(!shown.includes(line.slice(3)), 'and never a key');
  }
});
