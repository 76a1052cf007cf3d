/**
 * An external OpenID provider (Keycloak, Entra ID, Auth0…): its discovery document names its JWKS;
 * the verifier then fetches keys from there (jose's remote JWKS: cached, refetched once on an unknown
 * `kid`, at most once per cooldown).
 */

/** Asymmetric algorithms accepted from an external issuer; never `none` or HS*. */
export const EXTERNAL_ALGORITHMS = [
  'ES256',
  'ES384',
  'ES512',
  'PS256',
  'PS384',
  'PS512',
  'RS256',
  'RS384',
  'RS512',
  'EdDSA',
] as const;

export class IssuerDiscoveryError extends Error {
  override readonly name = 'IssuerDiscoveryError';
}

/**
 * Reads `<issuer>/.well-known/openid-configuration` and returns its jwks_uri; the document must name the same issuer.
 */
export async function discoverJwksUri(issuer: string, options: { timeoutMs?: number } = {}): Promise<URL> {
  const url = `${issuer}/.well-known/openid-configuration`;
  let metadata: { issuer?: unknown; jwks_uri?: unknown };
  try {
    const response = await fetch(url, {
      signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
      redirect: 'error',
      headers: { accept: 'application/json' },
    });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    metadata = (await response.json()) as typeof metadata;
  } catch (error) {
    throw new IssuerDiscoveryError(`cannot read the discovery document ${url}: ${(error as Error).message}`);
  }
  if (String(metadata.issuer).replace(/\/+$/, '') !== issuer) {
    throw new IssuerDiscoveryError(
      `the discovery document at ${url} names another issuer (${String(metadata.issuer)})`,
    );
  }
  if (typeof metadata.jwks_uri !== 'string' || !URL.canParse(metadata.jwks_uri)) {
    throw new IssuerDiscoveryError(`the discovery document at ${url} has no valid jwks_uri`);
  }
  const jwksUri = new URL(metadata.jwks_uri);
  if (jwksUri.protocol !== 'https:' && new URL(issuer).protocol === 'https:') {
    throw new IssuerDiscoveryError(`the jwks_uri ${jwksUri.href} is not https`);
  }
  return jwksUri;
}
