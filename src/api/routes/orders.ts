/** /v1/orders: create, read, list, update, cancel — translated to ORDCRT/ORDINQ/ORDLST/ORDUPD/ORDCAN. */
import { Type, type Static } from 'typebox';
import { assertMayNameCustomer } from '../plugins/auth.ts';
import { etagOf, noneMatchHolds, requiredIfMatch } from '../conditional.ts';
import { cursorCodec, CursorParam } from '../cursor.ts';
import {
  CONFIRMED_ORDER_EXAMPLE,
  Order,
  OrderList,
  REJECTED_ORDER_EXAMPLE,
  OrderStatus,
  orderForRole,
  orderFromListItem,
  orderFromRecord,
} from '../../resources/order.ts';
import { problem } from '../schemas/problem.ts';
import { CustomerId, idempotencyKeyHeader, OrderId, ProductId } from '../../resources/schemas/common.ts';
import { recordInteger } from '../../resources/schemas/record-field.ts';
import { pageLimit, pageSizeOf } from '../../resources/schemas/page.ts';
import type { OrderRecord } from '../../backend/copybooks/index.ts';
import { fromTable, protectedErrors, STANDARD_ERRORS, type Api, type RouteDeps } from './common.ts';

export const Quantity = recordInteger('ORDCRT', 'ordcQuantity', {
  minimum: 1,
  maximum: 100,
  description: 'Units ordered, 1 to 100',
});

export const OrderRequest = Type.Object(
  { customerId: CustomerId, productId: ProductId, quantity: Quantity },
  {
    additionalProperties: false,
    examples: [
      {
        customerId: CONFIRMED_ORDER_EXAMPLE.customerId,
        productId: CONFIRMED_ORDER_EXAMPLE.productId,
        quantity: CONFIRMED_ORDER_EXAMPLE.quantity,
      },
    ],
  },
);
export type OrderRequest = Static<typeof OrderRequest>;

export const OrderUpdateRequest = Type.Object(
  { productId: ProductId, quantity: Quantity },
  { additionalProperties: false, examples: [{ productId: 'P-100', quantity: 3 }] },
);
export type OrderUpdateRequest = Static<typeof OrderUpdateRequest>;

const OrderParams = Type.Object({ orderId: OrderId }, { additionalProperties: false });

// Query values are strings (no coercion): numbers are checked by pattern and parsed here.
const ListQuery = Type.Object(
  {
    customerId: Type.Optional(CustomerId),
    status: Type.Optional(OrderStatus),
    limit: pageLimit('ORDLST', 'ordlMaxItems'),
    cursor: CursorParam('Opaque cursor from `nextCursor`'),
  },
  { additionalProperties: false },
);

const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(idempotencyKeyHeader('order-2c8d1e5f-6a47-4b39-9f0e-d3a2b7c4e815')),
});
const IfMatchHeaders = Type.Object({
  'if-match': Type.String({
    description:
      'ETag of the order as read (strong comparison), or `*` to change it whatever its version. Without it: 428.',
  }),
});
const IfNoneMatchHeaders = Type.Object({
  'if-none-match': Type.Optional(
    Type.String({ description: 'ETag of the copy the client holds: 304 while it is current' }),
  ),
});

const cursor = cursorCodec('o', 'cursor');

function etag(r: OrderRecord): string {
  return etagOf(r.ordVersion);
}

export function orderRoutes(app: Api, { backend }: RouteDeps): void {
  app.route({
    ...fromTable('createOrder', ['etag']),
    schema: {
      ...protectedErrors(['orders'], 'createOrder', 'Create an order'),
      headers: IdempotencyHeaders,
      body: OrderRequest,
      response: {
        201: { description: 'Order confirmed', ...Order, examples: [CONFIRMED_ORDER_EXAMPLE] },
        200: {
          description: 'Order rejected by the back-end (status REJECTED, see reason)',
          ...Order,
          examples: [REJECTED_ORDER_EXAMPLE],
        },
        ...STANDARD_ERRORS,
      },
    },
    handler: async (req, reply) => {
      assertMayNameCustomer(req.principal, req.body.customerId);
      const out = await backend.call(
        'ORDCRT',
        req,
        {
          ordcCustomerId: req.body.customerId,
          ordcProductId: req.body.productId,
          ordcQuantity: req.body.quantity,
        },
        { ordcCustomerId: '/customerId', ordcProductId: '/productId', ordcQuantity: '/quantity' },
      );
      const order = orderForRole(orderFromRecord(out.body), req.principal?.role);
      if (out.rejected) return reply.code(200).send(order);
      return reply
        .code(201)
        .header('location', `/v1/orders/${order.orderId}`)
        .header('etag', etag(out.body))
        .send(order);
    },
  });

  app.route({
    ...fromTable('getOrder', ['etag']),
    schema: {
      ...protectedErrors(['orders'], 'getOrder', 'Read an order'),
      params: OrderParams,
      headers: IfNoneMatchHeaders,
      response: {
        200: { description: 'Success', ...Order, examples: [CONFIRMED_ORDER_EXAMPLE] },
        304: { description: 'Not modified: the If-None-Match ETag is the current version', type: 'null' },
        ...STANDARD_ERRORS,
      },
    },
    handler: async (req, reply) => {
      const out = await backend.call('ORDINQ', req, { ordkOrderId: req.params.orderId });
      const tag = etag(out.body);
      if (noneMatchHolds(req.headers['if-none-match'], tag)) return reply.code(304).header('etag', tag).send();
      return reply.header('etag', tag).send(orderForRole(orderFromRecord(out.body), req.principal?.role));
    },
  });

  app.route({
    ...fromTable('listOrders'),
    schema: {
      ...protectedErrors(['orders'], 'listOrders', 'List the orders the caller may see'),
      querystring: ListQuery,
      response: {
        200: {
          description: 'Success',
          ...OrderList,
          examples: [{ items: [CONFIRMED_ORDER_EXAMPLE, REJECTED_ORDER_EXAMPLE], nextCursor: null }],
        },
        ...STANDARD_ERRORS,
      },
    },
    handler: async (req) => {
      const q = req.query;
      const out = await backend.call('ORDLST', req, {
        ordlCustomerId: q.customerId ?? '',
        ordlStatusFilter: q.status ?? '',
        ordlMaxItems: pageSizeOf(q.limit),
        ordlAfterSeq: q.cursor ? cursor.decode(q.cursor) : 0,
      });
      const items = out.body.ordoItem.slice(0, out.body.ordoItemCount);
      const next = out.body.ordoNextSeq;
      return {
        items: items.map((item) => orderForRole(orderFromListItem(item), req.principal?.role)),
        nextCursor: next > 0 ? cursor.encode(next) : null,
      };
    },
  });

  app.route({
    ...fromTable('updateOrder', ['etag']),
    schema: {
      ...protectedErrors(['orders'], 'updateOrder', 'Change the product or quantity of a confirmed order'),
      params: OrderParams,
      headers: IfMatchHeaders,
      body: OrderUpdateRequest,
      response: {
        200: {
          description: 'Success',
          ...Order,
          examples: [{ ...CONFIRMED_ORDER_EXAMPLE, quantity: 3, amount: 149.7, updatedAt: '2026-11-28T09:45:00.000Z' }],
        },
        ...STANDARD_ERRORS,
        409: problem('The order cannot be changed (cancelled or rejected)'),
        412: problem('If-Match names no current version of the order (an older one, a weak ETag, or "0")'),
        422: problem('A business rule refuses the change; the order is unchanged'),
        428: problem('If-Match is missing: read the order and send its ETag'),
      },
    },
    // Before validation too, so a missing If-Match answers 428 rather than a schema violation.
    preValidation: async (req) => {
      requiredIfMatch(req.headers['if-match'], 'order');
    },
    handler: async (req, reply) => {
      const ifMatch = requiredIfMatch(req.headers['if-match'], 'order');
      const out = await backend.call(
        'ORDUPD',
        req,
        {
          orduOrderId: req.params.orderId,
          orduProductId: req.body.productId,
          orduQuantity: req.body.quantity,
          // 0 is the record's "whatever the version" (If-Match: *); a version is compared under the row lock.
          orduIfMatchVersion: ifMatch.kind === 'version' ? ifMatch.version : 0,
        },
        { orduProductId: '/productId', orduQuantity: '/quantity' },
      );
      return reply.header('etag', etag(out.body)).send(orderForRole(orderFromRecord(out.body), req.principal?.role));
    },
  });

  app.route({
    ...fromTable('cancelOrder', ['etag']),
    schema: {
      ...protectedErrors(['orders'], 'cancelOrder', 'Cancel an order (repeating it answers the same)'),
      params: OrderParams,
      response: {
        200: {
          description: 'Success',
          ...Order,
          examples: [{ ...CONFIRMED_ORDER_EXAMPLE, status: 'CANCELLED', updatedAt: '2026-11-28T10:00:00.000Z' }],
        },
        ...STANDARD_ERRORS,
        409: problem('A rejected order cannot be cancelled'),
      },
    },
    handler: async (req, reply) => {
      const out = await backend.call('ORDCAN', req, { ordkOrderId: req.params.orderId });
      return reply.header('etag', etag(out.body)).send(orderForRole(orderFromRecord(out.body), req.principal?.role));
    },
  });
}
