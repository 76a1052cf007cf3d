/**
 * /v1/events — the events feed (EVTLST): the CloudEvents the caller may see, in commit order, for consumers
 * that poll instead of receiving webhooks. Visibility is the back-end's (src/backend/caller.ts eventAudience);
 * `data` has the caller's role's field lists (src/events/cloud-event.ts).
 */
import { Type, type Static } from 'typebox';
import { EVENT_TYPES } from '../../backend/store/journal.ts';
import type { MessageCatalog } from '../../backend/copybooks/index.ts';
import { readEventList, toCloudEvent } from '../../events/cloud-event.ts';
import { cursorCodec, CursorParam } from '../cursor.ts';
import { Timestamp } from '../schemas/common.ts';
import { pageLimit, pageSizeOf } from '../schemas/page.ts';
import { Customer } from './customers.ts';
import { LoanDecision } from './loans.ts';
import { Order } from './orders.ts';
import { Payment } from './payments.ts';
import { fromTable, protectedErrors, STANDARD_ERRORS, type Api, type RouteDeps } from './common.ts';

export const EventType = Type.Union(EVENT_TYPES.map((t) => Type.Literal(t)), { description: 'What happened, in the past tense' });

export const CloudEventSchema = Type.Object({
  specversion: Type.Literal('1.0'),
  id: Type.String({ format: 'uuid', description: 'The same on every delivery of the event: deduplicate by it' }),
  type: EventType,
  source: Type.String({ description: 'The API collection of the resource, e.g. /v1/orders; source + "/" + subject is its path', examples: ['/v1/orders'] }),
  subject: Type.String({ description: 'The resource id', examples: ['ORD-9D910462994C28C3'] }),
  time: Timestamp,
  datacontenttype: Type.Literal('application/json'),
  correlationid: Type.String({ description: 'X-Request-ID of the request that made the change' }),
  sequence: Type.String({ pattern: '^[0-9]{15}$', description: 'Position in commit order, zero-padded: text order is commit order' }),
  data: Type.Record(Type.String(), Type.Unknown(), {
    description: 'The resource as GET on its path returns it to the receiver\'s role: an Order, Payment, LoanDecision or Customer',
  }),
}, { $id: 'CloudEvent', description: 'A CloudEvents 1.0 JSON envelope' });
export type CloudEventBody = Static<typeof CloudEventSchema>;

/** The resource schema of each event type's `data` (as GET on its path answers). */
const DATA_OF: Record<(typeof EVENT_TYPES)[number], object> = {
  OrderConfirmed: Order, OrderRejected: Order, OrderUpdated: Order, OrderCancelled: Order,
  PaymentCompleted: Payment, PaymentRejected: Payment, LoanApproved: LoanDecision, LoanRejected: LoanDecision,
  CustomerCreated: Customer, CustomerUpdated: Customer,
};

const WEBHOOK_HEADERS = [
  { name: 'webhook-id', description: 'The event id: the same on every attempt; deduplicate by it' },
  { name: 'webhook-timestamp', description: 'Seconds since the epoch when this attempt was signed; refuse old ones' },
  { name: 'webhook-signature', description: '`v1,` and the base64 HMAC-SHA256 of `id.timestamp.body` with the subscription secret (Standard Webhooks)' },
];

/** The OpenAPI `webhooks` section: what Corebridge POSTs to a subscription's URL, per event type. */
export function eventWebhooks(): Record<string, object> {
  const { $id: _id, ...envelope } = CloudEventSchema as unknown as Record<string, unknown> & { properties: Record<string, unknown> };
  return Object.fromEntries(EVENT_TYPES.map((type) => [type, {
    post: {
      operationId: `webhook${type}`,
      summary: `${type}, to a subscription's URL`,
      description: 'Signed per Standard Webhooks (verify with the standardwebhooks package). Answer 2xx within 10 s once stored; '
        + 'anything else is tried again (Retry-After is honoured); 410 disables the subscription.',
      parameters: WEBHOOK_HEADERS.map((h) => ({ in: 'header', required: true, schema: { type: 'string' }, ...h })),
      requestBody: {
        required: true,
        content: { 'application/json': { schema: { ...envelope, properties: { ...envelope.properties, type: { const: type }, data: DATA_OF[type] } } } },
      },
      responses: { 200: { description: 'Received' }, 410: { description: 'Gone: disable the subscription' } },
    },
  }]));
}

const EventPage = Type.Object({
  items: Type.Array(Type.Ref('CloudEvent')),
  nextCursor: Type.String({ description: 'Pass as `after` to read on; also when `hasMore` is false, to poll for new events later' }),
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
      return { items: list.items.map((item) => toCloudEvent(item, role)), nextCursor: cursor.encode(list.lastPosition), hasMore: list.more };
    },
  });
}
