/** Structure checks (contract 7.1): the body matches the very schema the API documents, with no extra keys. */
import assert from 'node:assert/strict';
import { Value } from 'typebox/value';
import type { TSchema } from 'typebox';

export function assertShape(schema: TSchema, body: unknown, keys?: string[]): void {
  const errors = [...Value.Errors(schema, body)];
  assert.equal(
    errors.length,
    0,
    `body does not match schema: ${JSON.stringify(errors.slice(0, 3))}\n${JSON.stringify(body)}`,
  );
  if (keys) assert.deepEqual(Object.keys(body as object).sort(), [...keys].sort());
}

export function assertProblem(
  res: { statusCode: number; headers: Record<string, unknown>; json(): unknown },
  status: number,
  code: string,
): Record<string, unknown> {
  assert.equal(res.statusCode, status, `expected ${status}, got ${res.statusCode}: ${JSON.stringify(res.json())}`);
  assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
  const body = res.json() as Record<string, unknown>;
  assert.equal(body['status'], status);
  assert.equal(body['code'], code);
  assert.equal(typeof body['title'], 'string');
  assert.equal(typeof body['type'], 'string');
  assert.equal(typeof body['instance'], 'string');
  assert.equal(body['requestId'], res.headers['x-request-id']);
  assert.ok(!JSON.stringify(body).includes('    at '), 'no stack trace');
  return body;
}
