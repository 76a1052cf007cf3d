/**
 * The embedded provider with the operator's users and clients (AUTH_ACCOUNTS_FILE) instead of the demo's: a user
 * signs in with the password whose hash the file holds, a confidential client authenticates with the secret whose
 * hash it holds, the demo users and clients are gone, a file with a plain secret is refused, and scopes fail closed.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { decodeJwt } from 'jose';
import * as client from 'openid-client';
import { hashPassword, verifyPassword } from '../../src/auth/password-hash.ts';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { demoAccounts, fileAccounts, scopesForAccount, type IdentityAccounts } from '../../src/identity/accounts.ts';
import { startIdentityServer, testCredentials, type IdentityServer } from '../helpers/identity.ts';

const REDIRECT = 'http://localhost:3000/callback';
const insecure = { execute: [client.allowInsecureRequests] };
/** The lowest cost the hashes may have: enough for a test, quick to check. */
const TEST_COST = { ln: 14, r: 8, p: 1 };

function secret(): string {
  return `pw-${Math.random().toString(36).slice(2)}-${Date.now()}`;
}

interface Secrets {
  jane: string;
  partner: string;
}

async function writeAccounts(dir: string, secrets: Secrets): Promise<string> {
  const file = join(dir, 'accounts.json');
  const accounts = {
    users: [
      { id: 'jane', passwordHash: await hashPassword(secrets.jane, TEST_COST), role: 'customer', customerId: '1002' },
    ],
    clients: [
      { id: 'bank-web', name: 'Bank web app', redirectUris: [REDIRECT] },
      { id: 'bank-partner', secretHash: await hashPassword(secrets.partner, TEST_COST), role: 'partner' },
    ],
  };
  writeFileSync(file, JSON.stringify(accounts), { mode: 0o600 });
  return file;
}

async function startWithAccounts(t: TestContext): Promise<{ h: IdentityServer; secrets: Secrets }> {
  const secrets = { jane: secret(), partner: secret() };
  const dir = mkdtempSync(join(tmpdir(), 'corebridge-accounts-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = await writeAccounts(dir, secrets);
  const h = await startIdentityServer(t, { AUTH_ACCOUNTS_FILE: file });
  return { h, secrets };
}

function formAction(html: string, ending: string): string {
  const match = new RegExp(`action="([^"]*/${ending})"`).exec(html);
  assert.ok(match, `a form posting to …/${ending}`);
  return match[1]!;
}

/** Code + PKCE through the sign-in and consent forms, by hand: answers the sign-in page's status, or the tokens. */
async function signIn(h: IdentityServer, clientId: string, user: string, password: string) {
  const config = await client.discovery(new URL(h.issuer), clientId, {}, client.None(), insecure);
  const verifier = client.randomPKCECodeVerifier();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT,
    scope: 'openid accounts:read',
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  });
  const cookies = new Map<string, string>();
  const go = async (target: string, init: RequestInit = {}) => {
    const headers = new Headers(init.headers);
    if (cookies.size) headers.set('cookie', [...cookies].map(([k, v]) => `${k}=${v}`).join('; '));
    let res = await fetch(target, { ...init, headers, redirect: 'manual' });
    let current = target;
    for (;;) {
      for (const line of res.headers.getSetCookie()) {
        const [pair] = line.split(';');
        const eq = pair!.indexOf('=');
        cookies.set(pair!.slice(0, eq).trim(), pair!.slice(eq + 1).trim());
      }
      if (res.status < 300 || res.status >= 400) return { res, url: current };
      current = new URL(res.headers.get('location')!, current).href;
      if (current.startsWith(REDIRECT)) return { res, url: current };
      const cookie = [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
      res = await fetch(current, { headers: { cookie }, redirect: 'manual' });
    }
  };
  const login = await go(url.href);
  if (login.res.status !== 200) return { status: login.res.status, body: await login.res.text() };
  const form = { 'content-type': 'application/x-www-form-urlencoded' };
  const consent = await go(new URL(formAction(await login.res.text(), 'login'), h.origin).href, {
    method: 'POST',
    headers: form,
    body: new URLSearchParams({ username: user, password }).toString(),
  });
  if (consent.res.status !== 200) return { status: consent.res.status, body: await consent.res.text() };
  const back = await go(new URL(formAction(await consent.res.text(), 'confirm'), h.origin).href, { method: 'POST' });
  assert.ok(back.url.startsWith(REDIRECT), `back to the client, got ${back.url}`);
  const tokens = await client.authorizationCodeGrant(config, new URL(back.url), { pkceCodeVerifier: verifier });
  return { status: 200, tokens };
}

test('accounts file: its user signs in with the hashed password; the demo users and demo client are gone', async (t) => {
  const { h, secrets } = await startWithAccounts(t);
  const jane = await signIn(h, 'bank-web', 'jane', secrets.jane);
  assert.equal(jane.status, 200);
  const claims = decodeJwt(jane.tokens!.access_token);
  assert.equal(claims.sub, 'jane');
  assert.equal(claims['role'], 'customer');
  assert.equal(claims['customer_id'], '1002');
  assert.deepEqual(String(claims['scope']).split(' '), ['accounts:read']);
  const balance = await fetch(`${h.origin}/v1/accounts/1002-01/balance`, {
    headers: { authorization: `Bearer ${jane.tokens!.access_token}` },
  });
  assert.equal(balance.status, 200);

  assert.equal((await signIn(h, 'bank-web', 'jane', `${secrets.jane}x`)).status, 401, 'a wrong password');
  assert.equal((await signIn(h, 'bank-web', 'ada', h.credentials.passwords['ada']!)).status, 401, 'no demo user');
  const demoClient = await signIn(h, 'corebridge-demo-spa', 'jane', secrets.jane);
  assert.equal(demoClient.status, 400, 'no demo client');
  assert.match(demoClient.body!, /invalid_client/);
  const logs = JSON.stringify(h.logs);
  assert.ok(!logs.includes(secrets.jane), 'the password never reaches a log');
});

/** 401 with a Basic challenge naming invalid_client: openid-client reports the challenge. */
function invalidClient(error: unknown): boolean {
  assert.ok(error instanceof client.WWWAuthenticateChallengeError, String(error));
  assert.equal(error.status, 401);
  assert.equal(error.cause[0]?.parameters.error, 'invalid_client');
  return true;
}

test('accounts file: a confidential client authenticates with the secret whose hash the file holds', async (t) => {
  const { h, secrets } = await startWithAccounts(t);
  const as = (id: string, clientSecret: string) =>
    client.discovery(new URL(h.issuer), id, {}, client.ClientSecretBasic(clientSecret), insecure);
  const tokens = await client.clientCredentialsGrant(await as('bank-partner', secrets.partner), {
    scope: 'orders:read customers:read',
  });
  const claims = decodeJwt(tokens.access_token);
  assert.equal(claims['role'], 'partner');
  assert.equal(claims.sub, 'bank-partner');
  await assert.rejects(
    client.clientCredentialsGrant(await as('bank-partner', 'not-the-secret'), { scope: 'orders:read' }),
    invalidClient,
  );
  await assert.rejects(
    client.clientCredentialsGrant(await as('acme-shop', h.credentials.clientSecrets['acme-shop']!), {
      scope: 'orders:read',
    }),
    invalidClient,
    'the demo partner client is gone',
  );
});

test('an accounts file with a plain secret, a bad hash or no role is refused, naming AUTH_ACCOUNTS_FILE', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'corebridge-accounts-bad-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const hash = await hashPassword(secret(), TEST_COST);
  const cases: Array<[unknown, RegExp]> = [
    [{ users: [{ id: 'jane', password: 'x', role: 'agent' }], clients: [] }, /users\[0\] has a plain "password"/],
    [{ users: [{ id: 'jane', passwordHash: 'sha256:abc', role: 'agent' }], clients: [] }, /passwordHash must be/],
    [{ users: [{ id: 'jane', passwordHash: hash }], clients: [] }, /users\[0\]\.role must be/],
    [{ users: [{ id: 'jane', passwordHash: hash, role: 'customer' }], clients: [] }, /customerId must be/],
    [{ users: [], clients: [{ id: 'c', secret: 'x', role: 'partner' }] }, /clients\[0\] has a plain "secret"/],
    [{ users: [], clients: [{ id: 'c', secretHash: hash }] }, /clients\[0\]\.role must be agent or partner/],
    [{ users: [] }, /must be \{"users"/],
  ];
  for (const [content, reason] of cases) {
    const file = join(dir, 'accounts.json');
    writeFileSync(file, JSON.stringify(content));
    await assert.rejects(fileAccounts(file), (error: unknown) => {
      assert.ok(error instanceof ConfigError);
      assert.equal(error.variable, 'AUTH_ACCOUNTS_FILE');
      assert.match(error.message, reason);
      return true;
    });
  }
  // The demo client's own settings mean nothing with the file: refused, not ignored.
  assert.throws(
    () => loadConfig({ AUTH_ACCOUNTS_FILE: 'a.json', AUTH_PARTNER_JWKS_FILE: 'jwks.json' }),
    /AUTH_PARTNER_JWKS_FILE configures a demo client/,
  );
});

test('scopes fail closed: no account, or an account without a role, gets no scope', () => {
  const demo = demoAccounts({ credentials: testCredentials(), redirectUris: [REDIRECT], partnerJwksFile: null });
  assert.deepEqual(scopesForAccount(demo, undefined), []);
  assert.deepEqual(scopesForAccount(demo, 'nobody'), []);
  assert.deepEqual(scopesForAccount(demo, 'acme-shop'), [], 'a client is not a user');
  assert.ok(scopesForAccount(demo, 'ada').includes('accounts:read'));
  const roleless: IdentityAccounts = {
    ...demo,
    user: (id) => (id === 'ghost' ? { id, role: null, customerId: null } : undefined),
  };
  assert.deepEqual(scopesForAccount(roleless, 'ghost'), []);
});

test('password hashes: scrypt in the PHC format, salted, checked in constant time', async () => {
  const a = await hashPassword('correct horse', TEST_COST);
  const b = await hashPassword('correct horse', TEST_COST);
  assert.match(a, /^\$scrypt\$ln=14,r=8,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
  assert.notEqual(a, b, 'salted');
  assert.equal(await verifyPassword(a, 'correct horse'), true);
  assert.equal(await verifyPassword(a, 'correct horsf'), false);
  assert.equal(await verifyPassword(a.replace('ln=14', 'ln=30'), 'correct horse'), false, 'a cost out of bounds');
});
