/** New object identifiers: the documented shape, no repeats, and creation order (so indexes grow at their end). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newEventId, newId } from '../../src/backend/ids.ts';

test('identifiers are a prefix and 16 upper-case hex digits, do not repeat, and sort in the order they were made', () => {
  const made: string[] = [];
  const started = Date.now();
  for (let i = 0; i < 20_000; i++) {
    const id = newId(i % 2 ? 'PAY' : 'ORD');
    assert.match(id, /^(PAY|ORD)-[0-9A-F]{16}$/);
    made.push(id.slice(4));
  }
  assert.equal(new Set(made).size, made.length, 'no id repeats');
  assert.deepEqual([...made].sort(), made, 'each id sorts after the one made before it');
  // The first 11 digits are the time of making, in ms.
  const ms = Number.parseInt(made[0]!.slice(0, 11), 16);
  assert.ok(ms >= started && ms <= Date.now() + 1, `time part ${ms} is the clock's (${started})`);
  assert.match(newId('LN'), /^LN-[0-9A-F]{16}$/);
});

test('ids made within one millisecond count up from a random start, so two processes rarely meet', () => {
  const starts = new Set<string>();
  for (let i = 0; i < 20; i++) {
    const until = Date.now() + 2;
    while (Date.now() < until); // into a new millisecond
    starts.add(newId('PAY').slice(-5));
  }
  assert.ok(starts.size >= 18, `random counter starts: ${[...starts].join(' ')}`);
});

test('event ids are UUIDv7s in the order they were made', () => {
  const ids = Array.from({ length: 5000 }, () => newEventId());
  for (const id of ids) assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.equal(new Set(ids).size, ids.length);
  assert.deepEqual([...ids].sort(), ids);
});
