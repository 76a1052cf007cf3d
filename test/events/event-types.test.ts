/**
 * GET /v1/event-types and the OpenAPI `webhooks` section come from one list: every type of the section is in the
 * catalogue with the same data schema, and each example's data validates against it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { startApp } from '../helpers/app.ts';

type Json = Record<string, unknown>;
interface Entry {
  type: string;
  description: string;
  dataSchema: Json;
  example: Json & { type: string; data: unknown };
}

const ajv = new Ajv2020({ strict: false, allErrors: true });
// eslint-disable-next-line no-restricted-syntax -- ajv-formats types its default export for CommonJS
(addFormatsModule as unknown as (a: Ajv2020) => void)(ajv);

test('the event-type catalogue is the OpenAPI webhooks section: same types, same data schemas; examples valid', async (t) => {
  const h = await startApp(t);
  // Public: no token, as /openapi.json.
  const res = await h.request({ method: 'GET', url: '/v1/event-types' });
  assert.equal(res.statusCode, 200, res.body);
  const items = (res.json() as { items: Entry[] }).items;
  const catalogue = new Map(items.map((e) => [e.type, e]));

  const contract = (await h.request({ method: 'GET', url: '/openapi.json' })).json() as {
    webhooks: Record<string, { post: { requestBody: { content: Record<string, { schema: Json }> } } }>;
  };
  const webhookTypes = Object.keys(contract.webhooks);
  assert.ok(webhookTypes.includes('WebhookSubscriptionDisabled') && webhookTypes.includes('WebhookTest'));
  assert.deepEqual([...catalogue.keys()].sort(), webhookTypes.sort(), 'the same types, none more');
  for (const type of webhookTypes) {
    const schema = contract.webhooks[type]!.post.requestBody.content['application/json']!.schema;
    const entry = catalogue.get(type)!;
    assert.deepEqual(entry.dataSchema, (schema['properties'] as Json)['data'], `${type}: the same data schema`);
    assert.ok(entry.description.length > 0, `${type} has a description`);
    assert.equal(entry.example.type, type);
    const validate = ajv.compile(entry.dataSchema);
    assert.ok(
      validate(entry.example.data),
      `${type}: its example's data validates: ${ajv.errorsText(validate.errors)}`,
    );
    const envelope = ajv.compile(schema);
    assert.ok(envelope(entry.example), `${type}: its example is a valid event: ${ajv.errorsText(envelope.errors)}`);
  }
  // The subscription events' data never carries a secret.
  for (const type of ['WebhookTest', 'WebhookSubscriptionDisabled']) {
    assert.equal((catalogue.get(type)!.dataSchema['properties'] as Json)['secret'], undefined);
  }
});
