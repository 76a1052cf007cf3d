/** Who issues the access tokens and how they are read: the embedded OpenID provider, or an external issuer (AUTH_*). */
import { resolve } from 'node:path';
import { ConfigError, integer, isSet, parsed, read, section, text, type Env } from '../settings/schema.ts';

const HTTP_URL = /^https?:\/\/\S+$/;
const CLAIM_NAME = /^[A-Za-z0-9_:/.-]{1,200}$/;
/** The embedded provider's audience is a resource indicator (RFC 8707: an absolute URI); an external one is free. */
const RESOURCE_INDICATOR = /^[A-Za-z][A-Za-z0-9+.-]*:[^\s#]{1,200}$/;
const EXTERNAL_AUDIENCE = /^\S{1,200}$/;

export const IDENTITY_SETTINGS = section('Identity and tokens (the embedded OpenID provider, or an external issuer)', {
  AUTH_ISSUER: text({ pattern: HTTP_URL, allowed: 'http(s) URL', description: 'default http://localhost:PORT/oauth' }),
  AUTH_AUDIENCE: text({
    default: 'urn:corebridge:api',
    allowed: 'absolute URI (any word with AUTH_EXTERNAL_ISSUER)',
    description: '`aud` access tokens must carry',
  }),
  AUTH_ACCESS_TOKEN_TTL_SECONDS: integer({
    default: 600,
    min: 300,
    max: 900,
    description: 'lifetime of the access tokens the embedded provider issues, seconds (300–900)',
  }),
  AUTH_DEMO_REDIRECT_URIS: parsed({
    default: 'http://localhost:3000/callback http://127.0.0.1:3000/callback',
    allowed: 'URIs separated by spaces',
    description: 'redirect URIs of the public demo client',
    parse(value, name) {
      const uris = value.split(/\s+/).filter(Boolean);
      for (const uri of uris) if (!URL.canParse(uri)) throw new ConfigError(name, `has an invalid URI "${uri}"`);
      return uris;
    },
  }),
  AUTH_PARTNER_JWKS_FILE: parsed({
    allowed: 'file',
    description: 'public JWKS of the private_key_jwt partner client',
    parse: (value) => (value ? resolve(value) : null),
  }),
  AUTH_ACCOUNTS_FILE: parsed({
    allowed: 'JSON file',
    description: "the embedded provider's users and clients instead of the demo's (docs/production.md)",
    parse: (value) => (value ? resolve(value) : null),
  }),
  AUTH_EXTERNAL_ISSUER: text({
    pattern: HTTP_URL,
    allowed: 'http(s) URL',
    description: 'e.g. https://login.example.com/realms/bank (needs AUTH_AUDIENCE)',
  }),
  AUTH_ROLE_CLAIM: text({
    default: 'role',
    pattern: CLAIM_NAME,
    allowed: 'claim name',
    description: 'claim holding the role',
  }),
  AUTH_CUSTOMER_ID_CLAIM: text({
    default: 'customer_id',
    pattern: CLAIM_NAME,
    allowed: 'claim name',
    description: 'claim holding the customer binding',
  }),
  AUTH_JWKS_COOLDOWN_SECONDS: integer({
    default: 30,
    min: 1,
    max: 3600,
    description: "least time between two fetches of an external issuer's JWKS",
  }),
  AUTH_JWKS_MAX_AGE_SECONDS: integer({
    default: 600,
    min: 1,
    max: 86_400,
    description: "age at which an external issuer's JWKS is refetched; tokens of a withdrawn key stop working then",
  }),
  AUTH_CLOCK_TOLERANCE_SECONDS: integer({
    default: 30,
    min: 0,
    max: 300,
    description: 'allowed clock skew for exp and nbf',
  }),
  AUTH_TOKEN_CACHE_SIZE: integer({
    default: 10_000,
    min: 0,
    max: 1_000_000,
    description: 'verified tokens kept until they expire',
  }),
});

export interface IdentitySettings {
  /**
   * `iss` of the accepted tokens: the embedded OpenID provider's public URL (served under /oauth), or
   * the external issuer when one is configured.
   */
  issuer: string;
  /** `aud` our access tokens must carry; the embedded provider's resource indicator for this API. */
  audience: string;
  /** An external OpenID provider (AUTH_EXTERNAL_ISSUER): tokens checked with its discovery and JWKS; none embedded. */
  external: boolean;
  /** Lifetime of the access tokens the embedded provider issues, seconds (5–15 minutes). */
  accessTokenTtlSeconds: number;
  /** Redirect URIs of the public demo client (authorization code + PKCE). */
  demoRedirectUris: readonly string[];
  /** A JWKS file of public keys: registers the partner client `acme-shop-jwt` (private_key_jwt). */
  partnerJwksFile: string | null;
  /** The embedded provider's users and clients (AUTH_ACCOUNTS_FILE); null: the demo identities. */
  accountsFile: string | null;
  /** Claims holding the role and the customer binding in an external issuer's tokens (often namespaced there). */
  roleClaim: string;
  customerIdClaim: string;
  /** Least time between two fetches of an external issuer's JWKS (an unknown `kid` triggers one), seconds. */
  jwksCooldownSeconds: number;
  /** Age at which an external issuer's JWKS is refetched, even if every token is cached, seconds. */
  jwksMaxAgeSeconds: number;
  /** Allowed clock skew for exp/nbf, seconds. */
  clockToleranceSeconds: number;
  /** Verified tokens kept in memory until they expire (hot path). */
  tokenCacheSize: number;
}

/** `port`: the API's; the embedded issuer's default URL follows it. */
export function loadIdentitySettings(env: Env, port: number, defaultPort: number): IdentitySettings {
  type Name = keyof typeof IDENTITY_SETTINGS.settings & string;
  const setting = <K extends Name>(name: K) => read(env, IDENTITY_SETTINGS, name);
  const externalIssuer = setting('AUTH_EXTERNAL_ISSUER');
  if (externalIssuer && !isSet(env, 'AUTH_AUDIENCE')) {
    throw new ConfigError('AUTH_AUDIENCE', 'must be set with AUTH_EXTERNAL_ISSUER');
  }
  const embeddedIssuer = () => setting('AUTH_ISSUER') || `http://localhost:${port === 0 ? defaultPort : port}/oauth`;
  const issuer = externalIssuer || embeddedIssuer();
  const demoRedirectUris = setting('AUTH_DEMO_REDIRECT_URIS');
  const partnerJwksFile = setting('AUTH_PARTNER_JWKS_FILE');
  const accountsFile = setting('AUTH_ACCOUNTS_FILE');
  if (accountsFile && externalIssuer) {
    throw new ConfigError(
      'AUTH_ACCOUNTS_FILE',
      'is for the embedded provider: leave it unset with AUTH_EXTERNAL_ISSUER',
    );
  }
  // The demo client's settings have no effect on the accounts file's clients: refused rather than ignored.
  for (const name of ['AUTH_DEMO_REDIRECT_URIS', 'AUTH_PARTNER_JWKS_FILE'] as const) {
    if (accountsFile && isSet(env, name)) {
      throw new ConfigError(name, 'configures a demo client: list the client in AUTH_ACCOUNTS_FILE instead');
    }
  }
  const audience = setting('AUTH_AUDIENCE');
  if (isSet(env, 'AUTH_AUDIENCE') && !(externalIssuer ? EXTERNAL_AUDIENCE : RESOURCE_INDICATOR).test(audience)) {
    throw new ConfigError('AUTH_AUDIENCE', `has an invalid value "${audience}"`);
  }
  return {
    issuer: issuer.replace(/\/+$/, ''),
    audience,
    external: externalIssuer !== '',
    accessTokenTtlSeconds: setting('AUTH_ACCESS_TOKEN_TTL_SECONDS'),
    demoRedirectUris,
    partnerJwksFile,
    accountsFile,
    roleClaim: setting('AUTH_ROLE_CLAIM'),
    customerIdClaim: setting('AUTH_CUSTOMER_ID_CLAIM'),
    jwksCooldownSeconds: setting('AUTH_JWKS_COOLDOWN_SECONDS'),
    jwksMaxAgeSeconds: setting('AUTH_JWKS_MAX_AGE_SECONDS'),
    clockToleranceSeconds: setting('AUTH_CLOCK_TOLERANCE_SECONDS'),
    tokenCacheSize: setting('AUTH_TOKEN_CACHE_SIZE'),
  };
}
