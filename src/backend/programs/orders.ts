/** Order transactions: ORDCRT create, ORDINQ inquire, ORDLST list, ORDUPD update, ORDCAN cancel. */
import { businessRequestHash } from './keyed.ts';
import { maySeeCustomer, maySeeOrder } from '../caller.ts';
import { newId } from '../ids.ts';
import { KEY_REUSED_REASON, RC } from '../message.ts';
import { fromMinorUnits } from '../money.ts';
import type { OrderListResponse, OrderRecord } from '../copybooks/records.ts';
import { decided, fail, ok, replayed, text, type Program, type ProgramContext } from '../program.ts';
import { findCustomer } from '../store/customers.ts';
import { writeAudit, writeEvent, type EventType } from '../store/journal.ts';
import {
  findOrder,
  findOrderByIdempotencyKey,
  insertOrder,
  listOrders,
  openOrderTotal,
  saveOrder,
  type Order,
} from '../store/orders.ts';
import { adjustStock, lockProducts } from '../store/products.ts';
import { pageSize } from './lists.ts';

const MAX_QUANTITY = 100;

/**
 * The credit limit is in the customer's currency and there are no exchange rates here: an order in another
 * currency could not be weighed against it, so it is refused rather than let past the credit check.
 */
const CURRENCY_NOT_SUPPORTED = 'CURRENCY_NOT_SUPPORTED';

export function orderRecord(o: Order): OrderRecord {
  return {
    ordOrderId: o.orderId,
    ordStatus: o.status,
    ordRejectReason: o.rejectReason ?? '',
    ordCustomerId: o.customerId,
    ordProductId: o.productId,
    ordQuantity: o.quantity,
    ordAmount: fromMinorUnits(o.amount),
    ordCurrencyCode: o.currency,
    ordCreatedBy: o.createdBy,
    ordCreatedAt: o.createdAt,
    ordUpdatedAt: o.updatedAt,
    ordVersion: o.version,
  };
}

/** An order as a row of the order list (ORDLSTO's ORDO-ITEM): the fields of its record. */
function orderListItem(o: Order): OrderListResponse['ordoItem'][number] {
  const r = orderRecord(o);
  return {
    ordoOrderId: r.ordOrderId,
    ordoStatus: r.ordStatus,
    ordoRejectReason: r.ordRejectReason,
    ordoCustomerId: r.ordCustomerId,
    ordoProductId: r.ordProductId,
    ordoQuantity: r.ordQuantity,
    ordoAmount: r.ordAmount,
    ordoCurrencyCode: r.ordCurrencyCode,
    ordoCreatedBy: r.ordCreatedBy,
    ordoCreatedAt: r.ordCreatedAt,
    ordoUpdatedAt: r.ordUpdatedAt,
    ordoVersion: r.ordVersion,
  };
}

/** `forUpdate` for a change: the order is locked first, then its customer, then products (see Tx.forUpdate). */
async function visibleOrder(
  ctx: ProgramContext,
  orderId: string,
  options: { forUpdate?: boolean } = {},
): Promise<Order | undefined> {
  const order = await findOrder(ctx.tx, orderId, options);
  return order && maySeeOrder(ctx.caller, order) ? order : undefined;
}

/** The order's event, with the order as it now is. */
async function raise(ctx: ProgramContext, type: EventType, o: Order): Promise<void> {
  await writeEvent(ctx, {
    type,
    resource: 'order',
    subject: o.orderId,
    ownerCustomerId: o.customerId,
    createdBy: o.createdBy,
    recordName: 'ORDREC',
    record: orderRecord(o),
  });
}

/** The request's business fields, canonical (a fixed order, nothing else): what an idempotency key stands for. */
function orderRequestHash(customerId: string, productId: string, quantity: number): string {
  return businessRequestHash([customerId, productId, quantity]);
}

/**
 * Was the earlier order made with this request? Its hash from when it was made: a PUT may have changed the
 * order since. An order from before the hash was kept is compared as it is while unchanged (version 1).
 */
function sameRequest(earlier: Order, requestHash: string): boolean {
  const made =
    earlier.requestHash ??
    (earlier.version === 1 ? orderRequestHash(earlier.customerId, earlier.productId, earlier.quantity) : null);
  return made === null || made === requestHash;
}

export const createOrder: Program<'ORDCRT'> = async (ctx, req) => {
  const { tx, caller } = ctx;
  const customerId = text(req.ordcCustomerId);
  const productId = text(req.ordcProductId);
  const quantity = req.ordcQuantity;
  const requestHash = orderRequestHash(customerId, productId, quantity);
  if (ctx.idempotencyKey) {
    const earlier = await findOrderByIdempotencyKey(tx, caller.principal, ctx.idempotencyKey);
    if (earlier && !sameRequest(earlier, requestHash)) {
      return fail(RC.CONFLICT, KEY_REUSED_REASON, 'this idempotency key was used for a different order');
    }
    if (earlier) return replayed(decided(earlier, orderRecord(earlier)));
  }
  if (!Number.isInteger(quantity) || quantity < 1 || quantity > MAX_QUANTITY) {
    return fail(RC.INVALID_INPUT, 'QUANTITY_OUT_OF_RANGE', `quantity must be between 1 and ${MAX_QUANTITY}`);
  }
  // The customer's row is the lock for the credit check: two orders of one customer decide one after the other.
  // Who may read the customer may order against their credit limit (a partner: its own customers only).
  const customer = await findCustomer(tx, customerId, { forUpdate: true });
  if (!customer || !(await maySeeCustomer(tx, caller, customer))) {
    return fail(RC.NOT_FOUND, 'CUSTOMER_NOT_FOUND', `customer ${customerId} not found`);
  }
  const product = (await lockProducts(tx, [productId])).get(productId);
  let status: Order['status'] = 'CONFIRMED';
  let reason: string | null = null;
  const amount = product ? product.unitPrice * quantity : 0;
  if (!product) reason = 'UNKNOWN_PRODUCT';
  else if (product.currency !== customer.currency) reason = CURRENCY_NOT_SUPPORTED;
  else if (product.stock < quantity) reason = 'OUT_OF_STOCK';
  else if ((await openOrderTotal(tx, customerId, customer.currency)) + amount > customer.creditLimit) {
    reason = 'CREDIT_LIMIT_EXCEEDED';
  }
  if (reason) status = 'REJECTED';
  else await adjustStock(tx, productId, -quantity);
  const order = await insertOrder(tx, {
    orderId: newId('ORD'),
    status,
    rejectReason: reason,
    customerId,
    productId,
    quantity,
    amount,
    currency: product?.currency ?? customer.currency,
    createdBy: caller.principal,
    idempotencyKey: ctx.idempotencyKey || null,
    requestHash,
    correlationId: ctx.correlationId,
    createdAt: ctx.now,
    updatedAt: ctx.now,
    version: 1,
  });
  await writeAudit(ctx, 'order', order.orderId, status === 'CONFIRMED' ? 'created' : 'rejected');
  await raise(ctx, status === 'CONFIRMED' ? 'OrderConfirmed' : 'OrderRejected', order);
  ctx.log.debug({ orderId: order.orderId, status, reason }, 'order decided');
  return decided(order, orderRecord(order));
};

export const inquireOrder: Program<'ORDINQ'> = async (ctx, req) => {
  const order = await visibleOrder(ctx, text(req.ordkOrderId));
  if (!order) return fail(RC.NOT_FOUND, 'ORDER_NOT_FOUND', 'order not found');
  return ok(orderRecord(order));
};

export const listOrdersProgram: Program<'ORDLST'> = async (ctx, req) => {
  const { caller } = ctx;
  const maxItems = pageSize(req.ordlMaxItems);
  const wantedCustomer = text(req.ordlCustomerId) || undefined;
  // Only what the caller may see: a customer is pinned to themselves, a partner to its own orders.
  if (caller.role === 'CUSTOMER' && wantedCustomer && wantedCustomer !== caller.customerId) {
    return ok({ ordoNextSeq: 0, ordoItemCount: 0, ordoItem: [] });
  }
  const rows = await listOrders(ctx.tx, {
    customerId: caller.role === 'CUSTOMER' ? (caller.customerId ?? '-') : wantedCustomer,
    createdBy: caller.role === 'PARTNER' ? caller.principal : undefined,
    status: text(req.ordlStatusFilter) || undefined,
    afterSeq: req.ordlAfterSeq || 0,
    limit: maxItems + 1,
  });
  const page = rows.slice(0, maxItems);
  const more = rows.length > maxItems;
  return ok({
    ordoNextSeq: more ? page[page.length - 1]!.seq : 0,
    ordoItemCount: page.length,
    ordoItem: page.map(orderListItem),
  });
};

export const updateOrder: Program<'ORDUPD'> = async (ctx, req) => {
  const { tx } = ctx;
  const order = await visibleOrder(ctx, text(req.orduOrderId), { forUpdate: true });
  if (!order) return fail(RC.NOT_FOUND, 'ORDER_NOT_FOUND', 'order not found');
  const ifMatch = req.orduIfMatchVersion || 0;
  if (ifMatch !== 0 && ifMatch !== order.version) {
    return fail(RC.STALE_VERSION, 'VERSION_MISMATCH', `order is at version ${order.version}`);
  }
  if (order.status !== 'CONFIRMED') {
    return fail(RC.CONFLICT, 'ORDER_NOT_MODIFIABLE', `a ${order.status.toLowerCase()} order cannot be changed`);
  }
  const productId = text(req.orduProductId);
  const quantity = req.orduQuantity;
  if (!Number.isInteger(quantity) || quantity < 1 || quantity > MAX_QUANTITY) {
    return fail(RC.INVALID_INPUT, 'QUANTITY_OUT_OF_RANGE', `quantity must be between 1 and ${MAX_QUANTITY}`);
  }
  const customer = await findCustomer(tx, order.customerId, { forUpdate: true });
  if (!customer) return fail(RC.ABEND, 'CUSTOMER_MISSING', 'order without customer');
  const product = (await lockProducts(tx, [order.productId, productId])).get(productId);
  if (!product) return fail(RC.RULE_FAILED, 'UNKNOWN_PRODUCT', `product ${productId} does not exist`);
  if (product.currency !== customer.currency) {
    const why = `orders for this customer are in ${customer.currency}, the currency of their credit limit`;
    return fail(RC.RULE_FAILED, CURRENCY_NOT_SUPPORTED, why);
  }
  const available = product.stock + (product.productId === order.productId ? order.quantity : 0);
  if (available < quantity) return fail(RC.RULE_FAILED, 'OUT_OF_STOCK', `only ${available} in stock`);
  const amount = product.unitPrice * quantity;
  // An order in another currency (from before the rule) was never counted against the limit.
  const counted = order.currency === customer.currency ? order.amount : 0;
  if ((await openOrderTotal(tx, order.customerId, customer.currency)) - counted + amount > customer.creditLimit) {
    return fail(RC.RULE_FAILED, 'CREDIT_LIMIT_EXCEEDED', 'the change exceeds the customer order credit limit');
  }
  await adjustStock(tx, order.productId, order.quantity);
  await adjustStock(tx, product.productId, -quantity);
  const updated: Order = {
    ...order,
    productId,
    quantity,
    amount,
    currency: product.currency,
    updatedAt: ctx.now,
    version: order.version + 1,
  };
  await saveOrder(tx, updated);
  await writeAudit(ctx, 'order', order.orderId, 'updated');
  await raise(ctx, 'OrderUpdated', updated);
  return ok(orderRecord(updated));
};

export const cancelOrder: Program<'ORDCAN'> = async (ctx, req) => {
  const order = await visibleOrder(ctx, text(req.ordkOrderId), { forUpdate: true });
  if (!order) return fail(RC.NOT_FOUND, 'ORDER_NOT_FOUND', 'order not found');
  if (order.status === 'CANCELLED') return ok(orderRecord(order));
  if (order.status === 'REJECTED') {
    return fail(RC.CONFLICT, 'ORDER_NOT_CANCELLABLE', 'a rejected order cannot be cancelled');
  }
  await adjustStock(ctx.tx, order.productId, order.quantity);
  const cancelled: Order = { ...order, status: 'CANCELLED', updatedAt: ctx.now, version: order.version + 1 };
  await saveOrder(ctx.tx, cancelled);
  await writeAudit(ctx, 'order', order.orderId, 'cancelled');
  await raise(ctx, 'OrderCancelled', cancelled);
  return ok(orderRecord(cancelled));
};
