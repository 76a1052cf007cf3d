/**
 * An external issuer instead of the embedded one: a local fake issuer (real HTTP on loopback) serves a
 * discovery document and a JWKS whose keys rotate. The API verifies its tokens, refetches the JWKS once
 * when a token names an unknown `kid` (not again within the cooldown), and runs no provider of its own.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { test } from 'node:test';
import { SignJWT } from 'jose';
import { signingKeyFile } from '../../../src/auth/dev-issuer.ts';
import { startApp } from '../../helpers/app.ts';
import { assertProblem } from '../../helpers/assert-shape.ts';
import { issuerKey, issuerToken, startFakeIssuer } from '../../helpers/fake-issuer.ts';

const AUDIENCE = 'https://api.corebridge.test';

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('external issuer: discovery + JWKS, rotation by unknown kid with one cached refetch, embedded provider off', async (t) => {
  const idp = await startFakeIssuer(t, '/protocol/openid-connect/certs');
  const first = await issuerKey('key-1');
  const second = await issuerKey('key-2');
  const stranger = await issuerKey('key-3');
  idp.publish([first.jwk]);
  const h = await startApp(
    t,
    { AUTH_EXTERNAL_ISSUER: idp.issuer, AUTH_AUDIENCE: AUDIENCE, AUTH_JWKS_COOLDOWN_SECONDS: '1' },
    { singleInstance: true },
  );
  assert.equal(h.config.auth.external, true);
  assert.equal(h.config.auth.issuer, idp.issuer);

  const ok = await h.request({
    method: 'GET',
    url: '/v1/customers/1001',
    token: await issuerToken(idp.issuer, AUDIENCE, first, 'key-1'),
  });
  assert.equal(ok.statusCode, 200);
  assert.equal(ok.json().customerId, '1001');
  assert.equal(idp.jwksFetches, 1);

  // The issuer rotates to a new key; a token signed with it names a kid the cached JWKS lacks.
  idp.publish([second.jwk]);
  await wait(1100);
  const rotated = await h.request({
    method: 'GET',
    url: '/v1/customers/1001',
    token: await issuerToken(idp.issuer, AUDIENCE, second, 'key-2'),
  });
  assert.equal(rotated.statusCode, 200);
  assert.equal(idp.jwksFetches, 2, 'exactly one refetch for the new kid');

  // An unknown kid right after: refused without another fetch (the cooldown holds), however often it is sent.
  const unknown = await issuerToken(idp.issuer, AUDIENCE, stranger, 'key-3');
  for (let i = 0; i < 5; i++) {
    const res = await h.request({ method: 'GET', url: '/v1/customers/1001', token: unknown });
    assertProblem(res, 401, 'UNAUTHENTICATED');
    assert.match(String(res.headers['www-authenticate']), /error="invalid_token"/);
  }
  assert.equal(idp.jwksFetches, 2, 'no refetch within the cooldown');
  await wait(1100);
  assertProblem(await h.request({ method: 'GET', url: '/v1/customers/1001', token: unknown }), 401, 'UNAUTHENTICATED');
  assertProblem(await h.request({ method: 'GET', url: '/v1/customers/1001', token: unknown }), 401, 'UNAUTHENTICATED');
  assert.equal(idp.jwksFetches, 3, 'after the cooldown, one refetch again, then cached');

  // The old key is gone from the issuer: a new token signed with it is refused.
  const retired = await h.request({
    method: 'GET',
    url: '/v1/customers/1001',
    token: await issuerToken(idp.issuer, AUDIENCE, first, 'key-1', { jti: 'new' }),
  });
  assertProblem(retired, 401, 'UNAUTHENTICATED');

  // Another issuer's token, or one for another audience, is refused even with the right key.
  const now = Math.floor(Date.now() / 1000);
  const otherAudience = await new SignJWT({ role: 'customer', customer_id: '1001', scope: 'customers:read' })
    .setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid: 'key-2' })
    .setIssuer(idp.issuer)
    .setAudience('https://other.test')
    .setSubject('ada')
    .setIssuedAt(now)
    .setExpirationTime(now + 600)
    .sign(second.privateKey);
  assertProblem(
    await h.request({ method: 'GET', url: '/v1/customers/1001', token: otherAudience }),
    401,
    'UNAUTHENTICATED',
  );

  // The embedded provider is off: no signing key of its own is made, and none is published.
  assert.equal((await h.request({ method: 'GET', url: '/oauth/.well-known/openid-configuration' })).statusCode, 404);
  assert.equal(existsSync(signingKeyFile(h.dataDir)), false, 'no development signing key');
  assert.equal(
    (await h.request({ method: 'GET', url: '/.well-known/jwks.json' })).statusCode,
    404,
    'no keys of its own published',
  );
});

test('external issuer: AUTH_AUDIENCE is required, and a discovery document naming another issuer stops startup', async (t) => {
  const idp = await startFakeIssuer(t, '/protocol/openid-connect/certs');
  await assert.rejects(startApp(t, { AUTH_EXTERNAL_ISSUER: idp.issuer }), /AUTH_AUDIENCE/);
  await assert.rejects(
    startApp(t, { AUTH_EXTERNAL_ISSUER: `${idp.issuer}/elsewhere`, AUTH_AUDIENCE: AUDIENCE }),
    /discovery document/,
  );
});

test('external issuer: the role and customer binding may come from namespaced claims', async (t) => {
  const idp = await startFakeIssuer(t, '/protocol/openid-connect/certs');
  const key = await issuerKey('key-1');
  idp.publish([key.jwk]);
  const h = await startApp(t, {
    AUTH_EXTERNAL_ISSUER: idp.issuer,
    AUTH_AUDIENCE: AUDIENCE,
    AUTH_ROLE_CLAIM: 'https://corebridge.example/role',
    AUTH_CUSTOMER_ID_CLAIM: 'https://corebridge.example/customer_id',
  });
  const namespaced = await issuerToken(idp.issuer, AUDIENCE, key, 'key-1', {
    role: undefined,
    customer_id: undefined,
    'https://corebridge.example/role': 'customer',
    'https://corebridge.example/customer_id': '1002',
  });
  const own = await h.request({ method: 'GET', url: '/v1/customers/1002', token: namespaced });
  assert.equal(own.statusCode, 200);
  assert.equal(own.json().customerId, '1002');
  assertProblem(await h.request({ method: 'GET', url: '/v1/customers/1001', token: namespaced }), 404, 'NOT_FOUND');
  // The plain claim names mean nothing here: no role → 401.
  assertProblem(
    await h.request({
      method: 'GET',
      url: '/v1/customers/1001',
      token: await issuerToken(idp.issuer, AUDIENCE, key, 'key-1'),
    }),
    401,
    'UNAUTHENTICATED',
  );
});
