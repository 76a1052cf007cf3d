/**
 * The SDK against the real app listening on a free port, through a recording proxy (./proxy.ts) that sees
 * every attempt and can lose an answer, answer by itself or never answer.
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { test, type TestContext } from 'node:test';
import {
  createCorebridgeClient,
  CorebridgeNetworkError,
  CorebridgeProblemError,
  CorebridgeTimeoutError,
  type CorebridgeClientOptions,
} from '@corebridge/sdk';
import { startApp, type TestApp } from '../helpers/app.ts';
import { freePort } from '../../support/free-port.ts';
import { startProxy, type Behaviour } from './proxy.ts';

/** The real app on a free port of 127.0.0.1, closed with the test. */
async function listeningApp(t: TestContext, env: Record<string, string> = {}): Promise<{ h: TestApp; url: string }> {
  const h = await startApp(t, env, { singleInstance: true });
  await h.app.listen({ port: 0, host: '127.0.0.1' });
  return { h, url: `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}` };
}

async function clientFor(h: TestApp, baseUrl: string, as: string, options: Partial<CorebridgeClientOptions> = {}) {
  // Short back-off: the tests are about which attempts happen, not about waiting.
  return createCorebridgeClient({
    baseUrl,
    token: await h.token(as),
    retries: { baseDelayMs: 20, maxDelayMs: 100 },
    ...options,
  });
}

async function balance(h: TestApp, account: string): Promise<number> {
  const res = await h.request({ method: 'GET', url: `/v1/accounts/${account}/balance`, as: 'clerk' });
  assert.equal(res.statusCode, 200);
  return res.json().balance;
}

const PAYMENT = {
  debtorAccount: '1001-01',
  creditorAccount: '1002-01',
  amount: 12.5,
  currency: 'EUR',
  reference: 'SDK retry',
};

test('a payment whose answer is lost after the server ran it is retried with the same key and runs once', async (t) => {
  const { h, url } = await listeningApp(t);
  const proxy = await startProxy(t, url, (n): Behaviour => (n === 1 ? 'drop-answer' : 'forward'));
  const sdk = await clientFor(h, proxy.url, 'ada');

  const paid = await sdk.POST('/v1/payments', { body: PAYMENT });

  assert.equal(proxy.attempts.length, 2);
  const [first, second] = proxy.attempts;
  assert.equal(first?.upstream?.status, 201, 'the server made the payment on the first attempt; its answer was lost');
  const key = first?.headers['idempotency-key'];
  assert.match(String(key), /^[0-9a-f-]{36}$/, 'the client made the key');
  assert.equal(second?.headers['idempotency-key'], key, 'the retry carries the same key');
  assert.equal(second?.headers['x-request-id'], first?.headers['x-request-id'], 'one logical call, one request id');
  assert.equal(second?.upstream?.headers['idempotent-replayed'], 'true');

  assert.equal(paid.status, 201);
  assert.equal(paid.replayed, true, 'the answer is the stored one of the first attempt');
  assert.equal(paid.attempts, 2);
  assert.equal(paid.idempotencyKey, key);
  assert.equal(paid.requestId, second?.upstream?.headers['x-request-id']);
  assert.equal(paid.data.status, 'COMPLETED');
  assert.deepEqual(
    paid.data,
    JSON.parse(first?.upstream?.body ?? '{}'),
    "the first attempt's payment, not a second one",
  );

  // Executed once: the money moved once, and the payment is there to read.
  assert.equal(await balance(h, '1001-01'), 2500 - 12.5);
  assert.equal(await balance(h, '1002-01'), 1200 + 12.5);
  if (!('paymentId' in paid.data)) assert.fail('a payment, not an operation');
  const read = await sdk.GET('/v1/payments/{paymentId}', { params: { path: { paymentId: paid.data.paymentId } } });
  assert.deepEqual(read.data, paid.data);
});

test('a 429 from the rate limiter is retried after its Retry-After, and the call then succeeds', async (t) => {
  const { h, url } = await listeningApp(t, { RATE_LIMIT_READ_MAX: '1', RATE_LIMIT_WINDOW_SECONDS: '2' });
  const proxy = await startProxy(t, url);
  const sdk = await clientFor(h, proxy.url, 'ada');
  const get = () => sdk.GET('/v1/accounts/{accountId}/balance', { params: { path: { accountId: '1001-01' } } });

  assert.equal((await get()).attempts, 1, "the first read uses the window's only request");
  const second = await get();

  assert.equal(proxy.attempts.length, 3);
  const refused = proxy.attempts[1]!;
  const retried = proxy.attempts[2]!;
  assert.equal(refused.upstream?.status, 429);
  const retryAfterMs = Number(refused.upstream?.headers['retry-after']) * 1000;
  assert.ok(retryAfterMs >= 1000, `Retry-After ${String(refused.upstream?.headers['retry-after'])}`);
  // The proxy saw the refused request before the client saw the refusal, so the gap includes all of the wait.
  assert.ok(
    retried.at - refused.at >= retryAfterMs,
    `retried ${Math.round(retried.at - refused.at)} ms after a Retry-After of ${retryAfterMs} ms`,
  );
  assert.equal(retried.upstream?.status, 200);
  assert.equal(second.status, 200);
  assert.equal(second.attempts, 2);
  assert.equal(second.data.account, '1001-01');
  assert.equal(second.data.balance, 2500);
});

test('a 400 is not retried: one attempt, and a typed problem with its code, violations and request id', async (t) => {
  const { h, url } = await listeningApp(t);
  const proxy = await startProxy(t, url);
  const sdk = await clientFor(h, proxy.url, 'ada');

  const error = await sdk.POST('/v1/payments', { body: { ...PAYMENT, currency: 'eur' } }).then(
    () => assert.fail('a lower-case currency is refused'),
    (e: unknown) => e,
  );

  assert.equal(proxy.attempts.length, 1, 'a refusal is not worth another attempt, even with a key');
  assert.ok(error instanceof CorebridgeProblemError, String(error));
  assert.equal(error.status, 400);
  assert.equal(error.code, 'VALIDATION_FAILED');
  assert.equal(error.type, '/problems/validation-failed');
  assert.equal(error.title, 'The request is not valid');
  assert.deepEqual(
    error.errors.map((e) => [e.in, e.pointer]),
    [['body', '/currency']],
  );
  assert.equal(error.attempts, 1);
  const answer = proxy.attempts[0]!.upstream!;
  assert.equal(error.requestId, answer.headers['x-request-id']);
  assert.equal(
    error.requestId,
    proxy.attempts[0]!.headers['x-request-id'],
    'the API kept the request id the client sent',
  );
  assert.equal(error.requestId, (JSON.parse(answer.body) as { requestId: string }).requestId);
  assert.equal(error.idempotencyKey, proxy.attempts[0]!.headers['idempotency-key']);
  assert.equal(await balance(h, '1001-01'), 2500);
});

test('the time-out fires on each attempt: a server that never answers gives a typed time-out after 1 + retries attempts', async (t) => {
  const { h, url } = await listeningApp(t);
  const proxy = await startProxy(t, url, () => 'hang');
  const sdk = await clientFor(h, proxy.url, 'ada', {
    timeoutMs: 200,
    retries: { max: 2, baseDelayMs: 10, maxDelayMs: 20 },
  });

  const error = await sdk.GET('/v1/accounts/{accountId}/balance', { params: { path: { accountId: '1001-01' } } }).then(
    () => assert.fail('nothing answers'),
    (e: unknown) => e,
  );

  assert.ok(error instanceof CorebridgeTimeoutError, String(error));
  assert.ok(error instanceof CorebridgeNetworkError, 'a time-out is a network failure');
  assert.equal(error.timeoutMs, 200);
  assert.equal(error.attempts, 3);
  assert.equal(proxy.attempts.length, 3);
  assert.equal(
    error.requestId,
    proxy.attempts[0]!.headers['x-request-id'],
    'the request id the client sent, to look for in the logs',
  );
});

test("the caller's own signal ends the call at once, without retries", async (t) => {
  const { h, url } = await listeningApp(t);
  const proxy = await startProxy(t, url, () => 'hang');
  const sdk = await clientFor(h, proxy.url, 'ada');
  const controller = new AbortController();
  const call = sdk.GET('/v1/customers/{customerId}', {
    params: { path: { customerId: '1001' } },
    signal: controller.signal,
  });
  while (proxy.attempts.length === 0) await new Promise((r) => setTimeout(r, 5));
  controller.abort();
  await assert.rejects(call, { name: 'AbortError' });
  assert.equal(proxy.attempts.length, 1);
});

test("a POST without an Idempotency-Key is never repeated: a lost answer is the caller's to resolve", async (t) => {
  const { h, url } = await listeningApp(t);
  const proxy = await startProxy(t, url, (n): Behaviour => (n === 1 ? 'drop-answer' : 'forward'));
  const sdk = await clientFor(h, proxy.url, 'clerk');

  const error = await sdk
    .POST('/v1/customers', { body: { name: 'Katherine Johnson', email: 'katherine@example.com' } })
    .then(
      () => assert.fail('the answer was lost'),
      (e: unknown) => e,
    );

  assert.ok(error instanceof CorebridgeNetworkError, String(error));
  assert.ok(!(error instanceof CorebridgeTimeoutError));
  assert.equal(error.attempts, 1);
  assert.equal(error.idempotencyKey, undefined);
  assert.equal(proxy.attempts.length, 1, 'creating a customer twice is worse than an error');
  assert.equal(
    proxy.attempts[0]!.headers['idempotency-key'],
    undefined,
    'the contract declares no key for this operation',
  );
  assert.equal(proxy.attempts[0]!.upstream?.status, 201, 'the server did create it');
  const created = JSON.parse(proxy.attempts[0]!.upstream?.body ?? '{}') as { customerId: string };
  const read = await sdk.GET('/v1/customers/{customerId}', { params: { path: { customerId: created.customerId } } });
  assert.equal(read.data.email, 'katherine@example.com', 'created once, and there to find');

  // Nor is it repeated on a 503, which another attempt might have cured.
  const unavailable = {
    status: 503,
    headers: { 'retry-after': '0' },
    body: {
      type: '/problems/service-unavailable',
      title: 'The service is not available',
      status: 503,
      instance: '/v1/customers',
      requestId: 'r',
      code: 'SERVICE_UNAVAILABLE',
    },
  };
  const refusing = await startProxy(t, url, () => unavailable);
  const direct = await clientFor(h, refusing.url, 'clerk');
  await assert.rejects(
    direct.POST('/v1/customers', { body: { name: 'Dorothy Vaughan', email: 'dorothy@example.com' } }),
    { name: 'CorebridgeProblemError', status: 503, code: 'SERVICE_UNAVAILABLE' },
  );
  assert.equal(refusing.attempts.length, 1);
});

test('502/503/504 and "key still in flight" are retried with the caller\'s own key; any other 409 is not', async (t) => {
  const { h, url } = await listeningApp(t);
  const problem = (status: number, code: string) => ({
    status,
    headers: { 'retry-after': '0' },
    body: {
      type: `/problems/${code.toLowerCase().replaceAll('_', '-')}`,
      title: code,
      status,
      instance: '/v1/payments',
      requestId: 'proxy',
      code,
    },
  });
  const plan = [
    problem(503, 'BACKEND_BUSY'),
    problem(409, 'IDEMPOTENCY_IN_PROGRESS'),
    problem(502, 'BACKEND_PROGRAM_FAILED'),
  ];
  const proxy = await startProxy(t, url, (n) => plan[n - 1] ?? 'forward');
  const sdk = await clientFor(h, proxy.url, 'ada', { retries: { max: 3, baseDelayMs: 10 } });

  const paid = await sdk.POST('/v1/payments', {
    body: PAYMENT,
    params: { header: { 'idempotency-key': 'caller-key-1' } },
  });
  assert.equal(paid.status, 201);
  assert.equal(paid.attempts, 4);
  assert.equal(paid.replayed, false, 'the first attempt that reached the app ran it');
  assert.deepEqual(
    proxy.attempts.map((a) => a.headers['idempotency-key']),
    ['caller-key-1', 'caller-key-1', 'caller-key-1', 'caller-key-1'],
  );
  assert.equal(await balance(h, '1001-01'), 2500 - 12.5);

  const conflicting = await startProxy(t, url, () => problem(409, 'CONFLICT'));
  const other = await clientFor(h, conflicting.url, 'ada');
  await assert.rejects(other.POST('/v1/payments', { body: PAYMENT }), {
    name: 'CorebridgeProblemError',
    status: 409,
    code: 'CONFLICT',
  });
  assert.equal(conflicting.attempts.length, 1);

  // An order declares an optional key: the client sends one all the same.
  const orders = await startProxy(t, url);
  const ordering = await clientFor(h, orders.url, 'ada');
  await ordering.POST('/v1/orders', { body: { customerId: '1001', productId: 'P-100', quantity: 1 } });
  assert.match(String(orders.attempts[0]?.headers['idempotency-key']), /^[0-9a-f-]{36}$/);
});

test('a Retry-After beyond the cap is handed back to the caller instead of waited for', async (t) => {
  const { h, url } = await listeningApp(t);
  const limited = {
    status: 429,
    headers: { 'retry-after': '120' },
    body: {
      type: '/problems/rate-limited',
      title: 'Too many requests',
      status: 429,
      instance: '/v1/customers/1001',
      requestId: 'proxy',
      code: 'RATE_LIMITED',
    },
  };
  const proxy = await startProxy(t, url, () => limited);
  const sdk = await clientFor(h, proxy.url, 'ada', { retries: { maxRetryAfterMs: 60_000 } });
  await assert.rejects(sdk.GET('/v1/customers/{customerId}', { params: { path: { customerId: '1001' } } }), {
    name: 'CorebridgeProblemError',
    status: 429,
    code: 'RATE_LIMITED',
    retryAfterMs: 120_000,
    attempts: 1,
  });
  assert.equal(proxy.attempts.length, 1);
});

test('a refused connection is retried, then reported as a typed network failure naming its cause', async (t) => {
  const { h } = await listeningApp(t);
  const nobody = `http://127.0.0.1:${await freePort()}`;
  const sdk = await clientFor(h, nobody, 'ada', { retries: { max: 2, baseDelayMs: 10 } });
  const error = await sdk.GET('/v1/customers/{customerId}', { params: { path: { customerId: '1001' } } }).then(
    () => assert.fail('nothing listens there'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof CorebridgeNetworkError, String(error));
  assert.ok(!(error instanceof CorebridgeTimeoutError));
  assert.equal(error.attempts, 3);
  assert.match(error.message, /ECONNREFUSED/);
  assert.match(String(error.requestId), /^[0-9a-f-]{36}$/);
});
