/**
 * Answers the router and the HTTP server give before any route runs (issue 9, point 2): an over-long path
 * segment (414), a method the path does not have (405 with Allow), an unknown path (404, also under /oauth),
 * a body too large (413), a media type not accepted (415), headers too large (431, from the listening
 * server), an unreadable URL (400) and a request arriving while the instance shuts down (503). Each is problem+json
 * with a closed code, instance and request id,
 * and never a framework's own code.
 */
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { assertProblem } from '../helpers/assert-shape.ts';
import { needsEmbeddedProvider, startApp } from '../helpers/app.ts';

type Answer = { statusCode: number; headers: Record<string, unknown>; body: string; json(): unknown };

/**
 * The problem checks every answer here shares: problem+json, the code's type, the path as instance, no framework code.
 */
function assertRouterProblem(res: Answer, status: number, code: string, instance: string): Record<string, unknown> {
  const problem = assertProblem(res, status, code);
  assert.equal(problem['type'], `/problems/${code.toLowerCase().replaceAll('_', '-')}`);
  assert.equal(problem['instance'], instance);
  assert.match(String(problem['requestId']), /^[A-Za-z0-9._-]{1,128}$/);
  assert.doesNotMatch(res.body, /FST_|"error":|"message":/);
  return problem;
}

test('a path segment longer than the router takes → 414 URI_TOO_LONG problem+json', async (t) => {
  const h = await startApp(t);
  const url = `/v1/orders/${'a'.repeat(300)}`;
  const res = await h.request({ method: 'GET', url, as: 'clerk', headers: { 'x-request-id': 'long-1' } });
  const problem = assertRouterProblem(res, 414, 'URI_TOO_LONG', url);
  assert.equal(problem['requestId'], 'long-1');
  assert.equal(problem['detail'], 'a path segment is longer than 100 characters');
});

test('an unreadable URL → 400 MALFORMED_REQUEST problem+json', async (t) => {
  const h = await startApp(t);
  const url = '/v1/orders/%E0%A4%A';
  const problem = assertRouterProblem(
    await h.request({ method: 'GET', url, as: 'clerk' }),
    400,
    'MALFORMED_REQUEST',
    url,
  );
  assert.equal(problem['detail'], 'the URL could not be read (bad percent-encoding)');
});

test('a method the path does not have → 405 METHOD_NOT_ALLOWED with Allow; unknown paths stay 404', async (t) => {
  const h = await startApp(t);
  const allowed: Array<[method: 'PATCH' | 'POST' | 'DELETE' | 'PUT', url: string, allow: string]> = [
    ['PATCH', '/v1/orders/ORD-1', 'GET, HEAD, PUT, DELETE'],
    ['DELETE', '/v1/orders', 'GET, HEAD, POST'],
    ['POST', '/v1/customers/1001', 'GET, HEAD, PATCH'],
    ['PUT', '/v1/accounts/1001-01/balance', 'GET, HEAD'],
    ['POST', '/health/live', 'GET, HEAD'],
  ];
  for (const [method, url, allow] of allowed) {
    const res = await h.request({ method, url, as: 'clerk', body: method === 'DELETE' ? undefined : {} });
    const problem = assertRouterProblem(res, 405, 'METHOD_NOT_ALLOWED', url);
    assert.equal(res.headers['allow'], allow, `${method} ${url}`);
    assert.equal(problem['detail'], `${method} is not allowed here; allowed: ${allow}`);
    assert.equal(problem['requestId'], res.headers['x-request-id']);
  }
  // OPTIONS outside a CORS preflight is not answered either: the catch-all OPTIONS route answers preflights only.
  const options = await h.app.inject({ method: 'OPTIONS', url: '/v1/orders/ORD-1' });
  assertRouterProblem(options, 405, 'METHOD_NOT_ALLOWED', '/v1/orders/ORD-1');
  assert.equal(options.headers['allow'], 'GET, HEAD, PUT, DELETE');

  for (const [method, url] of [
    ['GET', '/v1/nothing'],
    ['PATCH', '/v1/nothing/1'],
    ['GET', '/nothing'],
    ['DELETE', '/v1'],
  ] as const) {
    const res = await h.request({ method, url, as: 'clerk' });
    const problem = assertRouterProblem(res, 404, 'NOT_FOUND', url);
    assert.equal(res.headers['allow'], undefined);
    assert.equal(problem['detail'], `no resource at ${url}`);
  }
});

test('under /oauth: an unknown path → 404 problem+json; the token endpoint keeps its RFC 6749 error body', async (t) => {
  if (needsEmbeddedProvider) return t.skip(needsEmbeddedProvider);
  const h = await startApp(t);
  for (const url of ['/oauth/nothing', '/oauth/token']) {
    const res = await h.app.inject({ method: 'GET', url, headers: { 'x-request-id': 'oauth-404' } });
    const problem = assertRouterProblem(res, 404, 'NOT_FOUND', url);
    assert.equal(problem['requestId'], 'oauth-404');
  }
  // The query string is no part of the instance.
  assertRouterProblem(
    await h.app.inject({ method: 'GET', url: '/oauth/nothing?x=1' }),
    404,
    'NOT_FOUND',
    '/oauth/nothing',
  );
  // RFC 6749 section 5.2: a token endpoint error is {"error": …} as application/json, which OAuth clients parse.
  const token = await h.app.inject({
    method: 'POST',
    url: '/oauth/token',
    payload: 'grant_type=client_credentials',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  assert.equal(token.statusCode, 400);
  assert.match(String(token.headers['content-type']), /^application\/json/);
  assert.equal(token.json().error, 'invalid_request');
});

test('a body over the limit → 413 naming the limit; a media type not accepted → 415', async (t) => {
  const h = await startApp(t, { BODY_LIMIT_BYTES: '1024' });
  const big = await h.request({
    method: 'POST',
    url: '/v1/orders',
    as: 'ada',
    body: { customerId: '1001', productId: 'P-100', quantity: 1, note: 'x'.repeat(2000) },
  });
  const problem = assertRouterProblem(big, 413, 'PAYLOAD_TOO_LARGE', '/v1/orders');
  assert.equal(problem['detail'], 'the body is larger than 1024 bytes');
  assert.equal(problem['requestId'], big.headers['x-request-id']);

  const xml = await h.request({
    method: 'POST',
    url: '/v1/orders?x=1',
    as: 'ada',
    headers: { 'content-type': 'application/xml' },
    body: '<order/>',
  });
  assertRouterProblem(xml, 415, 'UNSUPPORTED_MEDIA_TYPE', '/v1/orders');
});

test('headers over MAX_HEADER_BYTES → 431 problem+json from the listening server, with instance, request id and the limit', async (t) => {
  const h = await startApp(t, { MAX_HEADER_BYTES: '4096', HOST: '127.0.0.1' });
  await h.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = h.app.server.address() as AddressInfo;
  const send = (path: string, headers: Record<string, string>) =>
    new Promise<Answer>((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port, path, headers }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          body += c;
        });
        res.on('end', () =>
          resolve({ statusCode: res.statusCode ?? 0, headers: res.headers, body, json: () => JSON.parse(body) }),
        );
      });
      req.on('error', reject);
      req.end();
    });
  const given = await send('/v1/orders?limit=5', { 'x-request-id': 'big-headers-1', 'x-big': 'a'.repeat(6000) });
  const problem = assertRouterProblem(given, 431, 'HEADERS_TOO_LARGE', '/v1/orders');
  assert.equal(problem['requestId'], 'big-headers-1');
  assert.equal(problem['detail'], 'the request headers are larger than 4096 bytes');
  // Without an X-Request-ID (or past the point where the headers were cut), a new one.
  const generated = await send('/health/live', { 'x-big': 'a'.repeat(6000) });
  const second = assertRouterProblem(generated, 431, 'HEADERS_TOO_LARGE', '/health/live');
  assert.notEqual(second['requestId'], 'big-headers-1');
});

test('a request arriving while the instance shuts down → 503 SERVICE_UNAVAILABLE problem+json with Retry-After', async (t) => {
  const h = await startApp(t, { HOST: '127.0.0.1' });
  await h.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = h.app.server.address() as AddressInfo;
  // A request begun before the close (so its connection is not idle) and finished after it.
  const socket = connect(port, '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  let raw = '';
  socket.on('data', (chunk: Buffer) => {
    raw += chunk.toString('utf8');
  });
  socket.write('GET /v1/orders?limit=1 HTTP/1.1\r\nHost: localhost\r\nX-Request-ID: drain-1\r\n');
  await sleep(50);
  const closed = h.app.close();
  await sleep(50);
  socket.write('\r\n');
  await new Promise((resolve) => socket.once('close', resolve));
  await closed;
  const [head = '', body = ''] = raw.split('\r\n\r\n');
  const headers = Object.fromEntries(
    head
      .split('\r\n')
      .slice(1)
      .map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
  );
  const res: Answer = { statusCode: Number(head.split(' ')[1]), headers, body, json: () => JSON.parse(body) };
  const problem = assertRouterProblem(res, 503, 'SERVICE_UNAVAILABLE', '/v1/orders');
  assert.equal(problem['requestId'], 'drain-1');
  assert.equal(headers['connection'], 'close');
  assert.match(String(headers['retry-after']), /^[0-9]+$/);
});
