/** New object identifiers: the documented shape, and no repeats. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newId } from '../../src/backend/ids.ts';

test('identifiers are a prefix and 16 upper-case hex digits, and do not repeat', () => {
  const seen = new Set<string>();
  for (let i = 0; i < 5000; i++) {
    const id = newId(i % 2 ? 'PAY' : 'ORD');
    assert.match(id, /^(PAY|ORD)-[0-9A-F]{16}$/);
    seen.add(id.slice(4));
  }
  assert.equal(seen.size, 5000, 'no random part repeats');
  assert.match(newId('LN'), /^LN-[0-9A-F]{16}$/);
});
