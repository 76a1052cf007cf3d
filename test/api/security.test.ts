/**
 * The shared security test: every protected route of the route table and of every declared service (the
 * shipped example, the combined fixture, the example opened to partners), with no token, a bad token (the JWT
 * attacks: alg none, HS256 signed with the public key, unknown kid, bad signature, expired, not yet valid,
 * wrong issuer, wrong audience, tampered payload, an ID token or other token for another audience, not a
 * bearer), a token without the route's scope, another customer's object, and a customer a partner does not
 * serve — with storage checked unchanged afterwards and no token in any log line.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { exportSPKI, generateKeyPair, importJWK, SignJWT, UnsecuredJWT, type CryptoKey } from 'jose';
import { ROUTES, type OperationId, type RouteAccess } from '../../src/api/route-table.ts';
import { loadServices } from '../../src/api/services/definition.ts';
import { ROLE_SCOPES } from '../../src/auth/roles.ts';
import { openDevIssuer, readSigningKey } from '../../src/auth/dev-issuer.ts';
import { assertProblem } from '../helpers/assert-shape.ts';
import { startApp, type TestApp } from '../helpers/app.ts';
import { cobolSkip } from '../helpers/cobol.ts';
import { EXAMPLE_FILE, EXAMPLE_SERVICES, type ServiceJson } from '../helpers/services.ts';

const COMBINED_SERVICES = fileURLToPath(new URL('../fixtures/services-combined/', import.meta.url));

interface Fixture {
  orderId: string;
  paymentId: string;
  loanId: string;
  operationId: string;
}

/** A valid request for each operation, on Ada's objects. */
function sample(
  op: OperationId,
  f: Fixture,
  n: number,
): { url: string; body?: unknown; headers?: Record<string, string> } {
  switch (op) {
    case 'createOrder':
      return { url: '/v1/orders', body: { customerId: '1001', productId: 'P-100', quantity: 1 } };
    case 'getOrder':
    case 'cancelOrder':
      return { url: `/v1/orders/${f.orderId}` };
    case 'updateOrder':
      return {
        url: `/v1/orders/${f.orderId}`,
        body: { productId: 'P-100', quantity: 2 },
        headers: { 'if-match': '*' },
      };
    case 'listOrders':
      return { url: '/v1/orders' };
    case 'getCustomer':
      return { url: '/v1/customers/1001' };
    case 'createCustomer':
      return { url: '/v1/customers', body: { name: 'New Person', email: `new${n}@example.com` } };
    case 'updateCustomer':
      return { url: '/v1/customers/1001', body: { phone: '+44 20 7946 0000' } };
    case 'getBalance':
      return { url: '/v1/accounts/1001-01/balance' };
    case 'listCustomerAccounts':
      return { url: '/v1/customers/1001/accounts' };
    case 'createPayment':
      return {
        url: '/v1/payments',
        headers: { 'idempotency-key': `sec-${n}` },
        body: { debtorAccount: '1001-01', creditorAccount: '1002-01', amount: 1, currency: 'EUR' },
      };
    case 'getPayment':
      return { url: `/v1/payments/${f.paymentId}` };
    case 'listPayments':
      return { url: '/v1/payments?accountId=1001-01' };
    case 'createLoanApplication':
      return { url: '/v1/loan-applications', body: { customerId: '1001', amount: 1000, installments: 12 } };
    case 'getLoanApplication':
      return { url: `/v1/loan-applications/${f.loanId}` };
    case 'listLoanApplications':
      return { url: '/v1/loan-applications?customerId=1001' };
    case 'listEvents':
      return { url: '/v1/events' };
    case 'getEvent':
      return { url: '/v1/events/6f1c2a9e-4b7d-4e3a-9c5f-1d8b2e7a4c60' };
    case 'getOperation':
      return { url: `/v1/operations/${f.operationId}` };
    // webhook subscriptions are agents' and partners' (test/api/matrix.test.ts has their owners)
    case 'createWebhookSubscription':
      return {
        url: '/v1/webhook-subscriptions',
        body: { url: 'https://hooks.example.com/corebridge', eventTypes: ['OrderConfirmed'] },
      };
    case 'listWebhookSubscriptions':
      return { url: '/v1/webhook-subscriptions' };
    case 'getWebhookSubscription':
    case 'deleteWebhookSubscription':
      return { url: '/v1/webhook-subscriptions/WHS-0000000000000000' };
    case 'updateWebhookSubscription':
      return { url: '/v1/webhook-subscriptions/WHS-0000000000000000', body: { description: 'security' } };
    case 'listWebhookDeliveries':
      return { url: '/v1/webhook-subscriptions/WHS-0000000000000000/deliveries' };
    case 'retryWebhookDelivery':
      return { url: '/v1/webhook-subscriptions/WHS-0000000000000000/deliveries/WHD-0000000000000000/retry' };
    case 'getWebhookDelivery':
      return { url: '/v1/webhook-subscriptions/WHS-0000000000000000/deliveries/WHD-0000000000000000' };
    case 'listWebhookDeliveryAttempts':
      return { url: '/v1/webhook-subscriptions/WHS-0000000000000000/deliveries/WHD-0000000000000000/attempts' };
    case 'rotateWebhookSecret':
      return { url: '/v1/webhook-subscriptions/WHS-0000000000000000/rotate-secret', body: {} };
    case 'recoverWebhookSubscription':
      return {
        url: '/v1/webhook-subscriptions/WHS-0000000000000000/recover',
        body: { since: '2026-01-01T00:00:00Z' },
      };
    case 'sendWebhookTestEvent':
      return { url: '/v1/webhook-subscriptions/WHS-0000000000000000/test' };
  }
}

async function fixture(h: TestApp): Promise<Fixture> {
  const order = await h.request({
    method: 'POST',
    url: '/v1/orders',
    as: 'ada',
    body: { customerId: '1001', productId: 'P-100', quantity: 1 },
  });
  const payment = await h.request({
    method: 'POST',
    url: '/v1/payments',
    as: 'ada',
    headers: { 'idempotency-key': 'fixture' },
    // to grace: alan, the other customer of these tests, is neither payer nor payee (a payee reads what it received)
    body: { debtorAccount: '1001-01', creditorAccount: '1003-01', amount: 5, currency: 'EUR' },
  });
  const loan = await h.request({
    method: 'POST',
    url: '/v1/loan-applications',
    as: 'ada',
    body: { customerId: '1001', amount: 1000, installments: 12 },
  });
  const later = await h.request({
    method: 'POST',
    url: '/v1/loan-applications',
    as: 'ada',
    headers: { prefer: 'respond-async' },
    body: { customerId: '1001', amount: 1000, installments: 12 },
  });
  return {
    orderId: order.json().orderId,
    paymentId: payment.json().paymentId,
    loanId: loan.json().loanId,
    operationId: later.json().operationId,
  };
}

async function badTokens(h: TestApp): Promise<Record<string, string>> {
  const kid = String(h.app.devIssuer.jwks.keys[0]!.kid);
  const { privateKey } = await generateKeyPair('ES256');
  const now = Math.floor(Date.now() / 1000);
  const claims = { role: 'customer', customer_id: '1001', scope: ROLE_SCOPES.customer.join(' ') };
  const forged = await new SignJWT(claims)
    .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid })
    .setIssuer(h.config.auth.issuer)
    .setAudience(h.config.auth.audience)
    .setSubject('ada')
    .setIssuedAt(now)
    .setExpirationTime(now + 600)
    .sign(privateKey);
  const unsigned = new UnsecuredJWT(claims)
    .setIssuer(h.config.auth.issuer)
    .setAudience(h.config.auth.audience)
    .setSubject('ada')
    .setIssuedAt(now)
    .setExpirationTime(now + 600)
    .encode();
  const valid = await h.token('ada');
  const [head, body] = valid.split('.');
  const tamperedBody = Buffer.from(
    JSON.stringify({ ...JSON.parse(Buffer.from(body!, 'base64url').toString()), customer_id: '1002' }),
  ).toString('base64url');
  // Same signing key, another issuer name: only `iss` is wrong.
  const otherIssuer = await openDevIssuer({
    dataDir: h.dataDir,
    issuer: 'https://issuer.invalid',
    audience: h.config.auth.audience,
  });
  const claimsOf = { subject: 'ada', role: 'customer' as const, customerId: '1001', scopes: ROLE_SCOPES.customer };
  return {
    'wrong issuer': await otherIssuer.sign(claimsOf),
    'not yet valid': await h.app.devIssuer.sign(claimsOf, { notBefore: now + 600, issuedAt: now, ttlSeconds: 1200 }),
    'bad signature': forged,
    'alg none': unsigned,
    'tampered payload': `${head}.${tamperedBody}.${valid.split('.')[2]}`,
    expired: await h.token('ada', { issuedAt: now - 3600, ttlSeconds: 600 }),
    'wrong audience': await h.token('ada', { audience: 'another-api' }),
    garbage: 'not.a.jwt',
    ...(await keyConfusionTokens(h)),
  };
}

/** Tokens that abuse the real key material: algorithm confusion, kid games, tokens meant for someone else. */
async function keyConfusionTokens(h: TestApp): Promise<Record<string, string>> {
  const privateJwk = await readSigningKey(h.dataDir);
  const { d: _d, ...publicJwk } = privateJwk;
  const realKey = (await importJWK(privateJwk, 'ES256')) as CryptoKey;
  const publicPem = await exportSPKI((await importJWK(publicJwk, 'ES256', { extractable: true })) as CryptoKey);
  const now = Math.floor(Date.now() / 1000);
  const claims = { role: 'customer', customer_id: '1001', scope: ROLE_SCOPES.customer.join(' ') };
  const build = (header: Record<string, unknown>, audience = h.config.auth.audience) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: 'ES256', ...header })
      .setIssuer(h.config.auth.issuer)
      .setAudience(audience)
      .setSubject('ada')
      .setIssuedAt(now)
      .setExpirationTime(now + 600);
  const stranger = await generateKeyPair('ES256');
  return {
    // The classic confusion: the public key (PEM) used as an HMAC secret, with the real kid.
    'HS256 signed with the public key': await build({ alg: 'HS256', typ: 'at+jwt', kid: publicJwk.kid }).sign(
      new TextEncoder().encode(publicPem),
    ),
    'unknown kid': await build({ typ: 'at+jwt', kid: 'no-such-key' }).sign(stranger.privateKey),
    'no kid, foreign key': await build({ typ: 'at+jwt' }).sign(stranger.privateKey),
    // Genuinely signed by our key, but not an access token for this API.
    'ID token for the demo client': await build({ typ: 'JWT', kid: publicJwk.kid }, 'corebridge-demo-spa').sign(
      realKey,
    ),
    'access token of another audience': await build({ typ: 'at+jwt', kid: publicJwk.kid }, 'urn:another:api').sign(
      realKey,
    ),
    'typ JWT instead of at+jwt': await build({ typ: 'JWT', kid: publicJwk.kid }).sign(realKey),
  };
}

/** What a bad token must never change: balances, orders, the customer record. */
async function storageSnapshot(h: TestApp): Promise<string> {
  const read = async (url: string) => (await h.request({ method: 'GET', url, as: 'clerk' })).json();
  const balance = async (account: string) => {
    const { balance: booked, availableBalance } = await read(`/v1/accounts/${account}/balance`);
    return { account, booked, availableBalance }; // asOf is the time of reading
  };
  return JSON.stringify([
    await balance('1001-01'),
    await balance('1002-01'),
    await read('/v1/orders?customerId=1001'),
    await read('/v1/customers/1001'),
  ]);
}

/**
 * Every declared service joins the table's routes where its program can be built (cobc): the shipped example,
 * the combined fixture, and the example opened to partners. A service file's scope, roles and ownership must
 * hold as the built-in routes' do. Under CI they always join.
 */
function declaredServicesDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'corebridge-security-services-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  cpSync(EXAMPLE_SERVICES, dir, { recursive: true });
  cpSync(COMBINED_SERVICES, dir, { recursive: true });
  const partnerOpen = JSON.parse(readFileSync(join(dir, EXAMPLE_FILE), 'utf8')) as ServiceJson;
  partnerOpen['path'] = '/v1/customers/{customerId}/partner-payment-method-checks';
  partnerOpen['roles'] = ['customer', 'agent', 'partner'];
  writeFileSync(join(dir, 'partner-payment-method-check.json'), JSON.stringify(partnerOpen));
  return dir;
}
const servicesDir = cobolSkip === false ? declaredServicesDir() : null;
const services = servicesDir ? loadServices(servicesDir) : [];
const servicesEnv: Record<string, string> = servicesDir ? { SERVICES_DIR: servicesDir } : {};
const CARD = { card: { number: '4111111111111111', expiry: '1230' } };
/** A valid request for each declared service, on Ada's customer number. */
const SERVICE_SAMPLES: Record<string, { url: string; body: unknown }> = {
  paymentMethodCheck: { url: '/v1/customers/1001/payment-method-checks', body: CARD },
  partnerPaymentMethodCheck: { url: '/v1/customers/1001/partner-payment-method-checks', body: CARD },
  fxQuote: {
    url: '/v1/customers/1001/fx-quotes',
    body: {
      money: { amount: 10, currency: 'EUR' },
      toCurrency: 'USD',
      units: 1,
      rate: 1.1,
      party: { holder: 'Ada', reference: null },
    },
  },
};
function serviceSample(operationId: string): { url: string; body: unknown } {
  const sample = SERVICE_SAMPLES[operationId];
  if (!sample) throw new Error(`no sample request for the declared service ${operationId}: add one`);
  return sample;
}

/** Every protected route with its access rule and a valid request on Ada's objects. */
function protectedRoutes(
  f: Fixture,
): Array<{ op: string; access: RouteAccess; sample(n: number): ReturnType<typeof sample> }> {
  return [
    ...(Object.entries(ROUTES) as Array<[OperationId, RouteAccess]>).map(([op, access]) => ({
      op,
      access,
      sample: (n: number) => sample(op, f, n),
    })),
    ...services.map((s) => ({ op: s.operationId, access: s.access, sample: () => serviceSample(s.operationId) })),
  ];
}

test('every protected route: 401 without or with a bad token, 403 without its scope', async (t) => {
  // The clerk reads the store after every route: more reads than one window's default quota.
  const h = await startApp(t, { ...servicesEnv, RATE_LIMIT_READ_MAX: '1000' });
  const f = await fixture(h);
  const bad = await badTokens(h);
  const before = await storageSnapshot(h);
  let n = 0;
  for (const { op, access, sample: make } of protectedRoutes(f)) {
    const s = make(n++);
    const base = { method: access.method, url: s.url, body: s.body, headers: s.headers ?? {} };

    const none = await h.request(base);
    assertProblem(none, 401, 'UNAUTHENTICATED');
    assert.equal(none.headers['www-authenticate'], 'Bearer realm="corebridge"', op);

    for (const [name, token] of Object.entries(bad)) {
      const res = await h.request({ ...base, token });
      assertProblem(res, 401, 'UNAUTHENTICATED');
      assert.match(String(res.headers['www-authenticate']), /error="invalid_token"/, `${op} ${name}`);
    }
    const basic = await h.request({ ...base, headers: { ...base.headers, authorization: 'Basic YWRhOnNlY3JldA==' } });
    assertProblem(basic, 401, 'UNAUTHENTICATED');

    const allButScope = ROLE_SCOPES.agent.filter((scope) => scope !== access.scope);
    const noScope = await h.request({ ...base, token: await h.token('clerk', { scopes: allButScope }) });
    const problem = assertProblem(noScope, 403, 'INSUFFICIENT_SCOPE');
    assert.match(
      String(noScope.headers['www-authenticate']),
      new RegExp(`error="insufficient_scope", scope="${access.scope}"`),
    );
    assert.match(String(problem['detail']), new RegExp(access.scope));
    assert.equal(await storageSnapshot(h), before, `${op}: nothing changed by the refused requests`);
  }
  const failures = h.logs.filter((l) => l['msg'] === 'authentication failed');
  assert.ok(
    failures.length >= Object.keys(ROUTES).length * Object.keys(bad).length,
    'every authentication failure is logged',
  );
  assert.ok(
    failures.every((l) => typeof l['reason'] === 'string' && typeof l['requestId'] === 'string'),
    'with its reason and request id',
  );
  const expired = failures.find((l) => l['reason'] === 'the access token expired');
  assert.equal(expired?.['principal'], 'ada', 'the principal where the signature verified');
  const logText = JSON.stringify(h.logs);
  for (const [name, token] of Object.entries(bad)) {
    const signature = token.split('.')[2];
    if (signature) assert.ok(!logText.includes(signature), `no ${name} token in the logs`);
  }
});

test("another customer's order, account, customer, payment or loan answers 404, never the data", async (t) => {
  const h = await startApp(t, servicesEnv);
  const f = await fixture(h);
  let n = 100;
  for (const { op, access, sample: make } of protectedRoutes(f)) {
    if (access.ownership === 'none' || access.ownership === 'caller-filtered') continue;
    // routes customers may not use answer 403 to any customer; whose objects they reach is the matrix's
    if (!access.roles.includes('customer')) continue;
    const s = make(n++);
    const res = await h.request({
      method: access.method,
      url: s.url,
      body: s.body,
      headers: s.headers ?? {},
      as: 'alan',
    });
    assertProblem(res, 404, 'NOT_FOUND');
    assert.ok(!/Ada|Lovelace|"balance"|"amount"/.test(res.body), `${op} leaks nothing`);
  }
  // The same requests as the owner succeed (the 404s above are not artefacts).
  assert.equal((await h.request({ method: 'GET', url: `/v1/orders/${f.orderId}`, as: 'ada' })).statusCode, 200);
  assert.equal((await h.request({ method: 'GET', url: `/v1/payments/${f.paymentId}`, as: 'ada' })).statusCode, 200);
  assert.equal(
    (await h.request({ method: 'GET', url: `/v1/loan-applications/${f.loanId}`, as: 'ada' })).statusCode,
    200,
  );
  // Ada's balance is unchanged by Alan's attempted payment from her account.
  const balance = await h.request({ method: 'GET', url: '/v1/accounts/1001-01/balance', as: 'ada' });
  assert.equal(balance.json().balance, 2495);
});

test('a partner naming a customer it does not serve gets 404 wherever the request names the customer', async (t) => {
  const h = await startApp(t, servicesEnv);
  const f = await fixture(h);
  const routes = protectedRoutes(f).filter(
    ({ access }) => access.ownership === 'customer-in-request' && access.roles.includes('partner'),
  );
  const ops = routes.map((r) => r.op);
  assert.ok(ops.includes('createOrder') && ops.includes('getCustomer'), ops.join());
  if (cobolSkip === false) assert.ok(ops.includes('partnerPaymentMethodCheck'), ops.join());
  let n = 200;
  for (const { op, access, sample: make } of routes) {
    const s = make(n++);
    // acme-shop is linked to Ada (1001), not to Alan (1002): the same request about Alan is refused.
    const aboutAlan = JSON.parse(JSON.stringify(s).replaceAll('1001', '1002')) as typeof s;
    const request = { method: access.method, headers: s.headers ?? {}, as: 'acme-shop' } as const;
    const refused = await h.request({ ...request, url: aboutAlan.url, body: aboutAlan.body });
    assertProblem(refused, 404, 'NOT_FOUND');
    assert.ok(!/Alan|Turing/.test(refused.body), `${op} leaks nothing`);
    const linked = await h.request({ ...request, url: s.url, body: s.body });
    assert.ok(linked.statusCode >= 200 && linked.statusCode < 300, `${op} for a linked customer: ${linked.body}`);
  }
});

test('roles: partners never reach money; customers cannot register customers', async (t) => {
  const h = await startApp(t);
  // A partner token cannot even carry payment or account scopes; with them forged into a signed token, the role still
  // stops it.
  const partnerWithEverything = await h.token('acme-shop', { scopes: [...ROLE_SCOPES.agent] });
  for (const url of [
    '/v1/accounts/1001-01/balance',
    '/v1/payments/PAY-0000000000000000',
    '/v1/loan-applications/LN-0000000000000000',
    '/v1/customers/1001/accounts',
    '/v1/payments?accountId=1001-01',
    '/v1/loan-applications?customerId=1001',
  ]) {
    assertProblem(await h.request({ method: 'GET', url, token: partnerWithEverything }), 403, 'FORBIDDEN');
  }
  const byCustomer = await h.request({
    method: 'POST',
    url: '/v1/customers',
    as: 'ada',
    body: { name: 'X', email: 'x@example.com' },
  });
  assertProblem(byCustomer, 403, 'FORBIDDEN');
});

test('verified tokens are cached but still expire', async (t) => {
  const h = await startApp(t, { AUTH_CLOCK_TOLERANCE_SECONDS: '0' });
  const now = Math.floor(Date.now() / 1000);
  const shortLived = await h.token('ada', { issuedAt: now - 598, ttlSeconds: 600 });
  const first = await h.request({ method: 'GET', url: '/v1/customers/1001', token: shortLived });
  assert.equal(first.statusCode, 200);
  await new Promise((resolve) => setTimeout(resolve, 2100));
  // exp has passed: the cached entry must not keep the token alive.
  const later = await h.request({ method: 'GET', url: '/v1/customers/1001', token: shortLived });
  assertProblem(later, 401, 'UNAUTHENTICATED');
});
