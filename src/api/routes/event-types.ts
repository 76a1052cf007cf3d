/**
 * GET /v1/event-types: every event type with what it tells, the JSON Schema of its `data` and an example, from the
 * list the OpenAPI `webhooks` section is made of (src/resources/event-catalog.ts). Public, as /openapi.json is:
 * it is part of the contract, holds no one's data, and a receiver's build may fetch it without a token.
 */
import { Type, type Static } from 'typebox';
import { EVENT_CATALOG } from '../../resources/event-catalog.ts';
import { EventType } from '../../resources/event.ts';
import type { Api } from './common.ts';

const EventTypeEntry = Type.Object({
  type: EventType,
  description: Type.String(),
  dataSchema: Type.Record(Type.String(), Type.Unknown(), {
    description: "The JSON Schema of the event's `data`, as the OpenAPI `webhooks` section states it",
  }),
  example: Type.Record(Type.String(), Type.Unknown(), { description: 'An event of this type (a CloudEvent)' }),
});

const EventTypeList = Type.Object({ items: Type.Array(EventTypeEntry) });

export function eventTypeRoutes(app: Api): void {
  const body = {
    items: EVENT_CATALOG.map(({ type, description, data, example }) => ({
      type: type as Static<typeof EventType>,
      description,
      dataSchema: { ...data },
      example: { ...example },
    })),
  };
  app.get(
    '/v1/event-types',
    {
      config: { public: true },
      schema: {
        tags: ['events'],
        operationId: 'listEventTypes',
        summary: 'Every event type: what it tells, the JSON Schema of its data, an example (no token needed)',
        security: [],
        response: { 200: { description: 'Success', ...EventTypeList } },
      },
    },
    async (_req, reply) => reply.header('cache-control', 'public, max-age=300').send(body),
  );
}
