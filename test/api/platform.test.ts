/** Health, discovery, OpenAPI, correlation ids and the one-line-per-request log. */
import assert from 'node:assert/strict';
import { ALL_EVENT_TYPES } from '../../src/backend/store/journal.ts';
import { test } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import Fastify from 'fastify';
import { installRouteTableCheck } from '../../src/api/plugins/auth.ts';
import { accessInWords, ROUTES } from '../../src/api/route-table.ts';
import { assertProblem } from '../helpers/assert-shape.ts';
import { needsEmbeddedProvider, startApp } from '../helpers/app.ts';
import { queryStore } from '../helpers/backend-store.ts';

test('a route without an entry in the route table stops the app from starting', async () => {
  const app = Fastify();
  installRouteTableCheck(app);
  assert.throws(() => app.get('/v1/forgotten', async () => 'open'), /no entry in the route table/);
  await app.close();
});

test('GET /health/live and /health/ready answer 200 without a token', async (t) => {
  const h = await startApp(t);
  for (const url of ['/health/live', '/health/ready']) {
    const res = await h.request({ method: 'GET', url });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { status: 'ok' });
  }
});

test('the development issuer publishes its discovery document and JWKS (public keys only)', async (t) => {
  if (needsEmbeddedProvider) return t.skip(needsEmbeddedProvider);
  const h = await startApp(t);
  const meta = (await h.request({ method: 'GET', url: '/.well-known/openid-configuration' })).json();
  assert.equal(meta.issuer, h.config.auth.issuer);
  assert.equal(meta.jwks_uri, `${h.config.auth.issuer}/.well-known/jwks.json`);
  assert.ok(meta.scopes_supported.includes('payments:write'));
  const jwks = (await h.request({ method: 'GET', url: '/.well-known/jwks.json' })).json();
  assert.equal(jwks.keys.length, 1);
  assert.equal(jwks.keys[0].alg, 'ES256');
  assert.equal(jwks.keys[0].d, undefined, 'no private key material');
});

test('GET /openapi.json is OpenAPI 3.1 with every route of the table, its scope and its schemas', async (t) => {
  if (needsEmbeddedProvider) return t.skip(needsEmbeddedProvider);
  const h = await startApp(t);
  const res = await h.request({ method: 'GET', url: '/openapi.json' });
  assert.equal(res.statusCode, 200);
  const doc = res.json();
  assert.equal(doc.openapi, '3.1.0');
  const validation = await new Validator().validate(doc);
  assert.equal(validation.valid, true, JSON.stringify(validation.errors)?.slice(0, 2000));
  assert.equal(doc.components.securitySchemes.bearerAuth.scheme, 'bearer');
  const oauth2 = doc.components.securitySchemes.oauth2;
  assert.equal(oauth2.type, 'oauth2');
  assert.match(oauth2.flows.authorizationCode.authorizationUrl, /\/oauth\/auth$/);
  assert.match(oauth2.flows.clientCredentials.tokenUrl, /\/oauth\/token$/);
  assert.deepEqual(
    Object.keys(oauth2.flows.clientCredentials.scopes).sort(),
    [...new Set(Object.values(ROUTES).map((r) => r.scope))].sort(),
  );
  assert.ok(doc.components.schemas.Problem);
  for (const [operationId, access] of Object.entries(ROUTES)) {
    const path = access.url.replace(/:([A-Za-z]+)/g, '{$1}');
    const op = doc.paths[path]?.[access.method.toLowerCase()];
    assert.ok(op, `${access.method} ${path} documented`);
    assert.equal(op.operationId, operationId);
    assert.deepEqual(op.security, [{ oauth2: [access.scope] }, { bearerAuth: [access.scope] }]);
    assert.equal(
      op.description,
      accessInWords(access),
      `${operationId} says in words who may call it and what they see`,
    );
    assert.ok(op.responses['429'] && op.responses['503'], `${operationId} documents limits`);
    assert.ok(
      op.responses['401'] && op.responses['403'] && op.responses['404'],
      `${operationId} documents auth errors`,
    );
    assert.ok(
      op.responses['200'] || op.responses['201'] || op.responses['202'] || op.responses['204'],
      `${operationId} documents its success`,
    );
  }
  // What a subscription receives, per event type: the signed headers and the CloudEvent with its resource.
  assert.deepEqual(Object.keys(doc.webhooks).sort(), [...ALL_EVENT_TYPES].sort());
  const loanApproved = doc.webhooks.LoanApproved.post;
  assert.deepEqual(
    loanApproved.parameters.map((p: { name: string }) => p.name),
    ['webhook-id', 'webhook-timestamp', 'webhook-signature'],
  );
  const envelope = loanApproved.requestBody.content['application/json'].schema;
  assert.deepEqual(envelope.properties.type, { const: 'LoanApproved' });
  assert.ok(envelope.properties.data.properties.approvedAmount, 'data is the loan decision');
  const create = doc.paths['/v1/orders'].post;
  const body = create.requestBody.content['application/json'].schema;
  assert.equal(body.additionalProperties, false);
  assert.deepEqual(body.properties.quantity, {
    type: 'integer',
    minimum: 1,
    maximum: 100,
    description: 'Units ordered, 1 to 100',
  });
  assert.ok(
    doc.paths['/v1/payments'].post.parameters.some(
      (p: { in: string; name: string; required: boolean }) =>
        p.in === 'header' && p.name === 'idempotency-key' && p.required,
    ),
  );
});

test('X-Request-ID: kept when well-formed, replaced when not, echoed, logged in one line with the back-end transaction, stored', async (t) => {
  const h = await startApp(t);
  const id = 'c0ffee00-1234-4bcd-8def-000000000001';
  const res = await h.request({
    method: 'POST',
    url: '/v1/orders',
    as: 'ada',
    headers: { 'x-request-id': id },
    body: { customerId: '1001', productId: 'P-100', quantity: 1 },
  });
  assert.equal(res.headers['x-request-id'], id);
  const lines = h.logs.filter((l) => l['requestId'] === id);
  const apiLines = lines.filter((l) => l['component'] === undefined);
  const backendLines = lines.filter((l) => l['component'] === 'backend');
  assert.equal(apiLines.length, 1, 'one API line per request');
  assert.equal(apiLines[0]!['status'], 201);
  assert.equal(apiLines[0]!['msg'], 'request completed');
  // The back-end's facts are in that line; its own line is debug, so at info there is none.
  const backend = apiLines[0]!['backend'] as Record<string, unknown>;
  assert.equal(backend['tran'], 'ORDCRT');
  assert.equal(backend['rc'], 0);
  assert.equal(typeof backend['ms'], 'number');
  assert.deepEqual(backendLines, []);
  assert.equal(lines.length, 1, 'exactly one line for the request at info');

  assert.equal(
    (await queryStore(h, 'SELECT correlation_id FROM orders WHERE order_id = ?', res.json().orderId))[0]?.[
      'correlation_id'
    ],
    id,
  );

  for (const bad of ['has space', 'x'.repeat(129), 'semi;colon']) {
    const r = await h.request({ method: 'GET', url: '/health/live', headers: { 'x-request-id': bad } });
    assert.match(String(r.headers['x-request-id']), /^[0-9a-f-]{36}$/);
  }
  const problem = assertProblem(
    await h.request({ method: 'GET', url: '/v1/nothing-here', headers: { 'x-request-id': 'req-42' } }),
    404,
    'NOT_FOUND',
  );
  assert.equal(problem['requestId'], 'req-42');
  // Every log line written during a request carries its id; tokens never appear in logs.
  const token = await h.token('ada');
  await h.request({ method: 'GET', url: '/v1/customers/1001', token, headers: { 'x-request-id': 'req-43' } });
  assert.ok(h.logs.every((l) => !JSON.stringify(l).includes(token)));
  assert.ok(h.logs.filter((l) => l['url'] !== undefined).every((l) => typeof l['requestId'] === 'string'));
});

test('a 5xx answer hides the details', async (t) => {
  const h = await startApp(t);
  // Break the back-end's store under the running app: the program fails, the client learns nothing.
  await queryStore(h, 'DROP TABLE audit_log');
  const res = await h.request({
    method: 'POST',
    url: '/v1/orders',
    as: 'ada',
    body: { customerId: '1001', productId: 'P-100', quantity: 1 },
  });
  const problem = assertProblem(res, 500, 'INTERNAL_ERROR');
  assert.equal(problem['detail'], undefined);
  assert.ok(!res.body.includes('audit_log') && !res.body.includes('SQL'));
  assert.ok(h.logs.some((l) => l['msg'] === 'transaction abended'));
});

test("the API's hooks run only on /v1 routes, the body check only where a body can come, the idempotency hooks only on the routes that take a key: health, OpenAPI, the identity provider and the docs pages pay nothing for them", async (t) => {
  if (needsEmbeddedProvider) return t.skip(needsEmbeddedProvider);
  const h = await startApp(t);
  const API_HOOKS = ['authenticateRequest', 'byPrincipal', 'checkBodyShape'];
  const KEY_HOOKS = ['requireIdempotencyKey', 'holdIdempotencyKey', 'storeIdempotentAnswer'];
  // printRoutes lists every route (as a tree of path segments) with the names of the hooks it runs.
  const lines = h.app.printRoutes({ includeHooks: true, commonPrefix: false }).split('\n');
  const hooksOf = (segment: string, method = 'GET') => {
    // Under the route `/` (a redirect to /docs), the tree lists the other top-level paths without their slash.
    // A method whose hooks differ from its path's other methods' has a line of its own, without the branch.
    const at = lines.findIndex(
      (line) => line.includes(` ${segment} (${method}`) || line.includes(`── ${segment.slice(1)} (${method}`),
    );
    assert.ok(at >= 0, `route ${method} ${segment} listed`);
    const hooks: string[] = [];
    for (let i = at + 1; i < lines.length && lines[i]!.includes('•'); i++) hooks.push(lines[i]!);
    return [...API_HOOKS, ...KEY_HOOKS].filter((name) => hooks.some((line) => line.includes(`"${name}()"`)));
  };
  for (const path of [
    '/health/live',
    '/health/ready',
    '/openapi.json',
    '/.well-known/jwks.json',
    '/oauth/interaction/:uid',
    '/',
    '/docs',
    '/problems/:slug',
  ]) {
    assert.deepEqual(hooksOf(path), [], path);
  }
  // A GET has no body to check.
  for (const path of ['/:orderId', '/v1/accounts/:accountId/balance']) {
    assert.deepEqual(hooksOf(path), ['authenticateRequest', 'byPrincipal'], path);
  }
  assert.deepEqual(hooksOf('/:orderId', 'DELETE'), API_HOOKS);
  // A key required (its own 400 when missing), and a key optional.
  assert.deepEqual(hooksOf('/v1/payments', 'POST'), [...API_HOOKS, ...KEY_HOOKS]);
  assert.deepEqual(hooksOf('/v1/loan-applications', 'POST'), [
    ...API_HOOKS,
    'holdIdempotencyKey',
    'storeIdempotentAnswer',
  ]);
});
