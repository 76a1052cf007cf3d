/**
 * Who receives which event: exactly who may read its resource through the API. A partner reads customer 1001
 * (linked to it in the demo data) through the API, so it gets 1001's CustomerUpdated in the feed and by webhook;
 * a customer it has no link to stays out of both.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { until } from '../../src/until.ts';
import { startApp } from '../helpers/app.ts';
import { feedWhen, readFeed } from '../helpers/events.ts';
import { startReceiver } from '../helpers/webhook-receiver.ts';

test('a partner gets the events of a customer linked to it, as it reads the customer: feed and webhook', async (t) => {
  const receiver = await startReceiver(t);
  const h = await startApp(t, receiver.env);
  const sub = await h.request({
    method: 'POST',
    url: '/v1/webhook-subscriptions',
    as: 'acme-shop',
    body: { url: receiver.url, eventTypes: ['CustomerUpdated'] },
  });
  assert.equal(sub.statusCode, 201, sub.body);
  const secret = sub.json().secret as string;

  // The API: 1001 is the partner's (linked), 1002 is not.
  assert.equal((await h.request({ method: 'GET', url: '/v1/customers/1001', as: 'acme-shop' })).statusCode, 200);
  assert.equal((await h.request({ method: 'GET', url: '/v1/customers/1002', as: 'acme-shop' })).statusCode, 404);

  for (const [as, id] of [
    ['alan', '1002'],
    ['ada', '1001'],
  ] as const) {
    const res = await h.request({
      method: 'PATCH',
      url: `/v1/customers/${id}`,
      as,
      body: { phone: '+44 20 7946 0000' },
    });
    assert.equal(res.statusCode, 200, res.body);
  }
  await feedWhen(h, 'clerk', (e) => e.filter((x) => x.type === 'CustomerUpdated').length === 2);

  const partner = await readFeed(h, 'acme-shop');
  assert.deepEqual(
    partner.map((e) => `${e.type} ${e.subject}`),
    ['CustomerUpdated 1001'],
    "the linked customer's event, not the other's",
  );
  assert.deepEqual(partner[0]!.data, { customerId: '1001', name: 'Ada Lovelace' }, "the partner's field list");

  await until('the webhook delivery', () => receiver.received.length >= 1);
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(receiver.received.length, 1, 'one delivery: 1001 only');
  const hit = receiver.received[0]!;
  const delivered = new Webhook(secret).verify(hit.body, hit.headers as Record<string, string>) as {
    type: string;
    subject: string;
    id: string;
  };
  assert.deepEqual([delivered.type, delivered.subject, delivered.id], ['CustomerUpdated', '1001', partner[0]!.id]);
});
