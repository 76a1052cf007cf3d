/**
 * The embedded identity provider driven by openid-client over real HTTP: authorization code + PKCE through the login
 * and consent forms, refresh with rotation, client credentials (client secret and private_key_jwt), the refused
 * implicit and password grants, and the access tokens used against /v1.
 */
import assert from 'node:assert/strict';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { decodeJwt, decodeProtectedHeader, exportJWK, generateKeyPair } from 'jose';
import * as client from 'openid-client';
import { buildApp } from '../../src/app.ts';
import { createLogger } from '../../src/logger.ts';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { credentialsFile } from '../../src/identity/credentials.ts';
import { SCOPE_DESCRIPTIONS } from '../../src/auth/roles.ts';
import { startApp } from '../helpers/app.ts';
import { startIdentityServer, type IdentityServer } from '../helpers/identity.ts';

const SPA = 'corebridge-demo-spa';
const REDIRECT = 'http://localhost:3000/callback';
const insecure = { execute: [client.allowInsecureRequests] };

/** A browser's worth of cookie handling: enough for the provider's interaction and session cookies. */
class Browser {
  readonly cookies = new Map<string, string>();

  async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookies.size) headers.set('cookie', [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '));
    const res = await fetch(url, { ...init, headers, redirect: 'manual' });
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      const expired = attributes.some((a) => /expires=Thu, 01 Jan 1970/i.test(a)) || value === '';
      if (expired) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return res;
  }

  /** Follows redirects until one leaves the server (the client's redirect URI) or a page is shown. */
  async follow(url: string, init: RequestInit = {}): Promise<{ url: string; res: Response }> {
    let current = url;
    let res = await this.fetch(current, init);
    while (res.status >= 300 && res.status < 400) {
      const next = new URL(res.headers.get('location')!, current).href;
      if (next.startsWith(REDIRECT)) return { url: next, res };
      current = next;
      res = await this.fetch(current);
    }
    return { url: current, res };
  }
}

function formAction(html: string, ending: string): string {
  const match = new RegExp(`action="([^"]*/${ending})"`).exec(html);
  assert.ok(match, `a form posting to …/${ending}`);
  return match[1]!;
}

async function spaConfig(h: IdentityServer): Promise<client.Configuration> {
  return client.discovery(new URL(h.issuer), SPA, { id_token_signed_response_alg: 'ES256' }, client.None(), insecure);
}

/** The whole front-channel: authorization request, login form, consent form, back to the redirect URI. */
async function signIn(h: IdentityServer, config: client.Configuration, user: string, scope: string) {
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT,
    scope,
    state,
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  });
  const browser = new Browser();
  const login = await browser.follow(url.href);
  assert.equal(login.res.status, 200);
  const loginHtml = await login.res.text();
  assert.match(loginHtml, /<input id="password" name="password" type="password"/);
  assert.match(
    loginHtml,
    /<input id="username" name="username"[^>]* required autofocus>/,
    'the first field has the focus',
  );
  const consent = await browser.follow(new URL(formAction(loginHtml, 'login'), h.origin).href, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ username: user, password: h.credentials.passwords[user]! }).toString(),
  });
  assert.equal(consent.res.status, 200, 'the consent page follows the login');
  const consentHtml = await consent.res.text();
  const back = await browser.follow(new URL(formAction(consentHtml, 'confirm'), h.origin).href, { method: 'POST' });
  assert.ok(back.url.startsWith(REDIRECT), `redirected to the client, got ${back.url}`);
  const tokens = await client.authorizationCodeGrant(config, new URL(back.url), {
    pkceCodeVerifier: verifier,
    expectedState: state,
  });
  return { tokens, consentHtml, browser };
}

async function api(h: IdentityServer, token: string, path: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set('authorization', `Bearer ${token}`);
  return fetch(`${h.origin}${path}`, { ...init, headers });
}

test('discovery: code flow with S256 only, no implicit or password grant', async (t) => {
  const h = await startIdentityServer(t);
  const meta = (await (await fetch(`${h.issuer}/.well-known/openid-configuration`)).json()) as Record<string, string[]>;
  assert.equal(String(meta['issuer']), h.issuer);
  assert.deepEqual(meta['response_types_supported'], ['code']);
  assert.deepEqual(meta['code_challenge_methods_supported'], ['S256']);
  assert.deepEqual([...meta['grant_types_supported']!].sort(), [
    'authorization_code',
    'client_credentials',
    'refresh_token',
  ]);
  assert.ok(
    !meta['grant_types_supported']!.includes('password') && !meta['grant_types_supported']!.includes('implicit'),
  );
  const jwks = (await (await fetch(String(meta['jwks_uri']))).json()) as { keys: Array<Record<string, unknown>> };
  assert.equal(jwks.keys.length, 1);
  assert.equal(jwks.keys[0]!['d'], undefined, 'public keys only');
});

test('authorization code + PKCE: a demo user signs in on the form and the access token works on /v1', async (t) => {
  const h = await startIdentityServer(t);
  const config = await spaConfig(h);
  const { tokens, consentHtml } = await signIn(h, config, 'ada', 'openid accounts:read orders:read');
  // Each requested scope by name and in words, from the one table of descriptions.
  for (const scope of ['openid', 'accounts:read', 'orders:read'] as const) {
    assert.ok(
      consentHtml.includes(`<tr><td><code>${scope}</code></td><td>${SCOPE_DESCRIPTIONS[scope]}</td></tr>`),
      `${scope} described on the consent page`,
    );
  }
  assert.match(SCOPE_DESCRIPTIONS['accounts:read'], /balances/);

  const access = tokens.access_token;
  assert.equal(decodeProtectedHeader(access).typ, 'at+jwt');
  const claims = decodeJwt(access);
  assert.equal(claims.iss, h.issuer);
  assert.equal(claims.aud, h.config.auth.audience);
  assert.equal(claims.sub, 'ada');
  assert.equal(claims['role'], 'customer');
  assert.equal(claims['customer_id'], '1001');
  assert.equal(claims['client_id'], SPA);
  // Only what was asked for (least privilege); 10 minutes by default.
  assert.deepEqual(String(claims['scope']).split(' ').sort(), ['accounts:read', 'orders:read']);
  assert.equal(claims.exp! - claims.iat!, 600);
  assert.equal(tokens.expires_in, 600);
  assert.ok(tokens.refresh_token, 'a refresh token for the public client');
  assert.ok(tokens.id_token, 'an ID token for the openid scope');

  const balance = await api(h, access, '/v1/accounts/1001-01/balance');
  assert.equal(balance.status, 200);
  assert.equal(((await balance.json()) as { account: string }).account, '1001-01');
  // Alan's account is not Ada's: 404, not the data.
  assert.equal((await api(h, access, '/v1/accounts/1002-01/balance')).status, 404);
  // A scope not requested is not held: 403 insufficient_scope.
  const payment = await api(h, access, '/v1/payments', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': 'oauth-1' },
    body: JSON.stringify({ debtorAccount: '1001-01', creditorAccount: '1002-01', amount: 1, currency: 'EUR' }),
  });
  assert.equal(payment.status, 403);
  assert.match(String(payment.headers.get('www-authenticate')), /insufficient_scope/);
  // The ID token is for the client, not this API.
  const withIdToken = await api(h, tokens.id_token!, '/v1/accounts/1001-01/balance');
  assert.equal(withIdToken.status, 401);
  assert.match(String(withIdToken.headers.get('www-authenticate')), /invalid_token/);
});

test('the agent signs in too and gets the agent role', async (t) => {
  const h = await startIdentityServer(t);
  const { tokens } = await signIn(h, await spaConfig(h), 'clerk', 'customers:read');
  const claims = decodeJwt(tokens.access_token);
  assert.equal(claims['role'], 'agent');
  assert.equal(claims['customer_id'], undefined);
  const res = await api(h, tokens.access_token, '/v1/customers/1002');
  assert.equal(res.status, 200);
  assert.equal(((await res.json()) as { customerId: string }).customerId, '1002');
});

test('a wrong password is refused on the form and logged without the password', async (t) => {
  const h = await startIdentityServer(t);
  const config = await spaConfig(h);
  const verifier = client.randomPKCECodeVerifier();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT,
    scope: 'orders:read',
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  });
  const browser = new Browser();
  const login = await browser.follow(url.href);
  const action = new URL(formAction(await login.res.text(), 'login'), h.origin).href;
  const wrong = 'not-the-password-' + Date.now();
  const res = await browser.fetch(action, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ username: 'ada', password: wrong }).toString(),
  });
  assert.equal(res.status, 401);
  const page = await res.text();
  // The user name is kept; both fields are marked invalid and described by the error beside them; the
  // password (to type again) has the focus; the page's one stylesheet comes from the service (CSP).
  assert.match(
    page,
    /<input id="username" name="username"[^>]* value="ada"[^>]* aria-invalid="true" aria-describedby="login-error">/,
  );
  assert.match(
    page,
    /<input id="password" name="password" type="password"[^>]* autofocus aria-invalid="true" aria-describedby="login-error">\n<p id="login-error" class="error" role="alert">Wrong user name or password\.<\/p>/,
  );
  assert.match(page, /<label for="username">User name<\/label>/);
  assert.match(page, /<link rel="stylesheet" href="\/assets\/pages\.css">/);
  assert.match(String(res.headers.get('content-security-policy')), /style-src 'self'(;|$)/);
  assert.equal(res.headers.get('location'), null);
  const failure = h.logs.find((l) => l['msg'] === 'authentication failed');
  assert.ok(failure, 'the failure is logged');
  assert.equal(failure['reason'], 'wrong password');
  assert.equal(failure['principal'], 'ada');
  assert.ok(failure['requestId'], 'with the request id');
  const everything = JSON.stringify(h.logs);
  assert.ok(
    !everything.includes(wrong) && !everything.includes(h.credentials.passwords['ada']!),
    'no password in any log line',
  );
  // Without the interaction cookie the form leads nowhere.
  const stranger = await fetch(action, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ username: 'ada', password: h.credentials.passwords['ada']! }).toString(),
    redirect: 'manual',
  });
  assert.equal(stranger.status, 400);
});

test('refresh: a new access token and a rotated refresh token; the used one is refused', async (t) => {
  const h = await startIdentityServer(t);
  const config = await spaConfig(h);
  const { tokens } = await signIn(h, config, 'alan', 'orders:read');
  const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!);
  assert.notEqual(refreshed.access_token, tokens.access_token);
  assert.ok(refreshed.refresh_token);
  assert.notEqual(refreshed.refresh_token, tokens.refresh_token, 'rotated');
  assert.equal(decodeJwt(refreshed.access_token)['customer_id'], '1002');
  assert.equal((await api(h, refreshed.access_token, '/v1/orders')).status, 200);

  await assert.rejects(client.refreshTokenGrant(config, tokens.refresh_token!), (error: unknown) => {
    assert.ok(error instanceof client.ResponseBodyError);
    assert.equal(error.error, 'invalid_grant');
    return true;
  });
  // Reuse of a rotated token revokes the grant: the newer refresh token is dead too.
  await assert.rejects(client.refreshTokenGrant(config, refreshed.refresh_token!), client.ResponseBodyError);
});

test('client credentials with a client secret: partner role, partner scopes only', async (t) => {
  const h = await startIdentityServer(t);
  const config = await client.discovery(
    new URL(h.issuer),
    'acme-shop',
    undefined,
    client.ClientSecretBasic(h.credentials.clientSecrets['acme-shop']!),
    insecure,
  );
  const tokens = await client.clientCredentialsGrant(config, { scope: 'orders:read orders:write' });
  const claims = decodeJwt(tokens.access_token);
  assert.equal(decodeProtectedHeader(tokens.access_token).typ, 'at+jwt');
  assert.equal(claims.sub, 'acme-shop');
  assert.equal(claims['role'], 'partner');
  assert.equal(claims.aud, h.config.auth.audience);
  assert.deepEqual(String(claims['scope']).split(' ').sort(), ['orders:read', 'orders:write']);
  assert.equal(tokens.refresh_token, undefined);

  const order = await api(h, tokens.access_token, '/v1/orders', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ customerId: '1001', productId: 'P-100', quantity: 1 }),
  });
  assert.equal(order.status, 201);
  assert.equal(((await order.json()) as { status: string }).status, 'CONFIRMED');
  assert.equal((await api(h, tokens.access_token, '/v1/accounts/1001-01/balance')).status, 403);

  // The only resource is this API: a token for another one is refused (RFC 8707 invalid_target).
  await assert.rejects(
    client.clientCredentialsGrant(config, { scope: 'orders:read', resource: 'https://other-api.example' }),
    (error: unknown) => {
      assert.ok(error instanceof client.ResponseBodyError);
      assert.equal(error.error, 'invalid_target');
      return true;
    },
  );
  // A partner cannot obtain a scope its client does not hold.
  await assert.rejects(client.clientCredentialsGrant(config, { scope: 'payments:write' }), (error: unknown) => {
    assert.ok(error instanceof client.ResponseBodyError);
    assert.equal(error.error, 'invalid_scope');
    return true;
  });
  const wrongSecret = await client.discovery(
    new URL(h.issuer),
    'acme-shop',
    undefined,
    client.ClientSecretBasic('wrong'),
    insecure,
  );
  await assert.rejects(client.clientCredentialsGrant(wrongSecret, { scope: 'orders:read' }), (error: unknown) => {
    // 401 with a Basic challenge: openid-client reports the challenge.
    assert.ok(error instanceof client.WWWAuthenticateChallengeError, String(error));
    assert.equal(error.status, 401);
    assert.equal(error.cause[0]?.parameters.error, 'invalid_client');
    return true;
  });
  assert.ok(
    !JSON.stringify(h.logs).includes(h.credentials.clientSecrets['acme-shop']!),
    'no client secret in the logs',
  );
});

test('client credentials with private_key_jwt: keys made at run time, a foreign key refused', async (t) => {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  const jwk = { ...(await exportJWK(publicKey)), kid: 'partner-key-1', alg: 'ES256', use: 'sig' };
  let jwksFile = '';
  const h = await startIdentityServer(t, {}, (dataDir) => {
    jwksFile = join(dataDir, 'partner-jwks.json');
    writeFileSync(jwksFile, JSON.stringify({ keys: [jwk] }));
    return { AUTH_PARTNER_JWKS_FILE: jwksFile };
  });
  const config = await client.discovery(
    new URL(h.issuer),
    'acme-shop-jwt',
    undefined,
    client.PrivateKeyJwt({ key: privateKey, kid: 'partner-key-1' }),
    insecure,
  );
  const tokens = await client.clientCredentialsGrant(config, { scope: 'orders:read' });
  assert.equal(decodeJwt(tokens.access_token)['role'], 'partner');
  assert.equal((await api(h, tokens.access_token, '/v1/orders')).status, 200);

  const stranger = await generateKeyPair('ES256');
  const forged = await client.discovery(
    new URL(h.issuer),
    'acme-shop-jwt',
    undefined,
    client.PrivateKeyJwt({ key: stranger.privateKey, kid: 'partner-key-1' }),
    insecure,
  );
  await assert.rejects(client.clientCredentialsGrant(forged, { scope: 'orders:read' }), (error: unknown) => {
    assert.ok(error instanceof client.ResponseBodyError);
    assert.equal(error.error, 'invalid_client');
    return true;
  });
});

test('refused: implicit grant, password grant, PKCE missing or plain', async (t) => {
  const h = await startIdentityServer(t);
  const config = await spaConfig(h);
  const browser = new Browser();

  for (const responseType of ['token', 'id_token token']) {
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT,
      scope: 'openid orders:read',
      response_type: responseType,
      nonce: 'n',
      state: 's',
      code_challenge: await client.calculatePKCECodeChallenge(client.randomPKCECodeVerifier()),
      code_challenge_method: 'S256',
    });
    const { url: landed } = await browser.follow(url.href);
    assert.ok(landed.startsWith(REDIRECT), responseType);
    assert.match(landed, /error=unsupported_response_type/, responseType);
    assert.doesNotMatch(landed, /access_token=/);
  }

  await assert.rejects(
    client.genericGrantRequest(config, 'password', { username: 'ada', password: h.credentials.passwords['ada']! }),
    (error: unknown) => {
      assert.ok(error instanceof client.ResponseBodyError);
      assert.equal(error.error, 'unsupported_grant_type');
      return true;
    },
  );

  const withoutPkce = client.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT,
    scope: 'orders:read',
    state: 's',
  });
  assert.match((await browser.follow(withoutPkce.href)).url, /error=invalid_request/);
  const plain = client.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT,
    scope: 'orders:read',
    state: 's',
    code_challenge: 'a'.repeat(43),
    code_challenge_method: 'plain',
  });
  assert.match((await browser.follow(plain.href)).url, /error=invalid_request/);
  assert.ok(
    h.logs.some((l) => l['msg'] === 'authentication failed' && l['event'] === 'grant.error'),
    'refused grants are logged',
  );
});

test('the access-token lifetime is configurable within 5 to 15 minutes', async (t) => {
  const h = await startIdentityServer(t, { AUTH_ACCESS_TOKEN_TTL_SECONDS: '300' });
  const config = await client.discovery(
    new URL(h.issuer),
    'acme-shop',
    undefined,
    client.ClientSecretBasic(h.credentials.clientSecrets['acme-shop']!),
    insecure,
  );
  const tokens = await client.clientCredentialsGrant(config, { scope: 'orders:read' });
  const claims = decodeJwt(tokens.access_token);
  assert.equal(claims.exp! - claims.iat!, 300);
  for (const outside of ['299', '901']) {
    assert.throws(
      () => loadConfig({ AUTH_ACCESS_TOKEN_TTL_SECONDS: outside }),
      (error: unknown) => error instanceof ConfigError && error.variable === 'AUTH_ACCESS_TOKEN_TTL_SECONDS',
    );
  }
});

test('first start: demo passwords and client secret generated into an owner-only file, its path logged, never its content', async (t) => {
  const h = await startApp(t);
  const file = credentialsFile(h.dataDir);
  assert.equal(statSync(file).mode & 0o777, 0o600);
  const generated = JSON.parse(readFileSync(file, 'utf8')) as {
    passwords: Record<string, string>;
    clientSecrets: Record<string, string>;
  };
  assert.deepEqual(Object.keys(generated.passwords).sort(), ['ada', 'alan', 'clerk', 'grace']);
  assert.ok(Object.values(generated.passwords).every((p) => p.length >= 16));
  assert.ok(generated.clientSecrets['acme-shop']!.length >= 40);
  const notice = h.logs.find((l) => l['file'] === file);
  assert.ok(notice, 'the log says where to find them');
  const logText = JSON.stringify(h.logs);
  for (const secret of [...Object.values(generated.passwords), ...Object.values(generated.clientSecrets)])
    assert.ok(!logText.includes(secret));
});

test("`npm run token` tokens and the provider's are alike: same key, issuer, audience, typ and claims", async (t) => {
  const h = await startIdentityServer(t);
  const config = await client.discovery(
    new URL(h.issuer),
    'acme-shop',
    undefined,
    client.ClientSecretBasic(h.credentials.clientSecrets['acme-shop']!),
    insecure,
  );
  const fromProvider = (await client.clientCredentialsGrant(config, { scope: 'orders:read' })).access_token;
  const fromTooling = await h.token('acme-shop', { scopes: ['orders:read'] });
  assert.deepEqual(decodeProtectedHeader(fromTooling), decodeProtectedHeader(fromProvider));
  const [a, b] = [decodeJwt(fromProvider), decodeJwt(fromTooling)];
  for (const claim of ['iss', 'aud', 'sub', 'role', 'scope', 'client_id']) assert.deepEqual(b[claim], a[claim], claim);
  for (const token of [fromProvider, fromTooling]) assert.equal((await api(h, token, '/v1/orders')).status, 200);
});

test('sessions and refresh tokens are stored under DATA_DIR: a refresh token still works after a restart', async (t) => {
  const h = await startIdentityServer(t);
  const config = await spaConfig(h);
  const { tokens } = await signIn(h, config, 'grace', 'orders:read');
  await h.app.close();
  const restarted = await buildApp(h.config, {
    logger: createLogger(h.config, new Writable({ write: (_c, _e, done) => done() })),
  });
  t.after(() => restarted.close());
  await restarted.listen({ port: h.config.port, host: '127.0.0.1' });
  // Kept-alive sockets to the first server are dead now: let the fetch pool find that out first.
  for (let i = 0; i < 5; i++)
    if (
      await fetch(`${h.origin}/health/live`).then(
        () => true,
        () => false,
      )
    )
      break;
  const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!);
  assert.equal(decodeJwt(refreshed.access_token)['customer_id'], '1003');
  assert.equal((await api(h, refreshed.access_token, '/v1/orders')).status, 200);
});

test('CORS on the provider follows the allowlist: the SPA origin may call the token endpoint, no other origin is echoed', async (t) => {
  const spaOrigin = 'http://localhost:3000';
  const h = await startIdentityServer(t, { CORS_ORIGINS: spaOrigin });
  const config = await spaConfig(h);
  const { tokens } = await signIn(h, config, 'ada', 'orders:read');
  const refresh = await fetch(`${h.issuer}/token`, {
    method: 'POST',
    headers: { origin: spaOrigin, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'refresh_token',
      client_id: SPA,
      refresh_token: tokens.refresh_token!,
    }).toString(),
  });
  assert.equal(refresh.status, 200);
  assert.equal(refresh.headers.get('access-control-allow-origin'), spaOrigin);
  for (const path of ['/.well-known/openid-configuration', '/.well-known/jwks.json']) {
    const res = await fetch(`${h.issuer}${path}`, { headers: { origin: 'https://evil.example' } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('access-control-allow-origin'), null, path);
  }
});
