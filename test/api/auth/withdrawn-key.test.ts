/**
 * The token cache and an external issuer's key rotation (a local fake issuer over real HTTP): a cached token stops
 * being accepted once a refetched JWKS no longer holds its signing key, whether the refetch came from a token
 * naming an unknown key or from the JWKS's age; a cached token of a key still published is kept without a fetch.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as wait } from 'node:timers/promises';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { startApp, type TestApp } from '../../helpers/app.ts';
import { assertProblem } from '../../helpers/assert-shape.ts';
import { startFakeIssuer } from '../../helpers/fake-issuer.ts';

const AUDIENCE = 'https://api.corebridge.test';

async function signingKey(kid: string): Promise<{ privateKey: CryptoKey; jwk: JWK }> {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  return { privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' } };
}

async function accessToken(issuer: string, key: { privateKey: CryptoKey }, kid: string): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ role: 'customer', customer_id: '1001', scope: 'customers:read' })
    .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid })
    .setIssuer(issuer)
    .setAudience(AUDIENCE)
    .setSubject('ada')
    .setIssuedAt(now)
    .setExpirationTime(now + 600)
    .sign(key.privateKey);
}

const read = (h: TestApp, token: string) => h.request({ method: 'GET', url: '/v1/customers/1001', token });

test('a cached token is refused once a JWKS refetched for an unknown key no longer holds its key', async (t) => {
  const idp = await startFakeIssuer(t);
  const [one, two, three] = await Promise.all(['key-1', 'key-2', 'key-3'].map(signingKey));
  idp.publish([one!.jwk, two!.jwk]);
  const h = await startApp(
    t,
    { AUTH_EXTERNAL_ISSUER: idp.issuer, AUTH_AUDIENCE: AUDIENCE, AUTH_JWKS_COOLDOWN_SECONDS: '1' },
    { singleInstance: true },
  );
  const oldToken = await accessToken(idp.issuer, one!, 'key-1');
  const keptToken = await accessToken(idp.issuer, two!, 'key-2');
  assert.equal((await read(h, oldToken)).statusCode, 200);
  assert.equal((await read(h, keptToken)).statusCode, 200);
  assert.equal(idp.jwksFetches, 1);

  // The issuer withdraws key-1 and adds key-3; nothing has refetched yet, so the cache still answers.
  idp.publish([two!.jwk, three!.jwk]);
  assert.equal((await read(h, oldToken)).statusCode, 200);
  assert.equal(idp.jwksFetches, 1, 'a cached token costs no fetch');

  // A token naming key-3 makes the API refetch the JWKS (after the cooldown): key-1 is gone, and its token too.
  await wait(1100);
  assert.equal((await read(h, await accessToken(idp.issuer, three!, 'key-3'))).statusCode, 200);
  assert.equal(idp.jwksFetches, 2);
  assertProblem(await read(h, oldToken), 401, 'UNAUTHENTICATED');
  // The token of a key still published stays cached: answered without another fetch.
  const before = idp.jwksFetches;
  assert.equal((await read(h, keptToken)).statusCode, 200);
  assert.equal(idp.jwksFetches, before);
});

test('with every token cached, the JWKS is refetched at its age and a withdrawn key stops its tokens', async (t) => {
  const idp = await startFakeIssuer(t);
  const [one, two] = await Promise.all(['key-1', 'key-2'].map(signingKey));
  idp.publish([one!.jwk, two!.jwk]);
  const h = await startApp(
    t,
    { AUTH_EXTERNAL_ISSUER: idp.issuer, AUTH_AUDIENCE: AUDIENCE, AUTH_JWKS_MAX_AGE_SECONDS: '1' },
    { singleInstance: true },
  );
  const oldToken = await accessToken(idp.issuer, one!, 'key-1');
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
