/**
 * /v1/events — the events feed (EVTLST): the CloudEvents the caller may see, in commit order, for consumers
 * that poll instead of receiving webhooks. Visibility is the back-end's (src/backend/caller.ts eventAudience);
 * `data` has the caller's role's field lists (src/resources/event.ts).
 */
import { Type } from 'typebox';
import { EVENT_TYPES } from '../../backend/store/journal.ts';
import type { MessageCatalog } from '../../backend/copybooks/index.ts';
import { CloudEventSchema, EventType, exampleEvent, readEventList, toCloudEvent } from '../../resources/event.ts';
import { ApiError } from '../../errors.ts';
import { cursorCodec, CursorParam } from '../cursor.ts';
import { deprecationHeaders } from '../plugins/deprecation.ts';
import { pageLimit, pageSizeOf } from '../../resources/schemas/page.ts';
import { Customer } from '../../resources/customer.ts';
import { APPROVED_LOAN_EXAMPLE, LoanDecision, REJECTED_LOAN_EXAMPLE } from '../../resources/loan.ts';
import { CONFIRMED_ORDER_EXAMPLE, Order, REJECTED_ORDER_EXAMPLE } from '../../resources/order.ts';
import { COMPLETED_PAYMENT_EXAMPLE, Payment, REJECTED_PAYMENT_EXAMPLE } from '../../resources/payment.ts';
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

/** Each event type's example: a resource of that story (a PaymentCompleted carries no failure reason). */
const customerExample = { customerId: '1001', name: 'Ada Lovelace', email: 'ada@example.com' };
const orderExample = (data: Order, type: string) => exampleEvent(type, '/v1/orders', data.orderId, data);
const EXAMPLE_OF: Record<(typeof EVENT_TYPES)[number], object> = {
  OrderConfirmed: orderExample(CONFIRMED_ORDER_EXAMPLE, 'OrderConfirmed'),
  OrderRejected: orderExample(REJECTED_ORDER_EXAMPLE, 'OrderRejected'),
  OrderUpdated: orderExample(
    { ...CONFIRMED_ORDER_EXAMPLE, quantity: 3, amount: 149.7, updatedAt: '2026-11-28T09:45:00.000Z' },
    'OrderUpdated',
  ),
  OrderCancelled: orderExample(
    { ...CONFIRMED_ORDER_EXAMPLE, status: 'CANCELLED', updatedAt: '2026-11-28T10:00:00.000Z' },
    'OrderCancelled',
  ),
  PaymentCompleted: exampleEvent(
    'PaymentCompleted',
    '/v1/payments',
    COMPLETED_PAYMENT_EXAMPLE.paymentId,
    COMPLETED_PAYMENT_EXAMPLE,
  ),
  PaymentRejected: exampleEvent(
    'PaymentRejected',
    '/v1/payments',
    REJECTED_PAYMENT_EXAMPLE.paymentId,
    REJECTED_PAYMENT_EXAMPLE,
  ),
  LoanApproved: exampleEvent(
    'LoanApproved',
    '/v1/loan-applications',
    APPROVED_LOAN_EXAMPLE.loanId,
    APPROVED_LOAN_EXAMPLE,
  ),
  LoanRejected: exampleEvent(
    'LoanRejected',
    '/v1/loan-applications',
    REJECTED_LOAN_EXAMPLE.loanId,
    REJECTED_LOAN_EXAMPLE,
  ),
  CustomerCreated: exampleEvent('CustomerCreated', '/v1/customers', '1001', customerExample),
  CustomerUpdated: exampleEvent('CustomerUpdated', '/v1/customers', '1001', customerExample),
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
                example: EXAMPLE_OF[type],
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
