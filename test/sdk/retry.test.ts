/** The SDK's retry rules on their own: which requests may be repeated, Retry-After in both forms, the back-off. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  DEFAULT_RETRY_OPTIONS,
  isRetryableAnswer,
  mayRepeat,
  parseRetryAfter,
  retryDelay,
} from '../../sdk/src/retry.ts';

test('idempotent methods may be repeated; POST and PATCH only with an Idempotency-Key', () => {
  for (const method of ['GET', 'PUT', 'DELETE', 'get']) assert.equal(mayRepeat(method, false), true, method);
  for (const method of ['POST', 'PATCH']) {
    assert.equal(mayRepeat(method, false), false, method);
    assert.equal(mayRepeat(method, true), true, method);
  }
});

test('429, 502, 503, 504 and the in-flight 409 are worth another attempt; no other 4xx or 5xx', () => {
  for (const status of [429, 502, 503, 504]) assert.equal(isRetryableAnswer(status, undefined), true, String(status));
  assert.equal(isRetryableAnswer(409, 'IDEMPOTENCY_IN_PROGRESS'), true);
  for (const [status, code] of [
    [409, 'CONFLICT'],
    [409, undefined],
    [400, 'VALIDATION_FAILED'],
    [422, 'IDEMPOTENCY_KEY_REUSED'],
    [500, 'INTERNAL_ERROR'],
    [404, 'NOT_FOUND'],
  ] as const) {
    assert.equal(isRetryableAnswer(status, code), false, `${status} ${code}`);
  }
});

test('Retry-After is read as delay-seconds or as an HTTP-date', () => {
  const now = Date.parse('Tue, 24 Nov 2026 14:00:00 GMT');
  assert.equal(parseRetryAfter('3', now), 3000);
  assert.equal(parseRetryAfter(' 0 ', now), 0);
  assert.equal(parseRetryAfter('Tue, 24 Nov 2026 14:00:07 GMT', now), 7000);
  assert.equal(parseRetryAfter('Tue, 24 Nov 2026 13:59:00 GMT', now), 0, 'a date passed means now');
  assert.equal(parseRetryAfter(null, now), undefined);
  assert.equal(parseRetryAfter('soon', now), undefined);
  assert.equal(parseRetryAfter('-1', now), undefined);
});

test('the back-off is full jitter under a doubling ceiling; a Retry-After is a floor', () => {
  const options = { ...DEFAULT_RETRY_OPTIONS, baseDelayMs: 100, maxDelayMs: 1000 };
  assert.equal(
    retryDelay(0, options, undefined, () => 0),
    0,
  );
  assert.equal(
    retryDelay(0, options, undefined, () => 0.5),
    50,
  );
  assert.equal(
    retryDelay(2, options, undefined, () => 0.5),
    200,
  );
  assert.equal(
    retryDelay(10, options, undefined, () => 0.999),
    999,
    'capped at maxDelayMs',
  );
  assert.equal(
    retryDelay(5, options, 2000, () => 0),
    2000,
  );
  assert.equal(
    retryDelay(5, options, 2000, () => 0.5),
    2050,
    'spread a little past the floor',
  );
});
