/**
 * Opens the embedded identity provider for buildApp: its accounts (the demo identities with their secrets under
 * DATA_DIR, created and announced at first start; or the operator's accounts file), the provider itself, and the
 * routes that mount it under /oauth.
 */
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { LoginThrottle } from './login-throttle.ts';
import { readSigningKey } from '../auth/dev-issuer.ts';
import { DEMO_IDENTITIES, ROLE_SCOPES } from '../auth/roles.ts';
import { demoAccounts, fileAccounts, type IdentityAccounts } from './accounts.ts';
import { openProviderStore, providerStoreFile } from './adapter.ts';
import { loadOrCreateCookieKeys, loadOrCreateCredentials } from './credentials.ts';
import { createIdentityProvider } from './provider.ts';
import { identityRoutes } from './routes.ts';
import type { IdentitySettings } from './settings.ts';

export interface DemoUser {
  user: string;
  role: string;
  customerId?: string;
  password: string;
}

/** The demo users and the owner-only file their passwords are in. */
export interface DemoUsers {
  users: DemoUser[];
  file: string;
}

export interface EmbeddedIdentity {
  /**
   * `documentHeaders`: the security headers of every answer but JSON (src/api/protection/security-headers.ts);
   * `loginThrottle`: the failed sign-ins counted per user name.
   */
  install(app: FastifyInstance, documentHeaders: Record<string, string>, loginThrottle: LoginThrottle): Promise<void>;
  /**
   * How the docs page signs in: as the public demo client, asking for a demo customer's scopes; null: it does not.
   * `demoUsers`: the demo users the page names beside the sign-in (development only).
   */
  docsSignIn: {
    clientId: string;
    scopes: readonly string[];
    demoUsers: DemoUsers | null;
  } | null;
}

async function openAccounts(
  config: { dataDir: string; auth: IdentitySettings; production?: boolean },
  log: Logger,
  docsRedirectUri: string,
): Promise<{ accounts: IdentityAccounts; cookieKeys: string[]; demoUsers: DemoUsers | null }> {
  if (config.auth.accountsFile) {
    const accounts = await fileAccounts(config.auth.accountsFile);
    log.info({ file: config.auth.accountsFile }, 'users and clients loaded from the accounts file');
    return { accounts, cookieKeys: loadOrCreateCookieKeys(config.dataDir), demoUsers: null };
  }
  const { credentials, file, created } = loadOrCreateCredentials(config.dataDir);
  // Where the demo passwords are, never the passwords themselves.
  const generated = 'demo user passwords and client secrets generated; read them from this owner-only file';
  if (created) log.warn({ file }, generated);
  else log.info({ file }, 'demo user passwords and client secrets loaded');
  const accounts = demoAccounts({
    credentials,
    redirectUris: [...config.auth.demoRedirectUris, docsRedirectUri],
    partnerJwksFile: config.auth.partnerJwksFile,
  });
  // Production mode refuses the demo users at start-up; never named on a page there in any case.
  const users = DEMO_IDENTITIES.flatMap((i) =>
    i.kind === 'user' && credentials.passwords[i.subject] !== undefined
      ? [
          {
            user: i.subject,
            role: i.role,
            ...(i.customerId ? { customerId: i.customerId } : {}),
            password: credentials.passwords[i.subject]!,
          },
        ]
      : [],
  );
  return {
    accounts,
    cookieKeys: credentials.cookieKeys,
    demoUsers: config.production === true ? null : { users, file },
  };
}

/** `docsRedirectUri`: where the docs page (/docs) takes its sign-in back, which the demo client must list. */
export async function openEmbeddedIdentity(
  config: { dataDir: string; auth: IdentitySettings; production?: boolean },
  logger: Logger,
  docsRedirectUri: string,
): Promise<EmbeddedIdentity> {
  const log = logger.child({ component: 'identity' });
  const { accounts, cookieKeys, demoUsers } = await openAccounts(config, log, docsRedirectUri);
  const store = openProviderStore(providerStoreFile(config.dataDir));
  const provider = createIdentityProvider({
    adapter: (model) => store.adapterFor(model),
    issuer: config.auth.issuer,
    audience: config.auth.audience,
    accessTokenTtlSeconds: config.auth.accessTokenTtlSeconds,
    accounts,
    signingJwk: await readSigningKey(config.dataDir),
    cookieKeys,
    onEvent: (level, event, message) => log[level](event, message),
  });
  return {
    docsSignIn: accounts.docsClient ? { clientId: accounts.docsClient, scopes: ROLE_SCOPES.customer, demoUsers } : null,
    async install(app, documentHeaders, loginThrottle) {
      app.addHook('onClose', async () => store.close());
      await identityRoutes(app, { provider, accounts, documentHeaders, loginThrottle });
    },
  };
}
