/**
 * Token subjects the record header cannot hold (HDR-PRINCIPAL is 64 characters of its code page): an external
 * identity provider's long or non-ASCII `sub` maps to one stable principal id, and the log keeps the subject.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ROLE_SCOPES } from '../../../src/auth/roles.ts';
import { principalIdFor } from '../../../src/auth/principal-id.ts';
import { startApp } from '../../helpers/app.ts';
import { assertProblem } from '../../helpers/assert-shape.ts';

const LONG = `https://login.bank.example/tenants/7f3c9a2e-54d1-4b8a-9c1e-2d7f6a8b9c0d/users/${'a'.repeat(40)}`;

test('a subject longer than the header is one stable principal: it works, owns what it made, and is logged whole', async (t) => {
  const h = await startApp(t);
  const partner = (subject: string) =>
    h.app.devIssuer.sign({ subject, role: 'partner', clientId: 'long-sub', scopes: ROLE_SCOPES.partner });
  const token = await partner(LONG);
  assert.ok(LONG.length > 64);

  const created = await h.request({
    method: 'POST',
    url: '/v1/customers',
    token,
    body: { name: 'Hedy Lamarr', email: 'hedy@example.com' },
  });
  assert.equal(created.statusCode, 201, created.body);
  const customerId = created.json().customerId;
  // A new token of the same subject is the same principal: the partner reaches the customer it onboarded.
  const again = await h.request({ method: 'GET', url: `/v1/customers/${customerId}`, token: await partner(LONG) });
  assert.equal(again.statusCode, 200, again.body);
  // A subject that shares the first 64 characters is another principal.
  const lookalike = await partner(`${LONG.slice(0, 64)}-someone-else`);
  assertProblem(
    await h.request({ method: 'GET', url: `/v1/customers/${customerId}`, token: lookalike }),
    404,
    'NOT_FOUND',
  );

  const line = h.logs.find((l) => l['requestId'] === created.headers['x-request-id'] && l['status'] === 201);
  assert.ok(line, 'the request line');
  assert.equal(line['principal'], LONG);
});

test('principal ids: a subject that fits is itself; a long, spaced, non-ASCII or digest-shaped one is a fixed-length digest', () => {
  assert.equal(principalIdFor('acme-shop', 64), 'acme-shop');
  for (const subject of [LONG, 'Łukasz', 'with space', 'sub~abc']) {
    const id = principalIdFor(subject, 64);
    assert.match(id, /^sub~[A-Za-z0-9_-]{43}$/, subject);
    assert.equal(principalIdFor(subject, 64), id, 'stable');
  }
  assert.notEqual(principalIdFor(LONG, 64), principalIdFor(`${LONG}x`, 64));
});
