/** The SDK's generated sources follow the committed contract: regenerate with `npm run sdk:types` when this fails. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { test } from 'node:test';
import { generatedSources, idempotencyKeyOperations, readContract } from '../../sdk/scripts/generate-types.ts';
import { IDEMPOTENCY_KEY_OPERATIONS } from '@corebridge/sdk';

test('sdk/src/schema.ts and sdk/src/operations.ts are what `npm run sdk:types` makes of openapi/v1.json', async () => {
  for (const [file, expected] of Object.entries(await generatedSources())) {
    assert.ok(
      readFileSync(file, 'utf8') === expected,
      `${relative(process.cwd(), file)} is stale: run \`npm run sdk:types\` and commit it`,
    );
  }
});

test('the client sends an Idempotency-Key on every operation that declares one, the payment among them', () => {
  const declared = idempotencyKeyOperations(readContract());
  assert.deepEqual(IDEMPOTENCY_KEY_OPERATIONS, declared);
  assert.equal(declared['POST /v1/payments'], 'required');
  assert.equal(declared['POST /v1/customers'], undefined, 'an operation without the header gets no key');
});
