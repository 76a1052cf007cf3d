/**
 * /v1/events — the events feed (EVTLST): the CloudEvents the caller may see, in commit order, for consumers
 * that poll instead of receiving webhooks. Visibility is the back-end's (src/backend/caller.ts eventAudience);
 * `data` has the caller's role's field lists (src/resources/event.ts).
 */
import { Type } from 'typebox';
import { EVENT_TYPES } from '../../backend/store/journal.ts';
import type { MessageCatalog } from '../../backend/copybooks/index.ts';
import { CloudEventSchema, EventType, readEventList, toCloudEvent } from '../../resources/event.ts';
import { ApiError } from '../../errors.ts';
import { cursorCodec, CursorParam } from '../cursor.ts';
import { deprecationHeaders } from '../plugins/deprecation.ts';
import { pageLimit, pageSizeOf } from '../../resources/schemas/page.ts';
import { Customer } from '../../resources/customer.ts';
import { LoanDecision } from '../../resources/loan.ts';
import { Order } from '../../resources/order.ts';
import { Payment } from '../../resources/payment.ts';
import { fromTable, protectedErrors, STANDARD_ERRORS, type Api, type RouteDeps } from './common.ts';

/** The resource schema of each event type's `data` (as GET on its path answers). */
const DATA_OF: Record<(typeof EVENT_TYPES)[number], object> = {
  OrderConfirmed: Order,
  OrderRejected: Order,
  OrderUpdated: Order,
  OrderCancelled: Order,
  PaymentCompleted: Payment,
  PaymentRejected: Payment,
  LoanApproved: LoanDecision,
  LoanRejected: LoanDecision,
  CustomerCreated: Customer,
  CustomerUpdated: Customer,
};

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
    EVENT_TYPES.map((type) => [
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
                  properties: { ...envelope.properties, type: { const: type }, data: DATA_OF[type] },
                },
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
    type: Type.Optional(EventType),
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
      const out = await backend.call('EVTLST', req, {
        evtlAfterPosition: startPosition(q),
        evtlTypeFilter: q.type ?? '',
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
}
