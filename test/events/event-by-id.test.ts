/**
 * GET /v1/events/{eventId}, and the feed's filters: several types (each checked, 400 at the first unknown one)
 * and `since` (events that happened at or after it), with the cursor.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startApp, type TestApp } from '../helpers/app.ts';
import { feedWhen, readFeed } from '../helpers/events.ts';

async function post(h: TestApp, url: string, as: string, body: unknown) {
  const res = await h.request({ method: 'POST', url, as, body });
  assert.ok(res.statusCode < 300, res.body);
  return res.json();
}

test('GET /v1/events/{id} answers by the same rule: the readers of the resource, 404 to everyone else', async (t) => {
  const h = await startApp(t);
  const res = await h.request({ method: 'PATCH', url: '/v1/customers/1001', as: 'ada', body: { phone: '+44 1' } });
  assert.equal(res.statusCode, 200, res.body);
  const clerk = await feedWhen(h, 'clerk', (e) => e.some((x) => x.type === 'CustomerUpdated'));
  const updated = clerk.find((e) => e.type === 'CustomerUpdated')!;
  const read = async (as: string) => h.request({ method: 'GET', url: `/v1/events/${updated.id}`, as });
  for (const as of ['ada', 'clerk', 'acme-shop']) assert.equal((await read(as)).statusCode, 200, as);
  const alan = await read('alan');
  assert.equal(alan.statusCode, 404);
  assert.match(String(alan.headers['content-type']), /application\/problem\+json/);
  // each reader gets its own role's view, as in the feed
  assert.deepEqual((await read('acme-shop')).json().data, { customerId: '1001', name: 'Ada Lovelace' });
  assert.deepEqual(
    (await read('ada')).json(),
    (await readFeed(h, 'ada')).find((e) => e.id === updated.id),
  );
});

test('an event of another customer, or none, is 404; an id that is no UUID is 400', async (t) => {
  const h = await startApp(t);
  const order = await post(h, '/v1/orders', 'ada', { customerId: '1001', productId: 'P-100', quantity: 1 });
  const [event] = await feedWhen(h, 'ada', (e) => e.some((x) => x.subject === order.orderId));
  assert.equal((await h.request({ method: 'GET', url: `/v1/events/${event!.id}`, as: 'grace' })).statusCode, 404);
  const none = await h.request({ method: 'GET', url: '/v1/events/00000000-0000-4000-8000-000000000000', as: 'clerk' });
  assert.equal(none.statusCode, 404);
  assert.equal((await h.request({ method: 'GET', url: '/v1/events/not-a-uuid', as: 'clerk' })).statusCode, 400);
});

test('the feed takes several types, and refuses the first that is none with 400 naming it', async (t) => {
  const h = await startApp(t);
  await post(h, '/v1/orders', 'ada', { customerId: '1001', productId: 'P-100', quantity: 1 }); // OrderConfirmed
  await post(h, '/v1/orders', 'ada', { customerId: '1001', productId: 'P-300', quantity: 1 }); // OrderRejected
  const res = await h.request({ method: 'PATCH', url: '/v1/customers/1001', as: 'ada', body: { phone: '+44 2' } });
  assert.equal(res.statusCode, 200, res.body);
  const all = await feedWhen(h, 'ada', (e) => e.length === 3);
  assert.deepEqual(all.map((e) => e.type).sort(), ['CustomerUpdated', 'OrderConfirmed', 'OrderRejected']);

  const two = await readFeed(h, 'ada', '&type=OrderRejected,CustomerUpdated');
  assert.deepEqual(
    two.map((e) => e.id),
    all.filter((e) => e.type !== 'OrderConfirmed').map((e) => e.id),
    'both types, in feed order',
  );
  assert.deepEqual(
    (await readFeed(h, 'ada', '&type=OrderConfirmed')).map((e) => e.type),
    ['OrderConfirmed'],
  );

  const bad = await h.request({ method: 'GET', url: '/v1/events?type=OrderConfirmed,OrderShipped', as: 'ada' });
  assert.equal(bad.statusCode, 400, bad.body);
  const problem = bad.json();
  assert.equal(problem.code, 'VALIDATION_FAILED');
  assert.deepEqual(
    problem.errors.map((e: { pointer: string; in: string }) => [e.pointer, e.in]),
    [['/type', 'query']],
  );
  assert.match(problem.errors[0].detail, /OrderShipped/);
});

test('since: the events that happened at or after it, with the cursor too; not an RFC 3339 time is 400', async (t) => {
  const h = await startApp(t);
  const first = await post(h, '/v1/orders', 'ada', { customerId: '1001', productId: 'P-100', quantity: 1 });
  const [early] = await feedWhen(h, 'ada', (e) => e.length === 1);
  await new Promise((r) => setTimeout(r, 20));
  const second = await post(h, '/v1/orders', 'ada', { customerId: '1001', productId: 'P-100', quantity: 1 });
  const third = await post(h, '/v1/orders', 'ada', { customerId: '1001', productId: 'P-100', quantity: 1 });
  const all = await feedWhen(h, 'ada', (e) => e.length === 3);
  assert.equal(early!.subject, first.orderId);
  const later = all[1]!;

  // At its time exactly: kept; a microsecond after it (RFC 3339 allows finer fractions): not.
  assert.deepEqual(
    (await readFeed(h, 'ada', `&since=${encodeURIComponent(later.time)}`)).map((e) => e.subject),
    [second.orderId, third.orderId],
  );
  const justAfter = later.time.replace('Z', '001Z');
  const afterIt = await readFeed(h, 'ada', `&since=${encodeURIComponent(justAfter)}`);
  assert.ok(!afterIt.some((e) => e.subject === second.orderId), 'an event before `since` by a microsecond is left out');
  // Another offset names the same instant.
  const offset = new Date(Date.parse(later.time) + 2 * 3600_000).toISOString().replace('Z', '+02:00');
  assert.deepEqual(
    (await readFeed(h, 'ada', `&since=${encodeURIComponent(offset)}`)).map((e) => e.subject),
    [second.orderId, third.orderId],
  );

  // With a cursor: after the cursor and at or after `since`.
  const page = await h.request({
    method: 'GET',
    url: `/v1/events?limit=1&since=${encodeURIComponent(early!.time)}`,
    as: 'ada',
  });
  assert.equal(page.statusCode, 200, page.body);
  const next = await h.request({
    method: 'GET',
    url: `/v1/events?limit=10&since=${encodeURIComponent(later.time)}&cursor=${page.json().nextCursor}`,
    as: 'ada',
  });
  assert.deepEqual(
    next.json().items.map((e: { subject: string }) => e.subject),
    [second.orderId, third.orderId],
  );

  for (const since of ['yesterday', '2026-11-28', '2026-11-28T09:00:00']) {
    const res = await h.request({ method: 'GET', url: `/v1/events?since=${since}`, as: 'ada' });
    assert.equal(res.statusCode, 400, `${since}: ${res.body}`);
  }
});
