/** An external OpenID issuer for tests (support/fake-issuer.ts), closed after the test; its keys and tokens. */
import type { TestContext } from 'node:test';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { accessTokenSigner, type DevIssuer } from '../../src/auth/dev-issuer.ts';
import { serveFakeIssuer, type FakeIssuer } from '../../support/fake-issuer.ts';

export type { FakeIssuer };

/** The issuer of support/fake-issuer.ts, closed after the test. */
export async function startFakeIssuer(t: TestContext, jwksPath?: string): Promise<FakeIssuer> {
  const idp = await serveFakeIssuer(jwksPath);
  t.after(() => idp.close());
  return idp;
}

/** A signing key of the issuer's, and its public JWK to publish. */
export async function issuerKey(
  kid: string,
  alg: 'RS256' | 'ES256' = 'RS256',
): Promise<{ privateKey: CryptoKey; jwk: JWK }> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return { privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
}

/** An access token for ada (customer 1001) from `issuer`, signed with `key` under `kid`; `claims` add or replace. */
export async function issuerToken(
  issuer: string,
  audience: string,
  key: { privateKey: CryptoKey; jwk: JWK },
  kid: string,
  claims: Record<string, unknown> = {},
): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ role: 'customer', customer_id: '1001', scope: 'customers:read accounts:read', ...claims })
    .setProtectedHeader({ alg: key.jwk.alg!, typ: 'at+jwt', kid })
    .setIssuer(issuer)
    .setAudience(audience)
    .setSubject('ada')
    .setIssuedAt(now)
    .setExpirationTime(now + 600)
    .sign(key.privateKey);
}

/** Signs access tokens as the embedded provider does (same claims and shape), with an external issuer's key. */
export type IssuerSigner = DevIssuer;

/**
 * A running fake issuer publishing one key of its own, and signers of tokens for it: what an operator's OpenID
 * provider would issue to the demo principals, for the API whose AUTH_AUDIENCE is `audience`.
 */
export async function startSigningIssuer(
  t: TestContext,
): Promise<{ issuer: string; signer(audience: string): IssuerSigner }> {
  const idp = await startFakeIssuer(t);
  const key = await issuerKey('test-issuer-1', 'ES256');
  idp.publish([key.jwk]);
  const signer = (audience: string): IssuerSigner =>
    accessTokenSigner({ issuer: idp.issuer, audience, key: key.privateKey, publicJwk: key.jwk });
  return { issuer: idp.issuer, signer };
}
