/**
 * The token cache and an external issuer's key rotation (a local fake issuer over real HTTP): a cached token stops
 * being accepted once a refetched JWKS no longer holds its signing key, whether the refetch came from a token
 * naming an unknown key or from the JWKS's age; a cached token of a key still published is kept without a fetch.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as wait } from 'node:timers/promises';
import { startApp, type TestApp } from '../../helpers/app.ts';
import { assertProblem } from '../../helpers/assert-shape.ts';
import { issuerKey, issuerToken, startFakeIssuer } from '../../helpers/fake-issuer.ts';

const AUDIENCE = 'https://api.corebridge.test';

const read = (h: TestApp, token: string) => h.request({ method: 'GET', url: '/v1/customers/1001', token });

test('a cached token is refused once a JWKS refetched for an unknown key no longer holds its key', async (t) => {
  const idp = await startFakeIssuer(t);
  const [one, two, three] = await Promise.all(['key-1', 'key-2', 'key-3'].map((kid) => issuerKey(kid, 'ES256')));
  idp.publish([one!.jwk, two!.jwk]);
  const h = await startApp(
    t,
    { AUTH_EXTERNAL_ISSUER: idp.issuer, AUTH_AUDIENCE: AUDIENCE, AUTH_JWKS_COOLDOWN_SECONDS: '1' },
    { singleInstance: true },
  );
  const oldToken = await issuerToken(idp.issuer, AUDIENCE, one!, 'key-1', { scope: 'customers:read' });
  const keptToken = await issuerToken(idp.issuer, AUDIENCE, two!, 'key-2', { scope: 'customers:read' });
  assert.equal((await read(h, oldToken)).statusCode, 200);
  assert.equal((await read(h, keptToken)).statusCode, 200);
  assert.equal(idp.jwksFetches, 1);

  // The issuer withdraws key-1 and adds key-3; nothing has refetched yet, so the cache still answers.
  idp.publish([two!.jwk, three!.jwk]);
  assert.equal((await read(h, oldToken)).statusCode, 200);
  assert.equal(idp.jwksFetches, 1, 'a cached token costs no fetch');

  // A token naming key-3 makes the API refetch the JWKS (after the cooldown): key-1 is gone, and its token too.
  await wait(1100);
  assert.equal(
    (await read(h, await issuerToken(idp.issuer, AUDIENCE, three!, 'key-3', { scope: 'customers:read' }))).statusCode,
    200,
  );
  assert.equal(idp.jwksFetches, 2);
  assertProblem(await read(h, oldToken), 401, 'UNAUTHENTICATED');
  // The token of a key still published stays cached: answered without another fetch.
  const before = idp.jwksFetches;
  assert.equal((await read(h, keptToken)).statusCode, 200);
  assert.equal(idp.jwksFetches, before);
});

test('with every token cached, the JWKS is refetched at its age and a withdrawn key stops its tokens', async (t) => {
  const idp = await startFakeIssuer(t);
  const [one, two] = await Promise.all(['key-1', 'key-2'].map((kid) => issuerKey(kid, 'ES256')));
  idp.publish([one!.jwk, two!.jwk]);
  const h = await startApp(
    t,
    { AUTH_EXTERNAL_ISSUER: idp.issuer, AUTH_AUDIENCE: AUDIENCE, AUTH_JWKS_MAX_AGE_SECONDS: '1' },
    { singleInstance: true },
  );
  const oldToken = await issuerToken(idp.issuer, AUDIENCE, one!, 'key-1', { scope: 'customers:read' });
  assert.equal((await read(h, oldToken)).statusCode, 200);
  assert.equal(idp.jwksFetches, 1);
  idp.publish([two!.jwk]);
  // Within the age, the cached token is answered and nothing is fetched.
  assert.equal((await read(h, oldToken)).statusCode, 200);
  assert.equal(idp.jwksFetches, 1);

  // Past the age, a cached token's request starts one refetch in the background (it is answered from the cache);
  // once the new JWKS is in, the withdrawn key's token is refused.
  await wait(1100);
  assert.equal((await read(h, oldToken)).statusCode, 200);
  for (let i = 0; i < 50 && idp.jwksFetches < 2; i++) await wait(20);
  assert.equal(idp.jwksFetches, 2);
  await wait(50);
  assertProblem(await read(h, oldToken), 401, 'UNAUTHENTICATED');
});
