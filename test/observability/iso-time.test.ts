/** isoNow (src/iso-time.ts): the time of log lines and back-end transactions, formatted once per millisecond. */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'node:test';
import { isoNow } from '../../src/iso-time.ts';

test('isoNow is the current time in ISO 8601 with milliseconds, and moves on with the clock', async () => {
  const before = Date.now();
  const first = isoNow();
  const after = Date.now();
  assert.match(first, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  assert.ok(Date.parse(first) >= before && Date.parse(first) <= after, `${first} between ${before} and ${after}`);
  assert.equal(new Date(Date.parse(first)).toISOString(), first);
  await sleep(5);
  const later = isoNow();
  assert.ok(Date.parse(later) >= Date.parse(first) + 5, `${later} at least 5 ms after ${first}`);
});
