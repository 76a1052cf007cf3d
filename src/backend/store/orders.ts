import type { Tx } from './tx.ts';

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

/** `forUpdate`: locked until the transaction ends, for a change that depends on what was read (its version, its status). */
export async function findOrder(tx: Tx, orderId: string, options: { forUpdate?: boolean } = {}): Promise<Order | undefined> {
  const row = await tx.get(`SELECT * FROM orders WHERE order_id = ?${options.forUpdate ? tx.forUpdate : ''}`, orderId);
  return row ? fromRow(row) : undefined;
}

export async function findOrderByIdempotencyKey(tx: Tx, createdBy: string, key: string): Promise<Order | undefined> {
  const row = await tx.get('SELECT * FROM orders WHERE created_by = ? AND idempotency_key = ?', createdBy, key);
  return row ? fromRow(row) : undefined;
}

/** Sum of the customer's CONFIRMED orders, minor units. */
export async function openOrderTotal(tx: Tx, customerId: string): Promise<number> {
  const row = await tx.get(
    "SELECT COALESCE(SUM(amount), 0) AS total FROM orders WHERE customer_id = ? AND status = 'CONFIRMED'", customerId,
  );
  return Number(row?.['total'] ?? 0);
}

export async function insertOrder(tx: Tx, o: Omit<Order, 'seq'>): Promise<Order> {
  await tx.run(
    `INSERT INTO orders (order_id, status, reject_reason, customer_id, product_id, quantity, amount, currency,
       created_by, idempotency_key, correlation_id, created_at, updated_at, version)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    o.orderId, o.status, o.rejectReason, o.customerId, o.productId, o.quantity, o.amount, o.currency, o.createdBy,
    o.idempotencyKey, o.correlationId, o.createdAt, o.updatedAt, o.version,
  );
  return (await findOrder(tx, o.orderId))!;
}

export async function saveOrder(tx: Tx, o: Order): Promise<void> {
  await tx.run(
    `UPDATE orders SET status = ?, reject_reason = ?, product_id = ?, quantity = ?, amount = ?, currency = ?,
       updated_at = ?, version = ? WHERE order_id = ?`,
    o.status, o.rejectReason, o.productId, o.quantity, o.amount, o.currency, o.updatedAt, o.version, o.orderId,
  );
}

export interface OrderFilter {
  customerId?: string;
  createdBy?: string;
  status?: string;
  afterSeq: number;
  limit: number;
}

export async function listOrders(tx: Tx, f: OrderFilter): Promise<Order[]> {
  // CAST: PostgreSQL must know a parameter's type to test it for NULL.
  const rows = await tx.all(
    `SELECT * FROM orders
     WHERE seq > ? AND (CAST(? AS TEXT) IS NULL OR customer_id = ?) AND (CAST(? AS TEXT) IS NULL OR created_by = ?)
       AND (CAST(? AS TEXT) IS NULL OR status = ?)
     ORDER BY seq LIMIT ?`,
    f.afterSeq, f.customerId ?? null, f.customerId ?? null, f.createdBy ?? null, f.createdBy ?? null,
    f.status ?? null, f.status ?? null, f.limit,
  );
  return rows.map(fromRow);
}
