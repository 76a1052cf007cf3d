/** An order as the API shows it: its schema, its view of ORDREC and of a list item, and what each role receives. */
import { Type, type Static } from 'typebox';
import type { Role } from '../auth/roles.ts';
import type { OrderListResponse, OrderRecord } from '../backend/copybooks/index.ts';
import { projectFields, type FieldLists } from './fields.ts';
import { CurrencyCode, CustomerId, Money, OrderId, Timestamp } from './schemas/common.ts';
import { pageOf } from './schemas/page.ts';

export const OrderStatus = Type.Union([Type.Literal('CONFIRMED'), Type.Literal('REJECTED'), Type.Literal('CANCELLED')]);

export const Order = Type.Object({
  orderId: OrderId,
  status: OrderStatus,
  reason: Type.Optional(Type.String({ description: 'Why the order was rejected', examples: ['OUT_OF_STOCK'] })),
  customerId: CustomerId,
  productId: Type.String(),
  quantity: Type.Integer(),
  amount: Money,
  currency: CurrencyCode,
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type Order = Static<typeof Order>;

export const OrderList = pageOf(Order);

/** Examples for the contract: a demo customer's order of a demo product in stock, and one of a product out of stock. */
export const CONFIRMED_ORDER_EXAMPLE: Order = {
  orderId: 'ORD-0A1B2C3D4E5F6789',
  status: 'CONFIRMED',
  customerId: '1001',
  productId: 'P-100',
  quantity: 2,
  amount: 99.8,
  currency: 'EUR',
  createdAt: '2026-11-28T09:30:00.000Z',
  updatedAt: '2026-11-28T09:30:00.000Z',
};
export const REJECTED_ORDER_EXAMPLE: Order = {
  ...CONFIRMED_ORDER_EXAMPLE,
  orderId: 'ORD-1B2C3D4E5F6789A0',
  status: 'REJECTED',
  reason: 'OUT_OF_STOCK',
  productId: 'P-300',
  amount: 20,
};

// Every caller the route table lets in sees the whole order; listed so that a field added to the schema is a
// decision, not an accident.
const ORDER_ALL = [
  'orderId',
  'status',
  'reason',
  'customerId',
  'productId',
  'quantity',
  'amount',
  'currency',
  'createdAt',
  'updatedAt',
] as const;
export const ORDER_FIELDS = { agent: ORDER_ALL, customer: ORDER_ALL, partner: ORDER_ALL } as const satisfies FieldLists;

/** ORDREC → API order. */
export function orderFromRecord(r: OrderRecord): Order {
  const status = r.ordStatus as Order['status'];
  return {
    orderId: r.ordOrderId,
    status,
    ...(status === 'REJECTED' && r.ordRejectReason ? { reason: r.ordRejectReason } : {}),
    customerId: r.ordCustomerId,
    productId: r.ordProductId,
    quantity: r.ordQuantity,
    amount: r.ordAmount,
    currency: r.ordCurrencyCode,
    createdAt: r.ordCreatedAt,
    updatedAt: r.ordUpdatedAt,
  };
}

/** One ORDLSTO item: the same order under the list's own field names. */
export function orderFromListItem(i: OrderListResponse['ordoItem'][number]): Order {
  return orderFromRecord({
    ordOrderId: i.ordoOrderId,
    ordStatus: i.ordoStatus,
    ordRejectReason: i.ordoRejectReason,
    ordCustomerId: i.ordoCustomerId,
    ordProductId: i.ordoProductId,
    ordQuantity: i.ordoQuantity,
    ordAmount: i.ordoAmount,
    ordCurrencyCode: i.ordoCurrencyCode,
    ordCreatedBy: i.ordoCreatedBy,
    ordCreatedAt: i.ordoCreatedAt,
    ordUpdatedAt: i.ordoUpdatedAt,
    ordVersion: i.ordoVersion,
  });
}

/** The order as the caller's role may see it. */
export function orderForRole(order: Order, role: Role | undefined): Order {
  return projectFields(order, ORDER_FIELDS, role) as Order;
}
