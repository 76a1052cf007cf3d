import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Balance } from '../../src/resources/account.ts';
import { assertProblem, assertShape } from '../helpers/assert-shape.ts';
import { startApp } from '../helpers/app.ts';

test('GET /v1/accounts/{id}/balance: demo balances; 404 for another customer’s or a missing account', async (t) => {
  const h = await startApp(t);
  const expected = [
    { as: 'ada', account: '1001-01', balance: 2500, currency: 'EUR' },
    { as: 'ada', account: '1001-02', balance: 800, currency: 'USD' },
    { as: 'alan', account: '1002-01', balance: 1200, currency: 'EUR' },
    { as: 'grace', account: '1003-01', balance: 10000, currency: 'EUR' },
  ];
  for (const e of expected) {
    const res = await h.request({ method: 'GET', url: `/v1/accounts/${e.account}/balance`, as: e.as });
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assertShape(Balance, body, ['account', 'balance', 'currency', 'availableBalance', 'asOf']);
    assert.equal(body.account, e.account);
    assert.equal(body.balance, e.balance);
    assert.equal(body.availableBalance, e.balance);
    assert.equal(body.currency, e.currency);
    assert.ok(Math.abs(Date.parse(body.asOf) - Date.now()) < 60_000);
  }
  assertProblem(await h.request({ method: 'GET', url: '/v1/accounts/1002-01/balance', as: 'ada' }), 404, 'NOT_FOUND');
  assertProblem(await h.request({ method: 'GET', url: '/v1/accounts/9999-01/balance', as: 'clerk' }), 404, 'NOT_FOUND');
  assertProblem(
    await h.request({ method: 'GET', url: '/v1/accounts/SYS-OPENING-EUR/balance', as: 'clerk' }),
    400,
    'VALIDATION_FAILED',
  );
  assert.equal(
    (await h.request({ method: 'GET', url: '/v1/accounts/1002-01/balance', as: 'clerk' })).json().balance,
    1200,
  );
});
