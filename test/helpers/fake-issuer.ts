/** An external OpenID issuer for tests: a discovery document and a JWKS over loopback HTTP, keys published at will. */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { TestContext } from 'node:test';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import type { DevIssuer } from '../../src/auth/dev-issuer.ts';

export interface FakeIssuer {
  /** `iss`, ending in /realms/bank as Keycloak's do. */
  issuer: string;
  /** How often the JWKS was fetched. */
  readonly jwksFetches: number;
  /** Replaces the published keys. */
  publish(keys: JWK[]): void;
}

/** `jwksPath`: where under the issuer the JWKS is served (Keycloak's is /protocol/openid-connect/certs). */
export async function startFakeIssuer(t: TestContext, jwksPath = '/certs'): Promise<FakeIssuer> {
  let keys: JWK[] = [];
  let jwksFetches = 0;
  let issuer = '';
  const server = createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    if (req.url === '/realms/bank/.well-known/openid-configuration') {
      res.end(JSON.stringify({ issuer, jwks_uri: `${issuer}${jwksPath}`, response_types_supported: ['code'] }));
    } else if (req.url === `/realms/bank${jwksPath}`) {
      jwksFetches++;
      res.end(JSON.stringify({ keys }));
    } else {
      res.statusCode = 404;
      res.end('{}');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise((resolve) => server.close(resolve)));
  issuer = `http://127.0.0.1:${(server.address() as { port: number }).port}/realms/bank`;
  return {
    issuer,
    get jwksFetches() {
      return jwksFetches;
    },
    publish(next) {
      keys = next;
    },
  };
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
  const signer = (audience: string): IssuerSigner => ({
    issuer: idp.issuer,
    audience,
    jwks: { keys: [key.jwk] },
    async sign(claims, options = {}) {
      const iat = options.issuedAt ?? Math.floor(Date.now() / 1000);
      const jwt = new SignJWT({
        scope: claims.scopes.join(' '),
        role: claims.role,
        ...(claims.customerId ? { customer_id: claims.customerId } : {}),
        ...(claims.clientId ? { client_id: claims.clientId } : {}),
      })
        .setProtectedHeader({ alg: key.jwk.alg!, typ: 'at+jwt', kid: key.jwk.kid! })
        .setIssuer(idp.issuer)
        .setAudience(options.audience ?? audience)
        .setSubject(claims.subject)
        .setJti(randomUUID())
        .setIssuedAt(iat)
        .setExpirationTime(iat + (options.ttlSeconds ?? 600));
      if (options.notBefore !== undefined) jwt.setNotBefore(options.notBefore);
      return jwt.sign(key.privateKey);
    },
  });
  return { issuer: idp.issuer, signer };
}
