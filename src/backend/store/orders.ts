import type { Tx } from '../../sqlite.ts';

export type OrderStatus = 'CONFIRMED' | 'REJECTED' | 'CANCELLED';

export interface Order {
  seq: number;
  orderId: string;
  status: OrderStatus;
  rejectReason: string | null;
  customerId: string;
  productId: string;
  quantity: number;
  /** Minor units. */
  amount: number;
  currency: string;
  createdBy: string;
  idempotencyKey: string | null;
  correlationId: string;
  createdAt: string;
  updatedAt: string;
  version: number;
}

function fromRow(row: Record<string, unknown>): Order {
  return {
    seq: Number(row['seq']),
    orderId: String(row['order_id']),
    status: String(row['status']) as OrderStatus,
    rejectReason: row['reject_reason'] == null ? null : String(row['reject_reason']),
    customerId: String(row['customer_id']),
    productId: String(row['product_id']),
    quantity: Number(row['quantity']),
    amount: Number(row['amount']),
    currency: String(row['currency']),
    createdBy: String(row['created_by']),
    idempotencyKey: row['idempotency_key'] == null ? null : String(row['idempotency_key']),
    correlationId: String(row['correlation_id']),
    createdAt: String(row['created_at']),
    updatedAt: String(row['updated_at']),
    version: Number(row['version']),
  };
}

export function findOrder(tx: Tx, orderId: string): Order | undefined {
  const row = tx.statement('SELECT * FROM orders WHERE order_id = ?').get(orderId);
  return row ? fromRow(row) : undefined;
}

export function findOrderByIdempotencyKey(tx: Tx, createdBy: string, key: string): Order | undefined {
  const row = tx.statement('SELECT * FROM orders WHERE created_by = ? AND idempotency_key = ?').get(createdBy, key);
  return row ? fromRow(row) : undefined;
}

/** Sum of the customer's CONFIRMED orders, minor units. */
export function openOrderTotal(tx: Tx, customerId: string): number {
  const row = tx
    .statement("SELECT COALESCE(SUM(amount), 0) AS total FROM orders WHERE customer_id = ? AND status = 'CONFIRMED'")
    .get(customerId);
  return Number(row?.['total'] ?? 0);
}

export function insertOrder(tx: Tx, o: Omit<Order, 'seq'>): Order {
  tx.statement(
    `INSERT INTO orders (order_id, status, reject_reason, customer_id, product_id, quantity, amount, currency,
       created_by, idempotency_key, correlation_id, created_at, updated_at, version)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    o.orderId, o.status, o.rejectReason, o.customerId, o.productId, o.quantity, o.amount, o.currency, o.createdBy,
    o.idempotencyKey, o.correlationId, o.createdAt, o.updatedAt, o.version,
  );
  return findOrder(tx, o.orderId)!;
}

export function saveOrder(tx: Tx, o: Order): void {
  tx.statement(
    `UPDATE orders SET status = ?, reject_reason = ?, product_id = ?, quantity = ?, amount = ?, currency = ?,
       updated_at = ?, version = ? WHERE order_id = ?`,
  ).run(o.status, o.rejectReason, o.productId, o.quantity, o.amount, o.currency, o.updatedAt, o.version, o.orderId);
}

export interface OrderFilter {
  customerId?: string;
  createdBy?: string;
  status?: string;
  afterSeq: number;
  limit: number;
}

export function listOrders(tx: Tx, f: OrderFilter): Order[] {
  const rows = tx
    .statement(
      `SELECT * FROM orders
       WHERE seq > ? AND (? IS NULL OR customer_id = ?) AND (? IS NULL OR created_by = ?) AND (? IS NULL OR status = ?)
       ORDER BY seq LIMIT ?`,
    )
    .all(
      f.afterSeq, f.customerId ?? null, f.customerId ?? null, f.createdBy ?? null, f.createdBy ?? null,
      f.status ?? null, f.status ?? null, f.limit,
    );
  return rows.map(fromRow);
}
