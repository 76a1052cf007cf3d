/** Subscriptions that make sense: none for an event type its owner can never receive. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertProblem } from '../helpers/assert-shape.ts';
import { startApp, type TestApp } from '../helpers/app.ts';

const LOCAL_RECEIVER = {
  WEBHOOK_ALLOW_HTTP: 'true',
  WEBHOOK_ALLOWED_CIDRS: '127.0.0.1/32',
  WEBHOOK_ALLOWED_PORTS: '3000',
};

function subscribe(h: TestApp, as: string, url: string, eventTypes: string[]) {
  return h.request({ method: 'POST', url: '/v1/webhook-subscriptions', as, body: { url, eventTypes } });
}

async function count(h: TestApp, as: string): Promise<number> {
  return (await h.request({ method: 'GET', url: '/v1/webhook-subscriptions', as })).json().items.length;
}

test('a partner may not subscribe to event types it never receives: 400 at each such item of /eventTypes', async (t) => {
  const h = await startApp(t, LOCAL_RECEIVER);
  const refused = await subscribe(h, 'acme-shop', 'http://127.0.0.1:3000/hooks', [
    'PaymentRejected',
    'OrderConfirmed',
    'PaymentCompleted',
  ]);
  const problem = assertProblem(refused, 400, 'VALIDATION_FAILED');
  assert.equal(problem['reason'], 'EVENT_TYPES_NOT_RECEIVED');
  assert.deepEqual(problem['errors'], [
    { pointer: '/eventTypes/0', in: 'body', detail: 'is an event type this owner never receives' },
    { pointer: '/eventTypes/2', in: 'body', detail: 'is an event type this owner never receives' },
  ]);
  assert.equal(problem['detail'], 'a partner never receives PaymentRejected, PaymentCompleted');
  assert.equal(await count(h, 'acme-shop'), 0, 'nothing stored');

  const ordersAndCustomers = ['OrderConfirmed', 'CustomerCreated'];
  assert.equal((await subscribe(h, 'acme-shop', 'http://127.0.0.1:3000/hooks', ordersAndCustomers)).statusCode, 201);
  // An agent receives every event: any type is accepted.
  assert.equal((await subscribe(h, 'clerk', 'http://127.0.0.1:3000/hooks', ['LoanApproved'])).statusCode, 201);
});
