import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SerializerSelector, type SerializerFactory } from '@fastify/fast-json-stringify-compiler';
import Fastify from 'fastify';
import { sharedSerializers } from '../../src/api/serializers.ts';

/** fast-json-stringify's factory, counting the serializers it compiles. */
function counting(): { factory: SerializerFactory; compiled: () => number } {
  let compiled = 0;
  const real = SerializerSelector();
  const factory: SerializerFactory = (externalSchemas, options) => {
    const compile = real(externalSchemas, options);
    return (route) => {
      compiled += 1;
      return compile(route);
    };
  };
  return { factory, compiled: () => compiled };
}

test('routes whose responses share a schema share one serializer; other schemas keep their own', async (t) => {
  const { factory, compiled } = counting();
  const app = Fastify({ schemaController: { compilersFactory: { buildSerializer: sharedSerializers(factory) } } });
  t.after(() => app.close());
  app.addSchema({
    $id: 'Problem',
    type: 'object',
    properties: {
      code: {
        anyOf: [
          { const: 'NOT_FOUND', type: 'string' },
          { const: 'CONFLICT', type: 'string' },
        ],
      },
      status: { type: 'integer' },
    },
  });
  const problem = () => ({ $ref: 'Problem#' });
  for (const name of ['a', 'b', 'c']) {
    app.get(
      `/${name}`,
      {
        schema: {
          response: {
            200: { type: 'object', properties: { [name]: { type: 'integer' } } },
            404: problem(),
            409: problem(),
          },
        },
      },
      async (req, reply) => {
        const status = (req.query as { status?: string }).status;
        if (status === '404') return reply.code(404).send({ code: 'NOT_FOUND', status: 404, secret: 'dropped' });
        if (status === '409') return reply.code(409).send({ code: 'CONFLICT', status: 409 });
        return { [name]: 7, other: 'dropped' };
      },
    );
  }
  await app.ready();

  // Three success schemas and one Problem for six error statuses.
  assert.equal(compiled(), 4);
  for (const name of ['a', 'b', 'c']) {
    const ok = await app.inject({ url: `/${name}` });
    assert.deepEqual(ok.json(), { [name]: 7 }, 'each route serializes with its own success schema');
    const missing = await app.inject({ url: `/${name}?status=404` });
    assert.equal(missing.statusCode, 404);
    assert.deepEqual(
      missing.json(),
      { code: 'NOT_FOUND', status: 404 },
      'the shared serializer drops what Problem does not declare',
    );
    assert.deepEqual((await app.inject({ url: `/${name}?status=409` })).json(), { code: 'CONFLICT', status: 409 });
  }
});
