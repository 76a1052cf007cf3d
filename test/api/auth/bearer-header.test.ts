/**
 * The Authorization header as RFC 6750 §2.1 reads it, once its token is in the verified-token cache: the
 * cache must answer only for that exact token, and any other credentials are checked in full.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startApp } from '../../helpers/app.ts';
import { assertProblem } from '../../helpers/assert-shape.ts';

test('a cached token answers only for itself; any other credentials are refused with 401', async (t) => {
  const h = await startApp(t, {}, { singleInstance: true });
  const token = await h.token('ada');
  const other = await h.token('alan');
  const url = '/v1/accounts/1001-01/balance';
  const as = (authorization: string) => h.request({ method: 'GET', url, headers: { authorization } });

  const first = await as(`Bearer ${token}`);
  assert.equal(first.statusCode, 200, 'the token is verified, and cached');
  assert.equal(typeof first.json().balance, 'number');
  assert.equal((await as(`bearer ${token}`)).statusCode, 200, 'the scheme is case-insensitive');
  assert.equal((await as(`Bearer    ${token}`)).statusCode, 200, 'one or more spaces after the scheme');

  const [header, payload, signature] = token.split('.') as [string, string, string];
  const otherPayload = other.split('.')[1]!;
  const refused = {
    'trailing space': `Bearer ${token} `,
    'one more character': `Bearer ${token}A`,
    'another payload under the cached signature': `Bearer ${header}.${otherPayload}.${signature}`,
    'the cached payload under another signature': `Bearer ${header}.${payload}.${other.split('.')[2]!}`,
    'not token68': `Bearer ${token.replace('.', '!')}`,
    'no token': 'Bearer ',
    'another scheme': `Token ${token}`,
    'no space after the scheme': `Bearer${token}`,
  };
  for (const [name, authorization] of Object.entries(refused)) {
    const res = await as(authorization);
    assertProblem(res, 401, 'UNAUTHENTICATED');
    assert.match(String(res.headers['www-authenticate']), /error="invalid_token"/, name);
  }
  assert.equal((await as(`Bearer ${token}`)).statusCode, 200, 'the cached token still answers');
});
