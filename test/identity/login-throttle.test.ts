/**
 * The sign-in form's per-account throttle over real HTTP: failures for one user name, from any address, refuse
 * that name for a while with the page a wrong password gets; other names are unaffected; with REDIS_URL two
 * instances share the count (the local Redis on 127.0.0.1:6379: without it this test fails).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { test, type TestContext } from 'node:test';
import { Redis } from 'ioredis';
import * as client from 'openid-client';
import { Agent, fetch, type Response } from 'undici';
import { startIdentityServer, type IdentityServer } from '../helpers/identity.ts';

const SPA = 'corebridge-demo-spa';
const REDIRECT = 'http://localhost:3000/callback';

/** A browser on one client address: cookies for the provider's interaction, its own interaction each time. */
class Browser {
  private readonly cookies = new Map<string, string>();
  private readonly agent: Agent;

  constructor(t: TestContext, localAddress: string) {
    this.agent = new Agent({ localAddress });
    t.after(() => this.agent.close());
  }

  async fetch(url: string, init: { method?: string; body?: string } = {}): Promise<Response> {
    const headers: Record<string, string> = {};
    if (this.cookies.size) headers['cookie'] = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    if (init.body !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded';
    const res = await fetch(url, { ...init, headers, redirect: 'manual', dispatcher: this.agent });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      this.cookies.set(pair!.slice(0, eq).trim(), pair!.slice(eq + 1).trim());
    }
    return res;
  }

  /** Starts an authorization request and answers its sign-in form; the response to the form's post. */
  async signIn(h: IdentityServer, username: string, password: string): Promise<{ status: number; page: string }> {
    const config = await client.discovery(new URL(h.issuer), SPA, undefined, client.None(), {
      execute: [client.allowInsecureRequests],
    });
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT,
      scope: 'orders:read',
      code_challenge: await client.calculatePKCECodeChallenge(client.randomPKCECodeVerifier()),
      code_challenge_method: 'S256',
    });
    let res = await this.fetch(url.href);
    while (res.status >= 300 && res.status < 400)
      res = await this.fetch(new URL(res.headers.get('location')!, url).href);
    const action = /action="([^"]*\/login)"/.exec(await res.text())?.[1];
    assert.ok(action, 'a sign-in form');
    const answer = await this.fetch(new URL(action, h.origin).href, {
      method: 'POST',
      body: new URLSearchParams({ username, password }).toString(),
    });
    return { status: answer.status, page: await answer.text() };
  }
}

/** A sign-in that went through: the provider moves on (a redirect to the consent step). */
function signedIn(answer: { status: number }): boolean {
  return answer.status === 303;
}

/** The refusal a wrong password gets, the user name aside. */
function refusal(answer: { status: number; page: string }, username: string): string {
  assert.equal(answer.status, 401);
  assert.match(answer.page, /Wrong user name or password\./);
  return answer.page.replace(/\/interaction\/[^/"]+\//g, '/interaction/UID/').replace(`value="${username}"`, '');
}

test('failed sign-ins lock one user name from any address, with the page a wrong password gets; other names are unaffected', async (t) => {
  const h = await startIdentityServer(t, { RATE_LIMIT_LOGIN_FAILURES: '3', RATE_LIMIT_LOGIN_LOCK_SECONDS: '2' });
  const first = new Browser(t, '127.0.0.1');
  const second = new Browser(t, '127.0.0.3');
  const ada = h.credentials.passwords['ada']!;

  // Two failures, then the right password: a success clears the count.
  for (let i = 0; i < 2; i++) refusal(await first.signIn(h, 'ada', `wrong-${i}`), 'ada');
  assert.ok(signedIn(await first.signIn(h, 'ada', ada)));

  const wrongPage = refusal(await first.signIn(h, 'ada', 'wrong-a'), 'ada');
  refusal(await second.signIn(h, 'ada', 'wrong-b'), 'ada');
  refusal(await first.signIn(h, 'ada', 'wrong-c'), 'ada');
  // Locked: the right password, from another address, gets the same page as a wrong one.
  const locked = await second.signIn(h, 'ada', ada);
  assert.equal(refusal(locked, 'ada'), wrongPage);
  const reasons = h.logs.filter((l) => l['msg'] === 'authentication failed').map((l) => l['reason']);
  assert.deepEqual(reasons.slice(-2), ['wrong password', 'too many failures']);

  // Another name is not affected.
  assert.ok(signedIn(await first.signIn(h, 'alan', h.credentials.passwords['alan']!)));

  // A name that is no account is locked alike: the answer tells nothing about which names exist.
  for (let i = 0; i < 3; i++) refusal(await first.signIn(h, 'nobody', `wrong-${i}`), 'nobody');
  assert.equal(refusal(await first.signIn(h, 'nobody', 'wrong-3'), 'nobody'), wrongPage);
  assert.equal(
    h.logs.filter((l) => l['msg'] === 'authentication failed').at(-1)?.['reason'],
    'too many failures',
    'the fourth attempt for an unknown name is refused as locked',
  );

  // Once the lock has passed, the right password works again.
  await sleep(2100);
  assert.ok(signedIn(await second.signIn(h, 'ada', ada)));
});

test('with REDIS_URL the failures on one instance lock the name on another', async (t) => {
  const prefix = `corebridge-test:${randomUUID()}:`;
  const redis = new Redis('redis://127.0.0.1:6379', { lazyConnect: true, maxRetriesPerRequest: 1 });
  // Fails (never skips) when Redis is not running.
  await redis.connect();
  t.after(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });
  const env = { REDIS_URL: 'redis://127.0.0.1:6379', RATE_LIMIT_REDIS_PREFIX: prefix, RATE_LIMIT_LOGIN_FAILURES: '2' };
  const a = await startIdentityServer(t, env);
  const b = await startIdentityServer(t, env);
  const browser = new Browser(t, '127.0.0.1');
  refusal(await browser.signIn(a, 'ada', 'wrong-1'), 'ada');
  refusal(await browser.signIn(b, 'ada', 'wrong-2'), 'ada');
  refusal(await browser.signIn(a, 'ada', a.credentials.passwords['ada']!), 'ada');
  refusal(await browser.signIn(b, 'ada', b.credentials.passwords['ada']!), 'ada');
  assert.ok((await redis.keys(`${prefix}login:*`)).length === 1, 'the count lives in Redis');
  assert.ok(signedIn(await browser.signIn(b, 'alan', b.credentials.passwords['alan']!)));
});
