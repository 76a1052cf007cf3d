/** The record types the code is checked against are the copybooks' own: records.ts is regenerated, not edited. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { copybookTypes, RECORD_TYPES_FILE } from '../../src/backend/copybooks/types.ts';

test('src/backend/copybooks/records.ts is what the copybooks generate', () => {
  assert.equal(
    readFileSync(RECORD_TYPES_FILE, 'utf8'),
    copybookTypes(),
    'a copybook changed: run `npm run records:types` and fix what `tsc` then finds',
  );
});
