/**
 * /v1/events — the events feed (EVTLST): the CloudEvents the caller may see, in commit order, for consumers
 * that poll instead of receiving webhooks. Visibility is the back-end's (src/backend/caller.ts eventAudience);
 * `data` has the caller's role's field lists (src/resources/event.ts).
 */
import { Type } from 'typebox';
import { EVENT_TYPES } from '../../backend/store/journal.ts';
import type { MessageCatalog } from '../../backend/copybooks/index.ts';
import { CloudEventSchema, EventType, readEventList, toCloudEvent } from '../../resources/event.ts';
import { cursorCodec, CursorParam } from '../cursor.ts';
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
    description: 'Pass as `after` to read on; also when `hasMore` is false, to poll for new events later',
  }),
  hasMore: Type.Boolean({ description: 'More events are there now' }),
});

const FeedQuery = Type.Object(
  {
    after: CursorParam('Opaque cursor from `nextCursor`; absent: from the oldest event'),
    type: Type.Optional(EventType),
    limit: pageLimit('EVTLST', 'evtlMaxItems'),
  },
  { additionalProperties: false },
);

const cursor = cursorCodec('e', 'after');

export function eventRoutes(app: Api, { backend, catalog }: RouteDeps & { catalog: MessageCatalog }): void {
  app.addSchema(CloudEventSchema);
  app.route({
    ...fromTable('listEvents'),
    schema: {
      ...protectedErrors(['events'], 'listEvents', 'Read the events the caller may see, in commit order'),
      querystring: FeedQuery,
      response: { 200: { description: 'Success', ...EventPage }, ...STANDARD_ERRORS },
    },
    handler: async (req) => {
      const q = req.query;
      const out = await backend.call('EVTLST', req, {
        evtlAfterPosition: q.after ? cursor.decode(q.after) : 0,
        evtlTypeFilter: q.type ?? '',
        evtlMaxItems: pageSizeOf(q.limit),
      });
      const list = readEventList(catalog, out.body, out.segments);
      const role = req.principal!.role;
      return {
        items: list.items.map((item) => toCloudEvent(item, role)),
        nextCursor: cursor.encode(list.lastPosition),
        hasMore: list.more,
      };
    },
  });
}
