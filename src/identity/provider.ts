/**
 * The embedded OpenID Provider (oidc-provider), the default issuer of this API's access tokens: code + PKCE,
 * rotated refresh tokens, client credentials; RFC 9068 JWT access tokens for this API as the one resource.
 */
import Provider, { errors, type Adapter, type Configuration, type KoaContextWithOIDC } from 'oidc-provider';
import type { JWK } from 'jose';
import { ApiError, toProblem } from '../errors.ts';
import { SCOPES } from '../auth/roles.ts';
import { SIGNING_ALG } from '../auth/dev-issuer.ts';
import { isPasswordHash, verifyPassword } from '../auth/password-hash.ts';
import { scopesForAccount, type IdentityAccounts } from './accounts.ts';

export interface IdentityProviderOptions {
  issuer: string;
  audience: string;
  accessTokenTtlSeconds: number;
  /** The users who sign in and the clients served: the demo's, or the operator's accounts file. */
  accounts: IdentityAccounts;
  signingJwk: JWK;
  /** Keys that sign the provider's cookies (newest first). */
  cookieKeys: string[];
  /** Storage of sessions, grants and tokens (one adapter per model). */
  adapter(model: string): Adapter;
  /** Where oidc-provider's own events (grant errors, server errors) are reported. */
  onEvent(level: 'info' | 'warn' | 'error', event: Record<string, unknown>, message: string): void;
}

/** The account id a token or interaction belongs to, where the context knows one. */
function accountOf(ctx: KoaContextWithOIDC): string | undefined {
  const { entities } = ctx.oidc;
  const fromEntities =
    entities.AuthorizationCode?.accountId ?? entities.RefreshToken?.accountId ?? entities.Account?.accountId;
  if (fromEntities) return fromEntities;
  try {
    return ctx.oidc.session?.accountId;
  } catch {
    return undefined; // no session on this route (token endpoint)
  }
}

/**
 * A request the provider has no route for would get Koa's bare text "Not Found": it answers 404 problem+json
 * like any unknown path of the API. The provider's own errors keep their protocol format (RFC 6749 section 5.2
 * `{"error": …}` from the token, revocation and introspection endpoints; RFC 6750 from userinfo), which OAuth
 * clients parse.
 */
async function answerUnroutedAsProblem(ctx: KoaContextWithOIDC, next: () => Promise<void>): Promise<void> {
  await next();
  if (ctx.status !== 404 || ctx.body != null) return;
  // The mount (src/identity/routes.ts) keeps the URL as received, with /oauth, and the request id, on the request.
  const path = ((ctx.req as { originalUrl?: string }).originalUrl ?? ctx.url).split('?')[0] ?? '';
  const requestId = String(ctx.res.getHeader('x-request-id') ?? '');
  ctx.status = 404;
  ctx.type = 'application/problem+json';
  ctx.body = toProblem(new ApiError('NOT_FOUND', `no resource at ${path}`), path, requestId);
}

export function createIdentityProvider(options: IdentityProviderOptions): Provider {
  const ttl = options.accessTokenTtlSeconds;
  const { accounts } = options;
  const configuration: Configuration = {
    adapter: options.adapter,
    clients: options.accounts.clients,
    clientDefaults: { id_token_signed_response_alg: SIGNING_ALG },
    jwks: { keys: [options.signingJwk as NonNullable<Configuration['jwks']>['keys'][number]] },
    enabledJWA: {
      clientAuthSigningAlgValues: ['ES256', 'ES384', 'PS256', 'RS256', 'EdDSA'],
      idTokenSigningAlgValues: [SIGNING_ALG],
    },
    responseTypes: ['code'],
    pkce: { required: () => true },
    clientAuthMethods: ['none', 'client_secret_basic', 'private_key_jwt'],
    scopes: ['openid', ...SCOPES],
    claims: { openid: ['sub'] },
    cookies: { keys: options.cookieKeys },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      // A client may revoke only its own tokens.
      revocation: { enabled: true, allowedPolicy: (_ctx, client, token) => token.clientId === client.clientId },
      resourceIndicators: {
        enabled: true,
        // Clients need not name the API: it is the only resource.
        defaultResource: () => options.audience,
        useGrantedResource: () => true,
        getResourceServerInfo: (ctx, resource, client) => {
          if (resource !== options.audience) throw new errors.InvalidTarget();
          // A user's token: their role's scopes at most, whatever the client. A client's own token (no account):
          // its registered `scope` limits it. Anything else: none.
          const accountId = accountOf(ctx);
          const ownToken = accountId === undefined && accounts.clientRoles[client.clientId] !== undefined;
          const scopes = ownToken ? SCOPES : scopesForAccount(accounts, accountId);
          return {
            scope: scopes.join(' '),
            audience: options.audience,
            accessTokenTTL: ttl,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: SIGNING_ALG } },
          };
        },
      },
    },
    ttl: {
      AccessToken: ttl,
      ClientCredentials: ttl,
      AuthorizationCode: 60,
      IdToken: 3600,
      Interaction: 600,
      Session: 8 * 3600,
      Grant: 14 * 86_400,
      RefreshToken: 14 * 86_400,
    },
    // A refresh token with every code for clients allowed to refresh (no offline_access dance).
    issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    // Public clients: a new refresh token on every use; the old one is then refused.
    rotateRefreshToken: (ctx) =>
      ctx.oidc.entities.Client?.clientAuthMethod === 'none' ||
      (ctx.oidc.entities.RefreshToken?.ttlPercentagePassed() ?? 0) >= 70,
    extraTokenClaims: (_ctx, token) => {
      const kind = (token as { kind?: string }).kind;
      if (kind === 'ClientCredentials') {
        const role = accounts.clientRoles[(token as { clientId: string }).clientId];
        return role ? { role } : undefined;
      }
      const accountId = (token as { accountId?: string }).accountId;
      const account = accountId ? accounts.user(accountId) : undefined;
      if (!account?.role) return undefined;
      return { role: account.role, ...(account.customerId ? { customer_id: account.customerId } : {}) };
    },
    findAccount: (_ctx, sub) => {
      if (!accounts.user(sub)) return undefined;
      return { accountId: sub, claims: () => ({ sub }) };
    },
    // Same path as the server-root JWKS of earlier versions, under the issuer.
    routes: { jwks: '/.well-known/jwks.json' },
    interactions: { url: (_ctx, interaction) => `/oauth/interaction/${interaction.uid}` },
    clientBasedCORS: (_ctx, origin, client) =>
      origin !== 'null' &&
      client.clientAuthMethod === 'none' &&
      (client.redirectUris ?? []).some((uri) => URL.parse(uri)?.origin === origin),
    renderError: (ctx, out) => {
      ctx.type = 'text/plain; charset=utf-8';
      ctx.body = `${String(out['error'])}: ${String(out['error_description'] ?? '')}\n`;
    },
  };
  const provider = new Provider(options.issuer, configuration);
  // Like the Fastify server: X-Forwarded-* headers are not trusted (TLS is terminated here or not at all).
  provider.proxy = false;
  provider.use(answerUnroutedAsProblem);
  // The accounts file holds client secrets as hashes: the secret a client sends is checked against the hash.
  const compareSecret = provider.Client.prototype.compareClientSecret;
  provider.Client.prototype.compareClientSecret = async function (this: InstanceType<Provider['Client']>, actual) {
    const stored = this.clientSecret;
    return isPasswordHash(stored) ? verifyPassword(stored, actual) : compareSecret.call(this, actual);
  };
  const refused = (event: string) => (ctx: KoaContextWithOIDC, error: Error & { error_description?: string }) => {
    options.onEvent(
      'info',
      {
        event,
        error: error.message,
        reason: error.error_description,
        clientId: ctx.oidc?.client?.clientId,
        // Set on the response by the mount (src/identity/routes.ts): the same id as the request log line.
        requestId: ctx.res.getHeader('x-request-id'),
      },
      'authentication failed',
    );
  };
  provider.on('grant.error', refused('grant.error'));
  provider.on('authorization.error', refused('authorization.error'));
  provider.on('revocation.error', refused('revocation.error'));
  provider.on('server_error', (_ctx: unknown, error: Error) => {
    options.onEvent('error', { event: 'server_error', error: error.message }, 'identity provider error');
  });
  return provider;
}
