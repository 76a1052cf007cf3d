import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { test } from 'node:test';
import { pino } from 'pino';
import { Writable } from 'node:stream';
import { redactionOptions, scrub } from '../../../src/logging/redaction.ts';
import { startApp } from '../../helpers/app.ts';

test('no token, Authorization value or JWT appears in any log line of a run that issues and uses tokens', async (t) => {
  const h = await startApp(t, { LOG_LEVEL: 'debug' });
  const valid = await h.token('ada');
  const expired = await h.token('ada', { ttlSeconds: 1, issuedAt: Math.floor(Date.now() / 1000) - 3600 });
  const otherAudience = await h.token('clerk', { audience: 'urn:someone:else' });
  const tampered = `${valid.slice(0, -6)}AAAAAA`;
  const secrets = [valid, expired, otherAudience, tampered];

  const calls: Array<Parameters<typeof h.request>[0]> = [
    { method: 'GET', url: '/v1/orders?limit=5', token: valid },
    { method: 'GET', url: '/v1/accounts/1001-01/balance', token: valid },
    { method: 'GET', url: '/v1/accounts/1001-01/balance', token: expired },
    { method: 'GET', url: '/v1/accounts/1001-01/balance', token: otherAudience },
    { method: 'GET', url: '/v1/accounts/1001-01/balance', token: tampered },
    { method: 'GET', url: `/v1/orders?access_token=${valid}`, token: valid },
    {
      method: 'POST',
      url: '/v1/orders',
      token: valid,
      body: { customerId: '1001', productId: 'P-100', quantity: 0, note: valid },
    },
    {
      method: 'POST',
      url: '/v1/payments',
      token: valid,
      body: { debtorAccount: '1001-01', creditorAccount: '1002-01', amount: 1, currency: 'EUR' },
      headers: { 'idempotency-key': 'k-1', cookie: `session=${valid}` },
    },
    { method: 'GET', url: '/v1/orders/ORD-DOES-NOT-EXIST', token: valid, headers: { 'x-request-id': 'hygiene-1' } },
  ];
  for (const call of calls) await h.request(call);
  const statuses = [];
  for (const call of calls.slice(2, 5)) statuses.push((await h.request(call)).statusCode);
  assert.deepEqual(statuses, [401, 401, 401], 'the bad tokens were refused');

  assert.ok(h.logs.length >= calls.length, 'the run wrote log lines');
  const text = h.logs.map((l) => JSON.stringify(l)).join('\n');
  for (const secret of secrets) {
    assert.equal(text.includes(secret), false, 'a token reached the log');
    // no part of the token either: its signature
    assert.equal(text.includes(secret.split('.')[2]!), false, 'a token signature reached the log');
  }
  assert.doesNotMatch(text, /eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/, 'a JWT-shaped string reached the log');
  assert.doesNotMatch(text, /Bearer [A-Za-z0-9]/i);
  // the security events are there, with request id and reason
  const authFailures = h.logs.filter((l) => l['msg'] === 'authentication failed');
  assert.ok(authFailures.length >= 3);
  for (const line of authFailures) {
    assert.equal(typeof line['requestId'], 'string');
    assert.equal(typeof line['reason'], 'string');
  }
  const withQueryToken = h.logs.find(
    (l) => typeof l['url'] === 'string' && (l['url'] as string).startsWith('/v1/orders?access_token='),
  );
  assert.equal(withQueryToken?.['url'], '/v1/orders?access_token=[redacted]');
});

test('redaction removes secrets by path and by shape, errors included', () => {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _e, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  const log = pino({ ...redactionOptions() }, sink);
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const jwt = 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJhZGEifQ.c2lnbmF0dXJlLW9mLXRoZS10b2tlbg';
  log.info(
    {
      req: { headers: { authorization: `Bearer ${jwt}`, cookie: 's=1' } },
      client: { client_secret: 'sh-very-secret', password: 'pw-123456' },
    },
    'request',
  );
  log.error({ err: new Error(`verification failed for ${jwt}`) }, 'failed');
  log.warn({ config: { key: pem } }, `loaded ${pem}`);
  log.info(`Authorization: Basic ${Buffer.from('acme-shop:sh-very-secret').toString('base64')}`);
  const text = lines.join('');
  for (const secret of [
    jwt,
    'sh-very-secret',
    'pw-123456',
    pem.split('\n')[1]!,
    Buffer.from('acme-shop:sh-very-secret').toString('base64'),
  ]) {
    assert.equal(text.includes(secret), false, `${secret.slice(0, 20)}… reached the log`);
  }
  const error = JSON.parse(lines[1]!);
  assert.equal(error.err.message, 'verification failed for [redacted-jwt]');
  assert.match(error.err.stack, /Error: verification failed for \[redacted-jwt\]/);
  assert.equal(scrub('plain text stays'), 'plain text stays');
});

test('authorization and validation failures are logged with request id and principal, never the values', async (t) => {
  const h = await startApp(t);
  const narrow = await h.token('ada', { scopes: ['orders:read'] });
  const forbidden = await h.request({
    method: 'GET',
    url: '/v1/accounts/1001-01/balance',
    token: narrow,
    headers: { 'x-request-id': 'authz-1' },
  });
  assert.equal(forbidden.statusCode, 403);
  const invalid = await h.request({
    method: 'POST',
    url: '/v1/orders',
    as: 'ada',
    headers: { 'x-request-id': 'valid-1' },
    body: { customerId: '1001', productId: 'P-100', quantity: 'secret-looking-value' },
  });
  assert.equal(invalid.statusCode, 400);

  const authz = h.logs.find((l) => l['msg'] === 'authorization failed');
  assert.deepEqual(
    [authz?.['requestId'], authz?.['principal'], authz?.['code'], authz?.['route']],
    ['authz-1', 'ada', 'INSUFFICIENT_SCOPE', '/v1/accounts/:accountId/balance'],
  );
  const validation = h.logs.find((l) => l['msg'] === 'validation failed');
  assert.deepEqual(
    [validation?.['requestId'], validation?.['principal'], validation?.['pointers']],
    ['valid-1', 'ada', ['body:/quantity']],
  );
  assert.equal(JSON.stringify(h.logs).includes('secret-looking-value'), false, 'a rejected value reached the log');
});

test('the effective configuration is logged at startup with secrets masked', async () => {
  const { effectiveConfig } = await import('../../../src/logging/effective-config.ts');
  const { loadConfig } = await import('../../../src/config.ts');
  const config = loadConfig({
    DATA_DIR: '/tmp/corebridge-config-test',
    REDIS_URL: 'redis://user:s3cr3t-pass@127.0.0.1:6379/0',
  });
  const shown = JSON.stringify(effectiveConfig(config));
  assert.equal(shown.includes('s3cr3t-pass'), false);
  assert.match(shown, /redis:\/\/\[masked\]@127\.0\.0\.1:6379\/0/);
  assert.match(shown, /"dataDir":"\/tmp\/corebridge-config-test"/);
});

test("another customer's object: 404 like a missing one, logged at debug with request id and principal", async (t) => {
  const h = await startApp(t, { LOG_LEVEL: 'debug' });
  const order = (
    await h.request({
      method: 'POST',
      url: '/v1/orders',
      as: 'ada',
      body: { customerId: '1001', productId: 'P-100', quantity: 1 },
    })
  ).json();
  const res = await h.request({
    method: 'GET',
    url: `/v1/orders/${order.orderId}`,
    as: 'alan',
    headers: { 'x-request-id': 'own-1' },
  });
  assert.equal(res.statusCode, 404);
  const event = h.logs.find((l) => l['msg'] === 'object not found for caller');
  assert.deepEqual(
    [event?.['level'], event?.['requestId'], event?.['principal'], event?.['route']],
    [20, 'own-1', 'alan', '/v1/orders/:orderId'],
  );
  const line = h.logs.find((l) => l['msg'] === 'request completed' && l['requestId'] === 'own-1');
  assert.deepEqual(
    [line?.['level'], line?.['status'], line?.['principal'], line?.['code']],
    [30, 404, 'alan', 'NOT_FOUND'],
  );
});

test('webhook secrets and secret-named keys are redacted in the lines the real logger writes', async () => {
  const { createLogger } = await import('../../../src/logger.ts');
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _e, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  const log = createLogger({ logLevel: 'info' }, sink);
  const secret = `whsec_${Buffer.from('twenty-four random bytes').toString('base64')}`;
  const rotated = 'whsec_AAAAbbbbCCCCdddd+/==';
  log.info({ whkSecret: 'plain-stored-value', record: { WHDTSECRET: 'in-a-transport-record' } }, 'stored');
  log.info({ subscription: { note: `rotated to ${rotated}`, signingSecret: 'sig-value-1' } }, 'rotated');
  log.warn(`delivery failed for secret ${secret}; retrying`);
  log.error({ err: new Error(`bad signature with ${secret}`) }, 'dispatch failed');
  log.info(
    { accessToken: 'at-value-1', apiKey: 'ak-value-1', userPassword: 'pw-value-1', tokenCacheSize: 10_000 },
    'config',
  );
  const text = lines.join('');
  for (const value of [
    secret,
    rotated,
    'AAAAbbbbCCCCdddd',
    'plain-stored-value',
    'in-a-transport-record',
    'sig-value-1',
    'at-value-1',
    'ak-value-1',
    'pw-value-1',
  ]) {
    assert.equal(text.includes(value), false, `${value} reached the log`);
  }
  const parsed = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  assert.equal(parsed[0]!['whkSecret'], '[redacted]');
  assert.equal(parsed[2]!['msg'], 'delivery failed for secret whsec_[redacted]; retrying');
  assert.match(JSON.stringify(parsed[3]!['err']), /bad signature with whsec_\[redacted\]/);
  // A setting's size is not a secret: only names ending in "token" are.
  assert.equal(parsed[4]!['tokenCacheSize'], 10_000);
});
