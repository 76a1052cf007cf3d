/** How many items a list or a system turn answers with, whatever the request asks for. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pageSize, turnSize } from '../../src/backend/programs/lists.ts';

test("a page holds 1 to 100 items; not asked, the default (20, or the list's own)", () => {
  assert.deepEqual(
    [0, 1, 37, 100, 101, 999].map((n) => pageSize(n)),
    [20, 1, 37, 100, 100, 100],
  );
  assert.equal(pageSize(0, 100), 100);
  assert.equal(pageSize(0, 1), 1);
  assert.equal(pageSize(5, 1), 5);
});

test('a system turn takes 0 to 100 items; not asked, none', () => {
  assert.deepEqual([0, 1, 100, 101, 999].map(turnSize), [0, 1, 100, 100, 100]);
});
