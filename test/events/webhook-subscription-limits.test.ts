/**
 * An owner's subscriptions: a second one like the first (same URL, same event types in any order) is refused
 * with the first one's id; the list comes a page at a time, oldest first.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ROLE_SCOPES } from '../../src/auth/roles.ts';
import { startApp, type TestApp } from '../helpers/app.ts';
import { assertProblem } from '../helpers/assert-shape.ts';

const HOOK_ENV = { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOWED_CIDRS: '127.0.0.1/32', WEBHOOK_ALLOWED_PORTS: '9' };
const URL = 'http://127.0.0.1:9/hooks';

function create(h: TestApp, as: string | { token: string }, url: string, eventTypes: string[]) {
  return h.request({
    method: 'POST',
    url: '/v1/webhook-subscriptions',
    ...(typeof as === 'string' ? { as } : as),
    body: { url, eventTypes },
  });
}

async function ids(h: TestApp, as: string): Promise<string[]> {
  const res = await h.request({ method: 'GET', url: '/v1/webhook-subscriptions?limit=100', as });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().items.map((s: { subscriptionId: string }) => s.subscriptionId);
}

test('the same URL and event types again is 409 SUBSCRIPTION_EXISTS naming the first; any other difference is a new one', async (t) => {
  const h = await startApp(t, HOOK_ENV);
  const first = await create(h, 'clerk', URL, ['OrderConfirmed', 'OrderCancelled']);
  assert.equal(first.statusCode, 201, first.body);
  const id = first.json().subscriptionId as string;

  for (const types of [
    ['OrderConfirmed', 'OrderCancelled'],
    ['OrderCancelled', 'OrderConfirmed'],
  ]) {
    const again = await create(h, 'clerk', URL, types);
    const problem = assertProblem(again, 409, 'CONFLICT');
    assert.equal(problem['reason'], 'SUBSCRIPTION_EXISTS');
    assert.equal(problem['subscriptionId'], id);
    assert.match(String(problem['detail']), new RegExp(id));
  }
  assert.deepEqual(await ids(h, 'clerk'), [id], 'nothing stored');

  // Another URL, fewer or more types, another owner: each a subscription of its own.
  assert.equal((await create(h, 'clerk', `${URL}/other`, ['OrderConfirmed', 'OrderCancelled'])).statusCode, 201);
  assert.equal((await create(h, 'clerk', URL, ['OrderConfirmed'])).statusCode, 201);
  assert.equal((await create(h, 'clerk', URL, ['OrderConfirmed', 'OrderCancelled', 'OrderUpdated'])).statusCode, 201);
  assert.equal((await create(h, 'acme-shop', URL, ['OrderConfirmed', 'OrderCancelled'])).statusCode, 201);
  assert.equal((await ids(h, 'clerk')).length, 4);

  // Deleted, it may be made again.
  assert.equal(
    (await h.request({ method: 'DELETE', url: `/v1/webhook-subscriptions/${id}`, as: 'clerk' })).statusCode,
    204,
  );
  assert.equal((await create(h, 'clerk', URL, ['OrderCancelled', 'OrderConfirmed'])).statusCode, 201);
});

test('the list pages with limit and cursor, oldest first; a limit beyond 1–100 or a foreign cursor is 400', async (t) => {
  const h = await startApp(t, HOOK_ENV);
  const made: string[] = [];
  for (let i = 0; i < 5; i++) {
    const res = await create(h, 'clerk', `${URL}/${i}`, ['OrderConfirmed']);
    assert.equal(res.statusCode, 201, res.body);
    made.push(res.json().subscriptionId);
  }
  // Another owner's are not in the pages.
  assert.equal((await create(h, 'acme-shop', URL, ['OrderConfirmed'])).statusCode, 201);

  const pages: string[][] = [];
  let cursor = '';
  for (let n = 0; n < 5; n++) {
    const res = await h.request({
      method: 'GET',
      url: `/v1/webhook-subscriptions?limit=2${cursor ? `&cursor=${cursor}` : ''}`,
      as: 'clerk',
    });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    pages.push(body.items.map((s: { subscriptionId: string }) => s.subscriptionId));
    if (body.nextCursor === null) break;
    cursor = body.nextCursor;
  }
  assert.deepEqual(pages, [made.slice(0, 2), made.slice(2, 4), made.slice(4)]);

  // Without a limit: 20 at most, here all of them.
  const all = await h.request({ method: 'GET', url: '/v1/webhook-subscriptions', as: 'clerk' });
  assert.deepEqual(
    { ids: all.json().items.map((s: { subscriptionId: string }) => s.subscriptionId), next: all.json().nextCursor },
    { ids: made, next: null },
  );

  for (const query of ['limit=0', 'limit=101', 'limit=x', 'cursor=b3JkZXI', 'other=1']) {
    const res = await h.request({ method: 'GET', url: `/v1/webhook-subscriptions?${query}`, as: 'clerk' });
    assertProblem(res, 400, 'VALIDATION_FAILED');
  }
  // A deliveries cursor is not a subscriptions cursor.
  const foreign = Buffer.from('d1:3').toString('base64url');
  const res = await h.request({ method: 'GET', url: `/v1/webhook-subscriptions?cursor=${foreign}`, as: 'clerk' });
  assertProblem(res, 400, 'VALIDATION_FAILED');
});

test('WEBHOOK_MAX_SUBSCRIPTIONS caps each owner (422 SUBSCRIPTION_LIMIT_REACHED); an equal one is 409 first', async (t) => {
  const h = await startApp(t, { ...HOOK_ENV, WEBHOOK_MAX_SUBSCRIPTIONS: '2' });
  for (let i = 0; i < 2; i++)
    assert.equal((await create(h, 'clerk', `${URL}/${i}`, ['OrderConfirmed'])).statusCode, 201);
  const full = assertProblem(await create(h, 'clerk', `${URL}/2`, ['OrderConfirmed']), 422, 'BUSINESS_RULE_VIOLATION');
  assert.equal(full['reason'], 'SUBSCRIPTION_LIMIT_REACHED');
  assert.match(String(full['detail']), /at most 2 webhook subscriptions/);
  // The same as one it has: told that it exists, which is what the owner needs to know.
  const same = assertProblem(await create(h, 'clerk', `${URL}/0`, ['OrderConfirmed']), 409, 'CONFLICT');
  assert.equal(same['reason'], 'SUBSCRIPTION_EXISTS');
  const partner = {
    token: await h.app.devIssuer.sign({
      subject: 'globex',
      role: 'partner',
      clientId: 'globex',
      scopes: ROLE_SCOPES.partner,
    }),
  };
  assert.equal((await create(h, partner, `${URL}/0`, ['OrderConfirmed'])).statusCode, 201, 'per owner');
  assert.equal((await ids(h, 'clerk')).length, 2);
});
