/** The committed contract (openapi/v1.json) is exactly what the code generates: a change to it is a reviewed diff. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { contractText, currentContract, readCommittedContract } from '../../src/contract/document.ts';

test('openapi/v1.json is the document the code generates', async () => {
  const generated = await currentContract();
  assert.equal(
    contractText(generated),
    contractText(readCommittedContract()),
    'the API contract changed: run `npm run contract:check` (is it breaking?), then `npm run contract:update` and commit openapi/v1.json',
  );
});
