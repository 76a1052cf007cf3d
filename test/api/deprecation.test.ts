/**
 * Deprecating an operation (docs/api.md, "Versioning and deprecation"): its route-table entry says since when,
 * until when and what replaces it; the contract marks it deprecated, and every answer carries Deprecation,
 * Sunset and Link.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ROUTES, type RouteAccess } from '../../src/api/route-table.ts';
import { startApp } from '../helpers/app.ts';

test('a deprecated operation answers with Deprecation, Sunset and Link, and the contract marks it; others do not', async (t) => {
  // This file's own process: the table entry is deprecated here only.
  const entry = ROUTES.getBalance as RouteAccess;
  entry.deprecated = {
    since: '2026-11-01T00:00:00Z',
    sunset: '2027-06-30T00:00:00Z',
    link: 'https://docs.example.com/migrate/balances',
  };
  t.after(() => delete entry.deprecated);
  const h = await startApp(t);
  const token = await h.token('ada');
  const balance = await h.app.inject({
    method: 'GET',
    url: '/v1/accounts/1001-01/balance',
    headers: { authorization: `Bearer ${token}` },
  });
  assert.equal(balance.statusCode, 200);
  assert.equal(balance.headers['deprecation'], `@${Date.parse('2026-11-01T00:00:00Z') / 1000}`);
  assert.equal(balance.headers['sunset'], 'Wed, 30 Jun 2027 00:00:00 GMT');
  assert.equal(
    balance.headers['link'],
    '<https://docs.example.com/migrate/balances>; rel="deprecation"; type="text/html"',
  );
  // On refusals too: a client that only ever sees errors still learns of it.
  const missing = await h.app.inject({
    method: 'GET',
    url: '/v1/accounts/1002-01/balance',
    headers: { authorization: `Bearer ${token}` },
  });
  assert.equal(missing.statusCode, 404);
  assert.ok(missing.headers['deprecation']);

  const other = await h.app.inject({
    method: 'GET',
    url: '/v1/customers/1001',
    headers: { authorization: `Bearer ${token}` },
  });
  assert.equal(other.headers['deprecation'], undefined);

  const doc = (await h.app.inject({ method: 'GET', url: '/openapi.json' })).json();
  const op = doc.paths['/v1/accounts/{accountId}/balance'].get;
  assert.equal(op.deprecated, true);
  assert.deepEqual(
    Object.keys(op.responses['200'].headers).filter((n) => ['deprecation', 'sunset', 'link'].includes(n)),
    ['deprecation', 'sunset', 'link'],
  );
  assert.equal(doc.paths['/v1/customers/{customerId}'].get.deprecated, undefined);
});
