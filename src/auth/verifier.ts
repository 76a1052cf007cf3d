/**
 * Access-token verification with jose (algorithm allowlist, typ, iss, aud, exp/nbf) against the embedded
 * provider's keys or an external issuer's JWKS; verified tokens are cached until `exp`, as signatures are costly,
 * or until a refetched JWKS no longer holds the key that signed them.
 */
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  customFetch,
  errors as joseErrors,
  jwtVerify,
  type JSONWebKeySet,
  type JWTPayload,
} from 'jose';
import { ACCESS_TOKEN_TYPE, SIGNING_ALG } from './dev-issuer.ts';
import { isRole, type Principal } from './roles.ts';

export class TokenRejected extends Error {
  override readonly name = 'TokenRejected';
  /** The subject when the signature verified but a claim (exp, nbf, iss, aud…) did not; logged, never the token. */
  readonly principal: string | undefined;
  constructor(message: string, principal?: string) {
    super(message);
    this.principal = principal;
  }
}

export interface TokenVerifier {
  verify(token: string): Promise<Principal>;
  /** The principal of a token verified before and not expired, without checking anything else. */
  cached(token: string): Principal | undefined;
}

export interface VerifierOptions {
  issuer: string;
  audience: string;
  /** The keys themselves, or the URL of a remote JWKS. */
  jwks: JSONWebKeySet | URL;
  /** Accepted signature algorithms (asymmetric only; default ES256, the embedded provider's). */
  algorithms?: readonly string[];
  /** Minimum time between two refetches of a remote JWKS, ms (jose's default 30 s). */
  jwksCooldownMs?: number;
  /**
   * Age after which a remote JWKS is refetched, ms (jose's default 10 min): a cached token whose key has left
   * the JWKS is refused at most this long (and one request) after the issuer withdrew the key.
   */
  jwksMaxAgeMs?: number;
  clockToleranceSeconds: number;
  cacheSize: number;
  /** Claim names of the role and the customer binding (default `role`, `customer_id`). */
  claims?: ClaimNames;
  now?: () => number;
}

/** Where the role and the customer binding are in a token (external issuers often namespace them). */
export interface ClaimNames {
  role: string;
  customerId: string;
}

const DEFAULT_CLAIMS: ClaimNames = { role: 'role', customerId: 'customer_id' };

function toPrincipal(payload: JWTPayload, claims: ClaimNames): Principal {
  const role = payload[claims.role];
  if (typeof payload.sub !== 'string' || !payload.sub) throw new TokenRejected('token has no subject');
  if (!isRole(role)) throw new TokenRejected('token has no valid role', payload.sub);
  const customerId = payload[claims.customerId];
  if (role === 'customer' && (typeof customerId !== 'string' || !/^[0-9]{1,10}$/.test(customerId))) {
    throw new TokenRejected('customer token is not bound to a customer', payload.sub);
  }
  const scope = typeof payload['scope'] === 'string' ? payload['scope'] : '';
  return {
    subject: payload.sub,
    role,
    customerId: role === 'customer' ? (customerId as string) : null,
    scopes: new Set(scope.split(' ').filter(Boolean)),
    expiresAt: payload.exp ?? 0,
  };
}

interface CacheEntry {
  token: string;
  principal: Principal;
  /** The signing key's id, when the token names one. */
  kid: string | undefined;
}

export function createTokenVerifier(options: VerifierOptions): TokenVerifier {
  // Keyed by the token's signature, the whole token kept and compared: the key is hashed per request, and the
  // signature is an eighth of a token's length, so hashing it costs far less than hashing the whole token.
  const cache = new Map<string, CacheEntry>();
  // The key ids of the JWKS as last fetched (remote JWKS only): a token signed by another key is not kept.
  let publishedKids: ReadonlySet<string> | null = null;

  /** A fetched JWKS: cached tokens whose key it no longer holds are dropped (a withdrawn key stops working). */
  function published(jwks: unknown): void {
    const keys = (jwks as { keys?: unknown } | null)?.keys;
    if (!Array.isArray(keys)) return;
    const kids = new Set(keys.map((k) => (k as { kid?: unknown } | null)?.kid).filter((k) => typeof k === 'string'));
    const before = publishedKids;
    publishedKids = kids;
    // The cache is walked only when a key left (a token naming no key may have been signed by it).
    if (before === null || [...before].every((k) => kids.has(k))) return;
    for (const [key, entry] of cache) if (entry.kid === undefined || !kids.has(entry.kid)) cache.delete(key);
  }

  const remote =
    options.jwks instanceof URL
      ? createRemoteJWKSet(options.jwks, {
          cooldownDuration: options.jwksCooldownMs ?? 30_000,
          cacheMaxAge: options.jwksMaxAgeMs ?? 600_000,
          timeoutDuration: 5_000,
          // Each fetch is seen here, where jose keeps no hook of its own; it happens off the hot path.
          [customFetch]: async (url, init) => {
            const res = await fetch(url, init);
            if (res.status === 200) published(await jsonOf(res));
            return res;
          },
        })
      : null;
  const keySet = remote ?? createLocalJWKSet(options.jwks as JSONWebKeySet);
  const algorithms = [...(options.algorithms ?? [SIGNING_ALG])];
  if (algorithms.some((alg) => alg === 'none' || alg.startsWith('HS')))
    throw new Error('only asymmetric signature algorithms may be accepted');
  const now = options.now ?? Date.now;
  const claimNames = options.claims ?? DEFAULT_CLAIMS;
  const keyOf = (token: string) => token.slice(token.lastIndexOf('.') + 1);

  function cached(token: string): Principal | undefined {
    const key = keyOf(token);
    const entry = cache.get(key);
    if (!entry || entry.token !== token) return undefined;
    if (entry.principal.expiresAt * 1000 > now()) {
      // A JWKS past its age is refetched in the background (once: jose shares a fetch in flight); a key it no
      // longer holds drops its tokens from the cache then.
      if (remote && !remote.fresh && !remote.reloading) remote.reload().catch(() => undefined);
      return entry.principal;
    }
    cache.delete(key);
    return undefined;
  }

  return {
    cached,
    async verify(token) {
      const known = cached(token);
      if (known) return known;
      let payload: JWTPayload;
      let kid: string | undefined;
      try {
        let protectedHeader;
        ({ payload, protectedHeader } = await jwtVerify(token, keySet, {
          issuer: options.issuer,
          audience: options.audience,
          algorithms,
          typ: ACCESS_TOKEN_TYPE,
          clockTolerance: options.clockToleranceSeconds,
          requiredClaims: ['exp', 'iat', 'sub'],
          currentDate: new Date(now()),
        }));
        kid = protectedHeader.kid;
      } catch (error) {
        if (error instanceof joseErrors.JOSEError) {
          // jose attaches the payload only to claim failures, i.e. after the signature verified.
          const sub =
            error instanceof joseErrors.JWTClaimValidationFailed || error instanceof joseErrors.JWTExpired
              ? error.payload.sub
              : undefined;
          throw new TokenRejected(describe(error), typeof sub === 'string' ? sub.slice(0, 128) : undefined);
        }
        throw error;
      }
      const principal = toPrincipal(payload, claimNames);
      // Not kept when a JWKS fetched during its verification has withdrawn its key.
      const withdrawn = publishedKids !== null && kid !== undefined && !publishedKids.has(kid);
      if (options.cacheSize > 0 && !withdrawn) {
        // Oldest entry out first: a Map iterates in insertion order.
        if (cache.size >= options.cacheSize) cache.delete(cache.keys().next().value!);
        cache.set(keyOf(token), { token, principal, kid });
      }
      return principal;
    },
  };
}

/** A response's JSON, read from a copy (jose reads the body itself); null when it is none. */
function jsonOf(res: Response): Promise<unknown> {
  return res
    .clone()
    .json()
    .catch(() => null);
}

function describe(error: InstanceType<typeof joseErrors.JOSEError>): string {
  if (error instanceof joseErrors.JWTExpired) return 'the access token expired';
  if (error instanceof joseErrors.JWTClaimValidationFailed)
    return `the access token's ${error.claim} claim is not accepted`;
  if (error instanceof joseErrors.JWSSignatureVerificationFailed) return 'the access token signature is invalid';
  if (error instanceof joseErrors.JWKSNoMatchingKey) return 'the access token names an unknown signing key';
  if (error instanceof joseErrors.JOSEAlgNotAllowed) return 'the access token algorithm is not accepted';
  if (error instanceof joseErrors.JWKSTimeout || error instanceof joseErrors.JWKSInvalid)
    return 'the issuer keys could not be fetched';
  return 'the access token is invalid';
}
