/** Order transactions: ORDCRT create, ORDINQ inquire, ORDLST list, ORDUPD update, ORDCAN cancel. */
import { maySeeCustomer, maySeeOrder, type Caller } from '../caller.ts';
import { newId } from '../ids.ts';
import { RC } from '../message.ts';
import { fromMinorUnits } from '../money.ts';
import { fail, field, ok, rejected, type Program, type ProgramContext } from '../program.ts';
import { findCustomer } from '../store/customers.ts';
import { writeAudit, writeEvent, type EventType } from '../store/journal.ts';
import {
  findOrder, findOrderByIdempotencyKey, insertOrder, listOrders, openOrderTotal, saveOrder, type Order,
} from '../store/orders.ts';
import { adjustStock, lockProducts } from '../store/products.ts';

const MAX_QUANTITY = 100;

export function orderRecord(o: Order): Record<string, unknown> {
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

function reply(o: Order) {
  return o.status === 'REJECTED' ? rejected(o.rejectReason ?? '', orderRecord(o)) : ok(orderRecord(o));
}

/** `forUpdate` for a change: the order is locked first, then its customer, then products (see Tx.forUpdate). */
async function visibleOrder(ctx: ProgramContext, orderId: string, options: { forUpdate?: boolean } = {}): Promise<Order | undefined> {
  const order = await findOrder(ctx.tx, orderId, options);
  return order && maySeeOrder(ctx.caller, order) ? order : undefined;
}

async function audit(ctx: ProgramContext, orderId: string, action: string): Promise<void> {
  await writeAudit(ctx.tx, {
    tranCode: ctx.tranCode, entity: 'order', entityId: orderId, action, principal: ctx.caller.principal,
    correlationId: ctx.correlationId, at: ctx.now,
  });
}

/** The order's event, with the order as it now is. */
async function raise(ctx: ProgramContext, type: EventType, o: Order): Promise<void> {
  await writeEvent(ctx, {
    type, resource: 'order', subject: o.orderId, ownerCustomerId: o.customerId, createdBy: o.createdBy, recordName: 'ORDREC', record: orderRecord(o),
  });
}

/** A customer may order for themselves; partners and staff for any existing customer. */
function mayOrderFor(caller: Caller, customerId: string): boolean {
  return maySeeCustomer(caller, customerId);
}

export const createOrder: Program = async (ctx, req) => {
  const { tx, caller } = ctx;
  if (ctx.idempotencyKey) {
    const earlier = await findOrderByIdempotencyKey(tx, caller.principal, ctx.idempotencyKey);
    if (earlier) return reply(earlier);
  }
  const customerId = field(req, 'ordcCustomerId');
  const productId = field(req, 'ordcProductId');
  const quantity = Number(req['ordcQuantity']);
  if (!Number.isInteger(quantity) || quantity < 1 || quantity > MAX_QUANTITY) {
    return fail(RC.INVALID_INPUT, 'QUANTITY_OUT_OF_RANGE', `quantity must be between 1 and ${MAX_QUANTITY}`);
  }
  // The customer's row is the lock for the credit check: two orders of one customer decide one after the other.
  const customer = await findCustomer(tx, customerId, { forUpdate: true });
  if (!customer || !mayOrderFor(caller, customerId)) {
    return fail(RC.NOT_FOUND, 'CUSTOMER_NOT_FOUND', `customer ${customerId} not found`);
  }
  const product = (await lockProducts(tx, [productId])).get(productId);
  let status: Order['status'] = 'CONFIRMED';
  let reason: string | null = null;
  const amount = product ? product.unitPrice * quantity : 0;
  if (!product) reason = 'UNKNOWN_PRODUCT';
  else if (product.stock < quantity) reason = 'OUT_OF_STOCK';
  else if (await openOrderTotal(tx, customerId) + amount > customer.creditLimit) reason = 'CREDIT_LIMIT_EXCEEDED';
  if (reason) status = 'REJECTED';
  else await adjustStock(tx, productId, -quantity);
  const order = await insertOrder(tx, {
    orderId: newId('ORD'), status, rejectReason: reason, customerId, productId, quantity, amount,
    currency: product?.currency ?? customer.currency, createdBy: caller.principal,
    idempotencyKey: ctx.idempotencyKey || null, correlationId: ctx.correlationId, createdAt: ctx.now,
    updatedAt: ctx.now, version: 1,
  });
  await audit(ctx, order.orderId, status === 'CONFIRMED' ? 'created' : 'rejected');
  await raise(ctx, status === 'CONFIRMED' ? 'OrderConfirmed' : 'OrderRejected', order);
  ctx.log.debug({ orderId: order.orderId, status, reason }, 'order decided');
  return reply(order);
};

export const inquireOrder: Program = async (ctx, req) => {
  const order = await visibleOrder(ctx, field(req, 'ordkOrderId'));
  if (!order) return fail(RC.NOT_FOUND, 'ORDER_NOT_FOUND', 'order not found');
  return ok(orderRecord(order));
};

export const listOrdersProgram: Program = async (ctx, req) => {
  const { caller } = ctx;
  const maxItems = Math.min(Math.max(Number(req['ordlMaxItems']) || 20, 1), 100);
  const wantedCustomer = field(req, 'ordlCustomerId') || undefined;
  // Only what the caller may see: a customer is pinned to themselves, a partner to its own orders.
  if (caller.role === 'CUSTOMER' && wantedCustomer && wantedCustomer !== caller.customerId) {
    return ok({ ordoNextSeq: 0, ordoItemCount: 0, ordoItem: [] });
  }
  const rows = await listOrders(ctx.tx, {
    customerId: caller.role === 'CUSTOMER' ? caller.customerId ?? '-' : wantedCustomer,
    createdBy: caller.role === 'PARTNER' ? caller.principal : undefined,
    status: field(req, 'ordlStatusFilter') || undefined,
    afterSeq: Number(req['ordlAfterSeq']) || 0,
    limit: maxItems + 1,
  });
  const page = rows.slice(0, maxItems);
  const more = rows.length > maxItems;
  return ok({
    ordoNextSeq: more ? page[page.length - 1]!.seq : 0,
    ordoItemCount: page.length,
    ordoItem: page.map((o) => {
      const r = orderRecord(o);
      return Object.fromEntries(Object.entries(r).map(([k, v]) => [`ordo${k.slice(3)}`, v]));
    }),
  });
};

export const updateOrder: Program = async (ctx, req) => {
  const { tx } = ctx;
  const order = await visibleOrder(ctx, field(req, 'orduOrderId'), { forUpdate: true });
  if (!order) return fail(RC.NOT_FOUND, 'ORDER_NOT_FOUND', 'order not found');
  const ifMatch = Number(req['orduIfMatchVersion']) || 0;
  if (ifMatch !== 0 && ifMatch !== order.version) {
    return fail(RC.STALE_VERSION, 'VERSION_MISMATCH', `order is at version ${order.version}`);
  }
  if (order.status !== 'CONFIRMED') {
    return fail(RC.CONFLICT, 'ORDER_NOT_MODIFIABLE', `a ${order.status.toLowerCase()} order cannot be changed`);
  }
  const productId = field(req, 'orduProductId');
  const quantity = Number(req['orduQuantity']);
  if (!Number.isInteger(quantity) || quantity < 1 || quantity > MAX_QUANTITY) {
    return fail(RC.INVALID_INPUT, 'QUANTITY_OUT_OF_RANGE', `quantity must be between 1 and ${MAX_QUANTITY}`);
  }
  const customer = await findCustomer(tx, order.customerId, { forUpdate: true });
  if (!customer) return fail(RC.ABEND, 'CUSTOMER_MISSING', 'order without customer');
  const product = (await lockProducts(tx, [order.productId, productId])).get(productId);
  if (!product) return fail(RC.RULE_FAILED, 'UNKNOWN_PRODUCT', `product ${productId} does not exist`);
  const available = product.stock + (product.productId === order.productId ? order.quantity : 0);
  if (available < quantity) return fail(RC.RULE_FAILED, 'OUT_OF_STOCK', `only ${available} in stock`);
  const amount = product.unitPrice * quantity;
  if (await openOrderTotal(tx, order.customerId) - order.amount + amount > customer.creditLimit) {
    return fail(RC.RULE_FAILED, 'CREDIT_LIMIT_EXCEEDED', 'the change exceeds the customer order credit limit');
  }
  await adjustStock(tx, order.productId, order.quantity);
  await adjustStock(tx, product.productId, -quantity);
  const updated: Order = {
    ...order, productId, quantity, amount, currency: product.currency, updatedAt: ctx.now, version: order.version + 1,
  };
  await saveOrder(tx, updated);
  await audit(ctx, order.orderId, 'updated');
  await raise(ctx, 'OrderUpdated', updated);
  return ok(orderRecord(updated));
};

export const cancelOrder: Program = async (ctx, req) => {
  const order = await visibleOrder(ctx, field(req, 'ordkOrderId'), { forUpdate: true });
  if (!order) return fail(RC.NOT_FOUND, 'ORDER_NOT_FOUND', 'order not found');
  if (order.status === 'CANCELLED') return ok(orderRecord(order));
  if (order.status === 'REJECTED') return fail(RC.CONFLICT, 'ORDER_NOT_CANCELLABLE', 'a rejected order cannot be cancelled');
  await adjustStock(ctx.tx, order.productId, order.quantity);
  const cancelled: Order = { ...order, status: 'CANCELLED', updatedAt: ctx.now, version: order.version + 1 };
  await saveOrder(ctx.tx, cancelled);
  await audit(ctx, order.orderId, 'cancelled');
  await raise(ctx, 'OrderCancelled', cancelled);
  return ok(orderRecord(cancelled));
};
