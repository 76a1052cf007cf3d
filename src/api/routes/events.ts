/**
 * /v1/events — the events feed (EVTLST) and one event (EVTINQ): the CloudEvents the caller may see, in commit
 * order, for consumers that poll instead of receiving webhooks. Who reads which event is the back-end's one rule
 * (src/backend/caller.ts, "Who receives which event"); `data` has the caller's role's field lists
 * (src/resources/event.ts).
 */
import { Type } from 'typebox';
import { ALL_EVENT_TYPES } from '../../backend/store/journal.ts';
import type { MessageCatalog } from '../../backend/copybooks/index.ts';
import { CloudEventSchema, readEventList, toCloudEvent } from '../../resources/event.ts';
import { EVENT_CATALOG } from '../../resources/event-catalog.ts';
import { ApiError } from '../../errors.ts';
import { cursorCodec, CursorParam } from '../cursor.ts';
import { deprecationHeaders } from '../plugins/deprecation.ts';
import { pageLimit, pageSizeOf } from '../../resources/schemas/page.ts';
import { fromTable, protectedErrors, STANDARD_ERRORS, type Api, type RouteDeps } from './common.ts';

const WEBHOOK_HEADERS = [
  { name: 'webhook-id', description: 'The event id: the same on every attempt; deduplicate by it' },
  { name: 'webhook-timestamp', description: 'Seconds since the epoch when this attempt was signed; refuse old ones' },
  {
    name: 'webhook-signature',
    description:
      '`v1,` and the base64 HMAC-SHA256 of `id.timestamp.body` with the subscription secret (Standard Webhooks)',
  },
];

/** The OpenAPI `webhooks` section: what Corebridge POSTs to a subscription's URL, per event type. */
export function eventWebhooks(): Record<string, object> {
  // The envelope's JSON Schema without its $id: each event type's copy is its own.
  const envelope: { properties?: object } = Object.fromEntries(
    Object.entries(CloudEventSchema).filter(([key]) => key !== '$id'),
  );
  return Object.fromEntries(
    EVENT_CATALOG.map(({ type, data, example }) => [
      type,
      {
        post: {
          operationId: `webhook${type}`,
          summary: `${type}, to a subscription's URL`,
          description:
            'Signed per Standard Webhooks (verify with the standardwebhooks package). Answer 2xx within 10 s once stored; ' +
            'anything else is tried again (Retry-After is honoured); 410 disables the subscription.',
          parameters: WEBHOOK_HEADERS.map((h) => ({ in: 'header', required: true, schema: { type: 'string' }, ...h })),
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: {
                  ...envelope,
                  properties: { ...envelope.properties, type: { const: type }, data },
                },
                example,
              },
            },
          },
          responses: { 200: { description: 'Received' }, 410: { description: 'Gone: disable the subscription' } },
        },
      },
    ]),
  );
}

const EventPage = Type.Object({
  items: Type.Array(Type.Ref('CloudEvent')),
  nextCursor: Type.String({
    description: 'Pass as `cursor` to read on; also when `hasMore` is false, to poll for new events later',
  }),
  hasMore: Type.Boolean({ description: 'More events are there now' }),
});

const FeedQuery = Type.Object(
  {
    cursor: CursorParam('Opaque cursor from `nextCursor`; absent: from the oldest event'),
    after: CursorParam('Deprecated: the former name of `cursor`, still read; its answers carry `Deprecation`', {
      deprecated: true,
    }),
    type: Type.Optional(
      Type.String({
        description: `One event type, or several separated by commas; each one of ${ALL_EVENT_TYPES.join(', ')}`,
        examples: ['OrderConfirmed,OrderCancelled'],
      }),
    ),
    since: Type.Optional(
      Type.String({
        format: 'date-time',
        description: 'RFC 3339: only events that happened (`time`) at or after it; combines with `cursor`',
        examples: ['2026-11-28T09:00:00Z'],
      }),
    ),
    limit: pageLimit('EVTLST', 'evtlMaxItems'),
  },
  { additionalProperties: false },
);

const cursor = cursorCodec('e', 'cursor');
const afterAlias = cursorCodec('e', 'after');
/** `after` was the feed's name for `cursor`, before every list used `cursor`/`nextCursor`. */
const AFTER_DEPRECATION = deprecationHeaders({ since: '2026-11-28' });

/** The feed position the query starts after: `cursor`, or its deprecated alias `after`, never both. */
function startPosition(q: { cursor?: string; after?: string }): number {
  if (q.cursor && q.after) {
    throw new ApiError('VALIDATION_FAILED', 'send `cursor` only; `after` is its deprecated name', {
      violations: [{ pointer: '/after', in: 'query', detail: 'is the deprecated name of cursor; send cursor only' }],
    });
  }
  if (q.cursor) return cursor.decode(q.cursor);
  return q.after ? afterAlias.decode(q.after) : 0;
}

/** The `type` filter's names, each an event type: the first that is none is refused. */
function typeFilter(raw: string | undefined): string[] {
  const types = [...new Set((raw ?? '').split(',').filter(Boolean))];
  const unknown = types.find((t) => !(ALL_EVENT_TYPES as readonly string[]).includes(t));
  if (unknown !== undefined) {
    throw new ApiError('VALIDATION_FAILED', `"${unknown}" is not an event type`, {
      violations: [{ pointer: '/type', in: 'query', detail: `"${unknown}" is not an event type` }],
    });
  }
  return types;
}

/**
 * `since` as events store their time (UTC, milliseconds), rounded up: an event is kept when its time is at or
 * after `since`, and one within the same millisecond but before it is not.
 */
function storedSince(raw: string | undefined): string {
  if (!raw) return '';
  const ms = Date.parse(raw);
  if (Number.isNaN(ms)) {
    throw new ApiError('VALIDATION_FAILED', 'since is no RFC 3339 time', {
      violations: [{ pointer: '/since', in: 'query', detail: 'must be an RFC 3339 date-time' }],
    });
  }
  const finer = /\.\d{3}(\d*)/.exec(raw)?.[1] ?? '';
  return new Date(ms + (/[1-9]/.test(finer) ? 1 : 0)).toISOString();
}

const EventParams = Type.Object(
  { eventId: Type.String({ format: 'uuid', description: 'The event id (`id`, the webhook-id header)' }) },
  { additionalProperties: false },
);

export function eventRoutes(app: Api, { backend, catalog }: RouteDeps & { catalog: MessageCatalog }): void {
  app.addSchema(CloudEventSchema);
  app.route({
    ...fromTable('listEvents', ['deprecation']),
    schema: {
      ...protectedErrors(['events'], 'listEvents', 'Read the events the caller may see, in commit order'),
      querystring: FeedQuery,
      response: { 200: { description: 'Success', ...EventPage }, ...STANDARD_ERRORS },
    },
    handler: async (req, reply) => {
      const q = req.query;
      const types = typeFilter(q.type);
      const out = await backend.call('EVTLST', req, {
        evtlAfterPosition: startPosition(q),
        evtlSince: storedSince(q.since),
        evtlTypeCount: types.length,
        evtlTypes: types.map((t) => ({ evtlType: t })),
        evtlMaxItems: pageSizeOf(q.limit),
      });
      const list = readEventList(catalog, out.body, out.segments);
      const role = req.principal!.role;
      if (q.after) reply.headers(AFTER_DEPRECATION);
      return {
        items: list.items.map((item) => toCloudEvent(item, role)),
        nextCursor: cursor.encode(list.lastPosition),
        hasMore: list.more,
      };
    },
  });

  app.route({
    ...fromTable('getEvent'),
    schema: {
      ...protectedErrors(['events'], 'getEvent', 'Read one event the caller may see (another is not found)'),
      params: EventParams,
      response: { 200: { description: 'Success', ...Type.Ref('CloudEvent') }, ...STANDARD_ERRORS },
    },
    handler: async (req) => {
      const out = await backend.call('EVTINQ', req, { evtkEventId: req.params.eventId });
      const [item] = readEventList(catalog, out.body, out.segments).items;
      if (!item) throw new ApiError('NOT_FOUND', 'event not found');
      return toCloudEvent(item, req.principal!.role);
    },
  });
}
