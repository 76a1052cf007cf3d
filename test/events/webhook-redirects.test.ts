/**
 * A webhook endpoint that redirects, against real receivers: the dispatcher does not follow (as Stripe, Svix and
 * GitHub do not), the attempt fails with the status and where to point the subscription instead, and it is
 * retried on the schedule, the redirect's target never called. Other outbound calls still follow checked redirects.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { redirectNotFollowed } from '../../src/events/webhooks.ts';
import { createGuardedClient } from '../../src/outbound/url-guard.ts';
import { until } from '../../src/until.ts';
import { startApp } from '../helpers/app.ts';
import { startReceiver } from '../helpers/webhook-receiver.ts';

test('a redirecting endpoint: not followed, the attempt fails naming the status and the new URL, then is retried', async (t) => {
  const endpoint = await startReceiver(t, '/old');
  const target = await startReceiver(t, '/new');
  const h = await startApp(t, {
    ...endpoint.env,
    WEBHOOK_ALLOWED_PORTS: `${endpoint.port},${target.port}`,
    WEBHOOK_RETRY_SCHEDULE: '300ms,300ms,1h',
  });
  endpoint.answers.push(
    { status: 301, headers: { location: `${target.url}?v=2` } },
    { status: 308, headers: { location: '/moved' } },
  );
  endpoint.otherwise = { status: 302 };
  const created = await h.request({
    method: 'POST',
    url: '/v1/webhook-subscriptions',
    as: 'clerk',
    body: { url: endpoint.url, eventTypes: ['OrderConfirmed'] },
  });
  assert.equal(created.statusCode, 201, created.body);
  const { subscriptionId } = created.json();
  const order = await h.request({
    method: 'POST',
    url: '/v1/orders',
    as: 'ada',
    body: { customerId: '1001', productId: 'P-100', quantity: 1 },
  });
  assert.equal(order.statusCode, 201);

  const delivery = async () =>
    (
      await h.request({ method: 'GET', url: `/v1/webhook-subscriptions/${subscriptionId}/deliveries`, as: 'clerk' })
    ).json().items[0];
  await until('the first attempt recorded', async () => (await delivery())?.attempts >= 1);
  const first = await delivery();
  assert.equal(first.state, 'pending', 'retried on the schedule');
  assert.equal(first.lastStatusCode, 301);
  assert.equal(
    first.lastError,
    `the endpoint answered 301 (redirects are not followed; update the URL to ${target.url}?v=2)`,
  );

  await until('the third attempt recorded', async () => (await delivery())?.attempts >= 3);
  const third = await delivery();
  assert.equal(third.state, 'pending');
  assert.equal(third.lastStatusCode, 302);
  assert.equal(third.lastError, 'the endpoint answered 302 (redirects are not followed; it named no Location)');
  assert.equal(endpoint.received.length, 3);
  assert.equal(new Set(endpoint.received.map((r) => r.headers['webhook-id'])).size, 1, 'the same webhook-id');
  assert.equal(target.received.length, 0, 'the redirect target is never called');
  const logged = h.logs.filter((l) => l['msg'] === 'webhook attempt failed').map((l) => l['error']);
  assert.ok(
    logged.includes(
      `the endpoint answered 308 (redirects are not followed; update the URL to http://127.0.0.1:${endpoint.port}/moved)`,
    ),
    'a relative Location is named in full',
  );
});

test('other outbound calls still follow a redirect, each hop checked; followRedirects: false returns it', async (t) => {
  const first = await startReceiver(t, '/first');
  const second = await startReceiver(t, '/second');
  first.otherwise = { status: 302, headers: { location: second.url } };
  second.otherwise = { status: 200 };
  const policy = { allowHttp: true, allowedCidrs: ['127.0.0.1/32'], allowedPorts: [first.port, second.port] };

  const following = createGuardedClient(policy, { timeoutMs: 2000 });
  t.after(() => following.close());
  assert.equal((await following.request(first.url)).status, 200);
  assert.equal(second.received.length, 1);

  const returning = createGuardedClient(policy, { timeoutMs: 2000, followRedirects: false });
  t.after(() => returning.close());
  const res = await returning.request(first.url, { method: 'POST', body: '{}' });
  assert.equal(res.status, 302);
  assert.equal(res.headers.get('location'), second.url);
  assert.equal(second.received.length, 1, 'not followed');
});

test('the redirect error fits the record (120 characters): a long Location is cut, a non-ASCII one made printable', () => {
  const long = redirectNotFollowed('https://a.example/x', 301, `https://b.example/${'p'.repeat(200)}`);
  assert.equal(long.length, 120);
  assert.match(
    long,
    /^the endpoint answered 301 \(redirects are not followed; update the URL to https:\/\/b\.example\/p+\.\.\.\)$/,
  );
  assert.equal(
    redirectNotFollowed('https://a.example/x', 307, '../ÿ'),
    'the endpoint answered 307 (redirects are not followed; update the URL to https://a.example/%C3%BF)',
  );
  assert.equal(
    redirectNotFollowed('https://a.example/x', 302, 'http://[bad'),
    'the endpoint answered 302 (redirects are not followed; update the URL to http://[bad)',
  );
});
