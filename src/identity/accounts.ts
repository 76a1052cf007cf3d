/**
 * Who may sign in to the embedded provider, and which clients it serves: the demo identities (development), or
 * the users and clients of the operator's accounts file (AUTH_ACCOUNTS_FILE), whose passwords and client secrets
 * are scrypt hashes made by `corebridge hash-password`.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { JWK } from 'jose';
import type { ClientMetadata } from 'oidc-provider';
import { hashCost, hashPassword, isPasswordHash, PASSWORD_HASH_FORMAT, verifyPassword } from '../auth/password-hash.ts';
import { DEMO_IDENTITIES, findDemoIdentity, isRole, ROLE_SCOPES, SCOPES, type Role } from '../auth/roles.ts';
import { ConfigError } from '../settings/schema.ts';
import { passwordMatches, type IdentityCredentials } from './credentials.ts';

export const DEMO_SPA_CLIENT = 'corebridge-demo-spa';
export const PARTNER_SECRET_CLIENT = 'acme-shop';
export const PARTNER_JWT_CLIENT = 'acme-shop-jwt';

export interface IdentityAccount {
  id: string;
  /** None: the account gets no scope at all (fail closed). */
  role: Role | null;
  customerId: string | null;
}

export interface IdentityAccounts {
  /** A user who may sign in, by id. */
  user(id: string): IdentityAccount | undefined;
  /** The user when the password is theirs; an unknown user costs as much as a wrong password. */
  signIn(id: string, password: string): Promise<IdentityAccount | undefined>;
  clients: ClientMetadata[];
  /** The role a client acting for itself (client credentials) holds. */
  clientRoles: Readonly<Record<string, Role>>;
  /** The public client the docs page (/docs) signs in with, its redirect URI added; null: no sign-in there. */
  docsClient: string | null;
}

/** Scopes an account may hold: its role's; none without an account or a role. */
export function scopesForAccount(accounts: IdentityAccounts, accountId: string | undefined): readonly string[] {
  if (!accountId) return [];
  const role = accounts.user(accountId)?.role;
  return role ? ROLE_SCOPES[role] : [];
}

/** A private or symmetric key among a client's keys: its secret would sit in the provider's client metadata. */
const holdsSecretKey = (keys: readonly JWK[]) => keys.some((key) => 'd' in key || 'k' in key);

function partnerJwks(file: string): ClientMetadata['jwks'] {
  const jwks = JSON.parse(readFileSync(file, 'utf8')) as { keys: JWK[] };
  if (holdsSecretKey(jwks.keys)) throw new Error(`${file} must hold public keys only`);
  return jwks as ClientMetadata['jwks'];
}

/** The demo identities (src/auth/roles.ts) with the generated credentials under DATA_DIR. */
export function demoAccounts(options: {
  credentials: IdentityCredentials;
  redirectUris: readonly string[];
  partnerJwksFile: string | null;
}): IdentityAccounts {
  const user = (id: string): IdentityAccount | undefined => {
    const identity = findDemoIdentity(id);
    if (identity?.kind !== 'user') return undefined;
    return { id, role: identity.role, customerId: identity.customerId ?? null };
  };
  const clients: ClientMetadata[] = [
    {
      client_id: DEMO_SPA_CLIENT,
      client_name: 'Corebridge demo app',
      token_endpoint_auth_method: 'none',
      application_type: 'web',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      redirect_uris: [...options.redirectUris],
      scope: ['openid', ...SCOPES].join(' '),
    },
  ];
  const secret = options.credentials.clientSecrets[PARTNER_SECRET_CLIENT];
  if (secret) {
    clients.push({
      client_id: PARTNER_SECRET_CLIENT,
      client_secret: secret,
      token_endpoint_auth_method: 'client_secret_basic',
      grant_types: ['client_credentials'],
      response_types: [],
      redirect_uris: [],
      scope: ROLE_SCOPES.partner.join(' '),
    });
  }
  if (options.partnerJwksFile) {
    clients.push({
      client_id: PARTNER_JWT_CLIENT,
      token_endpoint_auth_method: 'private_key_jwt',
      token_endpoint_auth_signing_alg: 'ES256',
      jwks: partnerJwks(options.partnerJwksFile),
      grant_types: ['client_credentials'],
      response_types: [],
      redirect_uris: [],
      scope: ROLE_SCOPES.partner.join(' '),
    });
  }
  const clientRoles: Record<string, Role> = {};
  for (const identity of DEMO_IDENTITIES) if (identity.kind === 'client') clientRoles[identity.subject] = identity.role;
  clientRoles[PARTNER_JWT_CLIENT] = 'partner';
  return {
    user,
    async signIn(id, password) {
      const account = user(id);
      return passwordMatches(account ? options.credentials.passwords[id] : undefined, password) ? account : undefined;
    },
    clients,
    clientRoles,
    docsClient: DEMO_SPA_CLIENT,
  };
}

interface FileUser {
  id: string;
  passwordHash: string;
  role: Role;
  customerId?: string;
}

interface FileClient {
  id: string;
  name?: string;
  secretHash?: string;
  jwks?: { keys: JWK[] };
  redirectUris?: string[];
  role?: Role;
}

const ID = /^[A-Za-z0-9._@-]{1,64}$/;

/** Reads and checks the accounts file; a ConfigError names AUTH_ACCOUNTS_FILE and what is wrong where. */
function readAccountsFile(file: string): { users: FileUser[]; clients: FileClient[] } {
  const bad = (reason: string) => new ConfigError('AUTH_ACCOUNTS_FILE', `(${file}): ${reason}`);
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw bad(`cannot be read as JSON: ${(error as Error).message}`);
  }
  const root = data as { users?: unknown; clients?: unknown };
  if (typeof data !== 'object' || data === null || !Array.isArray(root.users) || !Array.isArray(root.clients)) {
    throw bad('must be {"users": [...], "clients": [...]}');
  }
  const seen = new Set<string>();
  const checkId = (where: string, id: unknown) => {
    if (typeof id !== 'string' || !ID.test(id)) throw bad(`${where}.id must be 1–64 of A–Z a–z 0–9 . _ @ -`);
    if (seen.has(id)) throw bad(`${where}.id "${id}" is listed twice`);
    seen.add(id);
  };
  const users = root.users.map((raw: unknown, i) => {
    const u = (raw ?? {}) as Partial<FileUser> & { password?: unknown };
    const where = `users[${i}]`;
    checkId(where, u.id);
    if ('password' in u) throw bad(`${where} has a plain "password": give "passwordHash" instead`);
    if (!isPasswordHash(u.passwordHash)) throw bad(`${where}.passwordHash must be ${PASSWORD_HASH_FORMAT}`);
    if (!isRole(u.role)) throw bad(`${where}.role must be customer, agent or partner`);
    if (u.role === 'customer' && (typeof u.customerId !== 'string' || !/^[0-9]{1,10}$/.test(u.customerId))) {
      throw bad(`${where}.customerId must be the customer's number (a customer is bound to one)`);
    }
    return u as FileUser;
  });
  const clients = root.clients.map((raw: unknown, i) => {
    const c = (raw ?? {}) as FileClient & { secret?: unknown };
    const where = `clients[${i}]`;
    checkId(where, c.id);
    if ('secret' in c) throw bad(`${where} has a plain "secret": give "secretHash" instead`);
    if (c.secretHash !== undefined && !isPasswordHash(c.secretHash)) {
      throw bad(`${where}.secretHash must be ${PASSWORD_HASH_FORMAT}`);
    }
    if (c.secretHash !== undefined && c.jwks !== undefined) throw bad(`${where}: give secretHash or jwks, not both`);
    if (c.jwks !== undefined) {
      if (!Array.isArray(c.jwks?.keys) || c.jwks.keys.length === 0) throw bad(`${where}.jwks must be {"keys": [...]}`);
      if (holdsSecretKey(c.jwks.keys)) throw bad(`${where}.jwks must hold public keys only`);
    }
    const uris = c.redirectUris ?? [];
    if (!Array.isArray(uris) || uris.some((uri) => typeof uri !== 'string' || !URL.canParse(uri))) {
      throw bad(`${where}.redirectUris must be a list of URIs`);
    }
    const confidential = c.secretHash !== undefined || c.jwks !== undefined;
    if (confidential && c.role !== 'agent' && c.role !== 'partner') {
      throw bad(`${where}.role must be agent or partner: the role the client holds acting for itself`);
    }
    if (!confidential && uris.length === 0) throw bad(`${where} needs redirectUris (public), or secretHash or jwks`);
    return c;
  });
  return { users, clients };
}

function fileClient(c: FileClient): ClientMetadata {
  const uris = c.redirectUris ?? [];
  const signsIn = uris.length > 0;
  const auth: Pick<ClientMetadata, 'token_endpoint_auth_method' | 'client_secret' | 'jwks'> = c.secretHash
    ? { token_endpoint_auth_method: 'client_secret_basic', client_secret: c.secretHash }
    : c.jwks
      ? { token_endpoint_auth_method: 'private_key_jwt', jwks: c.jwks as ClientMetadata['jwks'] }
      : { token_endpoint_auth_method: 'none' };
  const confidential = c.secretHash !== undefined || c.jwks !== undefined;
  return {
    client_id: c.id,
    ...(c.name ? { client_name: c.name } : {}),
    ...auth,
    application_type: 'web',
    grant_types: [
      ...(signsIn ? ['authorization_code', 'refresh_token'] : []),
      ...(confidential ? ['client_credentials'] : []),
    ],
    response_types: signsIn ? ['code'] : [],
    redirect_uris: uris,
    // Users' tokens are limited by their role; a client's own by its role's scopes.
    scope: (signsIn ? ['openid', ...SCOPES] : c.role ? ROLE_SCOPES[c.role] : []).join(' '),
  };
}

/** The operator's users and clients (AUTH_ACCOUNTS_FILE). */
export async function fileAccounts(file: string): Promise<IdentityAccounts> {
  const { users, clients } = readAccountsFile(file);
  const byId = new Map(users.map((u) => [u.id, u]));
  // Compared against when the user is unknown, so that costs the same as a wrong password (the users' own cost).
  const cost = users[0] ? hashCost(users[0].passwordHash) : null;
  const decoy = await hashPassword(randomBytes(16).toString('base64url'), ...(cost ? [cost] : []));
  const user = (id: string): IdentityAccount | undefined => {
    const u = byId.get(id);
    return u ? { id: u.id, role: u.role, customerId: u.customerId ?? null } : undefined;
  };
  const clientRoles: Record<string, Role> = {};
  for (const c of clients) if (c.role && (c.secretHash || c.jwks)) clientRoles[c.id] = c.role;
  return {
    user,
    async signIn(id, password) {
      const u = byId.get(id);
      const matches = await verifyPassword(u?.passwordHash ?? decoy, password);
      return matches && u ? user(id) : undefined;
    },
    clients: clients.map(fileClient),
    clientRoles,
    docsClient: null,
  };
}
