/**
 * /metrics after real requests: the OpenTelemetry-named series are there with the right counts, and no
 * label value holds anything a caller sent (ids, raw paths, principal, request id, idempotency key).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import test from 'node:test';
import { startApp } from '../helpers/app.ts';
import { PerformanceObserver } from 'node:perf_hooks';
import { createMetrics, routeTemplate } from '../../src/observability/metrics.ts';
import { parsePrometheusText, total } from './prometheus-text.ts';

test('route templates are rendered as OpenAPI writes them', () => {
  assert.equal(routeTemplate('/v1/orders/:orderId'), '/v1/orders/{orderId}');
  assert.equal(routeTemplate('/v1/customers/:customerId/accounts'), '/v1/customers/{customerId}/accounts');
  assert.equal(routeTemplate('/health'), '/health');
});

test('/metrics exposes request, back-end, rate-limit, replay, outcome and process metrics, and no label holds an id', async (t) => {
  const h = await startApp(t, { RATE_LIMIT_READ_MAX: '3' });
  const requestId = `metrics-${randomUUID()}`;
  const key = `pay-${randomUUID()}`;

  const created = await h.request({
    method: 'POST',
    url: '/v1/orders',
    as: 'ada',
    body: { customerId: '1001', productId: 'P-100', quantity: 1 },
  });
  assert.equal(created.statusCode, 201);
  const orderId = created.json().orderId as string;
  const order = await h.request({
    method: 'GET',
    url: `/v1/orders/${orderId}`,
    as: 'ada',
    headers: { 'x-request-id': requestId },
  });
  assert.equal(order.statusCode, 200);

  const transfer = {
    debtorAccount: '1001-01',
    creditorAccount: '1002-01',
    amount: 1.5,
    currency: 'EUR',
    reference: 'metrics',
  };
  const paid = await h.request({
    method: 'POST',
    url: '/v1/payments',
    as: 'ada',
    body: transfer,
    headers: { 'idempotency-key': key },
  });
  assert.equal(paid.statusCode, 201);
  const paymentId = paid.json().paymentId as string;
  const replayed = await h.request({
    method: 'POST',
    url: '/v1/payments',
    as: 'ada',
    body: transfer,
    headers: { 'idempotency-key': key },
  });
  assert.equal(replayed.headers['idempotent-replayed'], 'true');

  const missingOrder = await h.request({ method: 'GET', url: '/v1/orders/ORD-00000000DEADBEEF', as: 'ada' });
  assert.equal(missingOrder.statusCode, 404);
  const noRoute = await h.request({ method: 'GET', url: `/no/such/route/${orderId}` });
  assert.equal(noRoute.statusCode, 404);

  // alan's reads: the fourth in the window is refused by the read limit.
  const statuses = [];
  for (let i = 0; i < 4; i++)
    statuses.push((await h.request({ method: 'GET', url: '/v1/accounts/1002-01/balance', as: 'alan' })).statusCode);
  assert.deepEqual(statuses, [200, 200, 200, 429]);

  const text = await h.app.observability.metrics.registry.metrics();
  const samples = parsePrometheusText(text);

  const requests = 'http_server_request_duration_seconds_count';
  assert.equal(
    total(samples, requests, {
      http_request_method: 'GET',
      http_route: '/v1/orders/{orderId}',
      http_response_status_code: '200',
    }),
    1,
  );
  assert.equal(
    total(samples, requests, {
      http_request_method: 'GET',
      http_route: '/v1/orders/{orderId}',
      http_response_status_code: '404',
    }),
    1,
  );
  assert.equal(
    total(samples, requests, {
      http_request_method: 'POST',
      http_route: '/v1/payments',
      http_response_status_code: '201',
    }),
    2,
  );
  assert.equal(
    total(samples, requests, { http_route: '/v1/accounts/{accountId}/balance', http_response_status_code: '429' }),
    1,
  );
  // A request no route matched has no route (an empty label, which Prometheus reads as none), never its path.
  assert.equal(
    total(samples, requests, { http_request_method: 'GET', http_route: '', http_response_status_code: '404' }),
    1,
  );
  // OpenTelemetry's default buckets for http.server.request.duration.
  const les = samples
    .filter((s) => s.name === 'http_server_request_duration_seconds_bucket')
    .map((s) => s.labels['le']);
  for (const le of ['0.005', '0.075', '2.5', '10', '+Inf']) assert.ok(les.includes(le), `bucket le=${le}`);

  const transactions = 'corebridge_backend_transaction_duration_seconds_count';
  assert.equal(total(samples, transactions, { corebridge_transaction: 'ORDINQ', corebridge_return_code: '00' }), 1);
  assert.equal(total(samples, transactions, { corebridge_transaction: 'ORDINQ', corebridge_return_code: '08' }), 1);
  assert.equal(
    total(samples, transactions, { corebridge_transaction: 'PAYCRT', corebridge_return_code: '00' }),
    2,
    'the payment and its replay, which the back-end answers',
  );

  assert.equal(total(samples, 'corebridge_rate_limit_rejections_total', { corebridge_rate_limit_policy: 'read' }), 1);
  assert.equal(total(samples, 'corebridge_idempotency_replays_total', { http_route: '/v1/payments' }), 1);
  assert.equal(
    total(samples, 'corebridge_business_outcomes_total', {
      corebridge_transaction: 'PAYCRT',
      corebridge_status: 'COMPLETED',
    }),
    1,
  );
  assert.equal(
    total(samples, 'corebridge_business_outcomes_total', {
      corebridge_transaction: 'ORDCRT',
      corebridge_status: 'CONFIRMED',
    }),
    1,
  );
  assert.ok(total(samples, 'process_cpu_seconds_total') > 0, 'process metrics are collected');
  assert.ok(
    samples.some((s) => s.name.startsWith('nodejs_eventloop_lag')),
    'Node.js runtime metrics are collected',
  );

  // Nothing a caller sent is a label value.
  // Ids and paths anywhere in a value; the principals' names (words that occur inside others) as whole values.
  const callerValues = [
    orderId,
    paymentId,
    '1002-01',
    '1001-01',
    requestId,
    key,
    'ORD-00000000DEADBEEF',
    '/no/such/route',
  ];
  const callerWords = ['1001', '1002', 'ada', 'alan'];
  const values = samples.flatMap((s) => Object.values(s.labels));
  for (const value of values) {
    for (const sent of callerValues) assert.ok(!value.includes(sent), `label value "${value}" holds "${sent}"`);
    for (const sent of callerWords) assert.notEqual(value, sent, `label value "${value}" is a caller's value`);
    assert.doesNotMatch(value, /^\/.*\/(ORD|PAY)-|\/[0-9]{4}/, `label value "${value}" is a raw path`);
  }
});

test('an operation run later counts its transaction and business outcome as a call made at once does', async (t) => {
  const h = await startApp(t);
  const transfer = {
    debtorAccount: '1001-01',
    creditorAccount: '1002-01',
    amount: 100_000,
    currency: 'EUR',
    reference: 'later',
  };
  const res = await h.request({
    method: 'POST',
    url: '/v1/payments',
    as: 'ada',
    body: transfer,
    headers: { prefer: 'respond-async', 'idempotency-key': randomUUID() },
  });
  assert.equal(res.statusCode, 202, res.body);
  const location = res.headers['location'] as string;
  let status = 'pending';
  for (let i = 0; i < 100 && status === 'pending'; i++) {
    await new Promise((r) => setTimeout(r, 50));
    status = (await h.request({ method: 'GET', url: location, as: 'ada' })).json().status as string;
  }
  assert.equal(status, 'succeeded');

  const samples = parsePrometheusText(await h.app.observability.metrics.registry.metrics());
  // More than the account holds: the run is a business rejection (RC 04), counted with its reason.
  assert.equal(
    total(samples, 'corebridge_backend_transaction_duration_seconds_count', {
      corebridge_transaction: 'PAYCRT',
      corebridge_return_code: '04',
    }),
    1,
  );
  assert.equal(
    total(samples, 'corebridge_business_outcomes_total', {
      corebridge_transaction: 'PAYCRT',
      corebridge_status: 'REJECTED',
      corebridge_reason_code: 'INSUFFICIENT_FUNDS',
    }),
    1,
  );
});

test('nodejs_gc_duration_seconds counts every collection of the main thread, also those V8 reports together', async () => {
  const seen: number[] = [];
  const watcher = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) seen.push(entry.duration);
  });
  watcher.observe({ entryTypes: ['gc'] });
  const metrics = createMetrics();
  const count = async () =>
    total(parsePrometheusText(await metrics.registry.metrics()), 'nodejs_gc_duration_seconds_count');
  await new Promise((resolve) => setTimeout(resolve, 50));
  const before = await count();
  seen.length = 0;
  // Short-lived garbage: young-generation collections, many of them close together.
  let kept = 0;
  for (let round = 0; round < 200; round++) {
    const garbage = Array.from({ length: 20_000 }, (_, i) => ({ i, text: `item ${i}` }));
    kept += garbage.length;
  }
  await new Promise((resolve) => setTimeout(resolve, 100));
  const counted = await count();
  watcher.disconnect();
  assert.ok(kept > 0);
  assert.ok(seen.length >= 5, `collections seen: ${seen.length}`);
  assert.equal(counted - before, seen.length, 'one observation per collection');
});
