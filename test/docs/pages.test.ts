/**
 * The human pages without a browser: a page per problem type URI for every code of the closed set (and a
 * 404 problem for any other), `/` leading to /docs, the docs page's policy (a fresh nonce per response,
 * its script from the service, nothing third-party) while the API's own policy stays as strict, and none of
 * these routes in the OpenAPI document.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ERROR_CODES, problemType, type ErrorCode } from '../../src/errors.ts';
import { ERROR_HELP } from '../../src/api/error-help.ts';
import { API_CSP } from '../../src/api/protection/security-headers.ts';
import { startApp } from '../helpers/app.ts';

test('every problem type URI of the closed set is a human page naming its code; any other is a 404 problem', async (t) => {
  const h = await startApp(t);
  const codes = Object.keys(ERROR_CODES) as ErrorCode[];
  assert.ok(codes.length > 20);
  for (const code of codes) {
    const res = await h.app.inject({ url: problemType(code) });
    assert.equal(res.statusCode, 200, code);
    assert.match(String(res.headers['content-type']), /^text\/html/, code);
    assert.ok(res.body.includes(`<code>${code}</code>`), `${code} named on its page`);
    assert.ok(res.body.includes(`<h1>${ERROR_CODES[code].title}</h1>`), `${code}: its title`);
    assert.ok(res.body.includes('<h2>What it means</h2>') && res.body.includes('<h2>What to do</h2>'), code);
    assert.ok(ERROR_HELP[code].meaning.length > 20 && ERROR_HELP[code].remedy.length > 20, `${code} has its texts`);
    assert.equal(
      res.headers['content-security-policy'],
      "default-src 'none'; style-src 'self'; frame-ancestors 'none'; base-uri 'none'",
    );
  }
  // The type URI an error answer carries leads to its page.
  const error = await h.request({ method: 'GET', url: '/v1/accounts/1001-01/balance' });
  assert.equal(error.statusCode, 401);
  const type = (JSON.parse(error.body) as { type: string }).type;
  assert.equal((await h.app.inject({ url: type })).statusCode, 200);

  for (const url of ['/problems/no-such-code', '/problems/NOT_FOUND', '/problems/']) {
    const res = await h.app.inject({ url });
    assert.equal(res.statusCode, 404, url);
    assert.match(String(res.headers['content-type']), /^application\/problem\+json/, url);
    assert.equal((JSON.parse(res.body) as { code: string }).code, 'NOT_FOUND', url);
  }
  const css = await h.app.inject({ url: '/assets/pages.css' });
  assert.equal(css.statusCode, 200);
  assert.match(String(css.headers['content-type']), /^text\/css/);
  assert.match(css.body, /:focus-visible/);
});

test('/ leads to /docs; /docs keeps the query of the sign-in redirect on its way to the page', async (t) => {
  const h = await startApp(t);
  const root = await h.app.inject({ url: '/' });
  assert.equal(root.statusCode, 302);
  assert.equal(root.headers['location'], '/docs');
  const back = await h.app.inject({ url: '/docs?code=abc&state=xyz' });
  assert.equal(back.statusCode, 301);
  assert.equal(back.headers['location'], '/docs/?code=abc&state=xyz');
  assert.equal((await h.app.inject({ url: '/docs' })).headers['location'], '/docs/');
});

test('the docs page: Scalar from the service with a fresh nonce per response, nothing third-party; the API policy unchanged', async (t) => {
  const h = await startApp(t);
  const nonces = new Set<string>();
  for (let i = 0; i < 2; i++) {
    const page = await h.app.inject({ url: '/docs/' });
    assert.equal(page.statusCode, 200);
    assert.match(String(page.headers['content-type']), /^text\/html/);
    const csp = String(page.headers['content-security-policy']);
    const nonce = /script-src 'self' 'nonce-([A-Za-z0-9+/=]+)'/.exec(csp)?.[1];
    assert.ok(nonce, `a nonce in ${csp}`);
    nonces.add(nonce);
    // Every script on the page carries it; the only script file is the package's, served here.
    const scripts = [...page.body.matchAll(/<script([^>]*)>/g)].map((m) => m[1]!);
    assert.ok(scripts.length >= 2);
    for (const attributes of scripts) assert.ok(attributes.includes(`nonce="${nonce}"`), attributes);
    assert.match(page.body, /<script src="js\/scalar\.js"/);
    assert.doesNotMatch(page.body, /https?:\/\/(?!localhost:8080)/, "no absolute URL but the service's own");
    assert.match(csp, /^default-src 'none'; /);
    assert.match(csp, /connect-src 'self' http:\/\/localhost:8080;/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.doesNotMatch(csp, /unsafe-eval|https?:\/\/(?!localhost:8080)|\*/);
    // Sign-in: the demo client with PKCE, back to /docs.
    assert.match(page.body, /"x-scalar-client-id": "corebridge-demo-spa"/);
    assert.match(page.body, /"x-usePkce": "SHA-256"/);
    assert.match(page.body, /"oauth2RedirectUri": "http:\/\/localhost:8080\/docs"/);
    assert.match(page.body, /"url": "\/docs\/document.json"/);
  }
  assert.equal(nonces.size, 2, 'a new nonce per response');

  const script = await h.app.inject({ url: '/docs/js/scalar.js' });
  assert.equal(script.statusCode, 200);
  assert.match(String(script.headers['content-type']), /^application\/javascript/);
  assert.ok(script.body.includes('createApiReference'));

  const api = await h.app.inject({ url: '/health/live' });
  assert.equal(api.headers['content-security-policy'], API_CSP);
  const document = JSON.parse((await h.app.inject({ url: '/openapi.json' })).body) as {
    paths: Record<string, unknown>;
  };
  for (const path of Object.keys(document.paths)) assert.doesNotMatch(path, /^\/(docs|problems|assets)?($|\/)/, path);
});

test('the document the docs page reads: a fresh Idempotency-Key per load, the demo users; the contract unchanged', async (t) => {
  const h = await startApp(t);
  const keyOf = (body: string) =>
    (
      JSON.parse(body) as { paths: Record<string, Record<string, { parameters?: Array<Record<string, unknown>> }>> }
    ).paths['/v1/payments']!['post']!.parameters!.find((p) => p['name'] === 'idempotency-key')!['example'];
  const first = await h.app.inject({ url: '/docs/document.json' });
  const second = await h.app.inject({ url: '/docs/document.json' });
  assert.equal(first.statusCode, 200);
  assert.match(String(keyOf(first.body)), /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.notEqual(keyOf(first.body), keyOf(second.body));
  assert.match(first.body, /Sign in with a demo user/);
  assert.match(first.body, /\| `clerk` \| agent \|/);
  // The contract keeps its one documented example key; only the page's copy gets a fresh one.
  const contract = await h.app.inject({ url: '/openapi.json' });
  const again = await h.app.inject({ url: '/openapi.json' });
  assert.equal(keyOf(contract.body), keyOf(again.body));
  assert.notEqual(keyOf(contract.body), keyOf(first.body));
  assert.doesNotMatch(contract.body, /demo user/);
  // Access in words, and one group named Webhooks (the webhooks section) beside the subscriptions.
  assert.doesNotMatch(contract.body, /ownership|backend-owner|customer-in-request|caller-filtered/);
  const tags = new Set(
    Object.values((JSON.parse(contract.body) as { paths: Record<string, Record<string, { tags?: string[] }>> }).paths)
      .flatMap((ops) => Object.values(ops))
      .flatMap((op) => op.tags ?? []),
  );
  assert.ok(![...tags].some((tag) => tag.toLowerCase() === 'webhooks'), [...tags].join(', '));
});

test("the docs page opened by another loopback name of the server moves to the issuer's, where sign-in comes back", async (t) => {
  const h = await startApp(t, { PORT: '8080', AUTH_ISSUER: 'http://localhost:8080/oauth' });
  const res = await h.app.inject({ url: '/docs?x=1', headers: { host: '127.0.0.1:8080' } });
  assert.equal(res.statusCode, 302);
  assert.equal(res.headers['location'], 'http://localhost:8080/docs/?x=1');
  const page = await h.app.inject({ url: '/docs/', headers: { host: 'localhost:8080' } });
  assert.equal(page.statusCode, 200);
  // Another host (not a loopback name of this server): the page says where sign-in works.
  const elsewhere = await h.app.inject({ url: '/docs/document.json', headers: { host: 'example.test:8080' } });
  assert.match(elsewhere.body, /Sign-in works only on http:\/\/localhost:8080\/docs/);
});
