/**
 * The embedded provider's signing key (created under DATA_DIR at first start, owner-only; its public half is the
 * JWKS), and a signer for development and tests (`npm run token`, bench) that makes tokens exactly like the
 * provider's: same key, `iss`, `aud`, `typ: at+jwt` and claims.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  calculateJwkThumbprint,
  exportJWK,
  generateKeyPair,
  importJWK,
  SignJWT,
  type CryptoKey,
  type JWK,
  type KeyObject,
} from 'jose';
import { createOwnerOnlyFile } from '../owner-only-file.ts';
import type { Role } from './roles.ts';

export const SIGNING_ALG = 'ES256';
export const ACCESS_TOKEN_TYPE = 'at+jwt';

export interface DevIssuer {
  issuer: string;
  audience: string;
  jwks: { keys: JWK[] };
  sign(claims: AccessTokenClaims, options?: SignOptions): Promise<string>;
}

export interface AccessTokenClaims {
  subject: string;
  role: Role;
  customerId?: string;
  clientId?: string;
  scopes: readonly string[];
}

export interface SignOptions {
  /** Lifetime in seconds (default 600). */
  ttlSeconds?: number;
  /** Override for tests: issued-at (epoch seconds). */
  issuedAt?: number;
  audience?: string;
  notBefore?: number;
}

export function signingKeyFile(dataDir: string): string {
  return join(dataDir, 'dev-issuer', 'signing-key.jwk.json');
}

async function loadOrCreateKey(file: string): Promise<JWK> {
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as JWK;
  const { privateKey } = await generateKeyPair(SIGNING_ALG, { extractable: true });
  const jwk = await exportJWK(privateKey);
  jwk.kid = await calculateJwkThumbprint(jwk);
  jwk.alg = SIGNING_ALG;
  jwk.use = 'sig';
  if (!createOwnerOnlyFile(file, JSON.stringify(jwk))) return JSON.parse(readFileSync(file, 'utf8')) as JWK;
  return jwk;
}

/** The private signing key (created on first use), for the embedded provider's keystore. */
export async function readSigningKey(dataDir: string): Promise<JWK> {
  return loadOrCreateKey(signingKeyFile(dataDir));
}

export async function openDevIssuer(options: {
  dataDir: string;
  issuer: string;
  audience: string;
}): Promise<DevIssuer> {
  const privateJwk = await loadOrCreateKey(signingKeyFile(options.dataDir));
  const { d: _private, ...publicJwk } = privateJwk;
  const key = (await importJWK(privateJwk, SIGNING_ALG)) as CryptoKey | KeyObject;
  return accessTokenSigner({ ...options, key, publicJwk });
}

/**
 * Signs access tokens as the embedded provider does (`typ: at+jwt`, its claims) with `key`, whose public half
 * `publicJwk` (with its kid and alg) is the JWKS: the development key, or a test's external issuer's.
 */
export function accessTokenSigner(options: {
  issuer: string;
  audience: string;
  key: CryptoKey | KeyObject;
  publicJwk: JWK;
}): DevIssuer {
  const { publicJwk, key } = options;
  return {
    issuer: options.issuer,
    audience: options.audience,
    jwks: { keys: [publicJwk] },
    async sign(claims, signOptions = {}) {
      const iat = signOptions.issuedAt ?? Math.floor(Date.now() / 1000);
      const jwt = new SignJWT({
        scope: claims.scopes.join(' '),
        role: claims.role,
        ...(claims.customerId ? { customer_id: claims.customerId } : {}),
        ...(claims.clientId ? { client_id: claims.clientId } : {}),
      })
        .setProtectedHeader({ alg: publicJwk.alg ?? SIGNING_ALG, typ: ACCESS_TOKEN_TYPE, kid: publicJwk.kid })
        .setIssuer(options.issuer)
        .setAudience(signOptions.audience ?? options.audience)
        .setSubject(claims.subject)
        .setJti(randomUUID())
        .setIssuedAt(iat)
        .setExpirationTime(iat + (signOptions.ttlSeconds ?? 600));
      if (signOptions.notBefore !== undefined) jwt.setNotBefore(signOptions.notBefore);
      return jwt.sign(key);
    },
  };
}

/**
 * The embedded provider's metadata, also served at the server root for older clients; the provider's
 * own document is at `<issuer>/.well-known/openid-configuration`.
 */
export function openIdConfiguration(issuer: string, scopes: readonly string[]) {
  return {
    issuer,
    authorization_endpoint: `${issuer}/auth`,
    token_endpoint: `${issuer}/token`,
    revocation_endpoint: `${issuer}/token/revocation`,
    jwks_uri: `${issuer}/.well-known/jwks.json`,
    scopes_supported: ['openid', ...scopes],
    response_types_supported: ['code'],
    grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: [SIGNING_ALG],
    token_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'private_key_jwt'],
    code_challenge_methods_supported: ['S256'],
  };
}
