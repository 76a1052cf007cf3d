import type { SqlValue, Tx } from './tx.ts';

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
  /** The hash of the request the order was made with (customer, product, quantity); null for older orders. */
  requestHash: string | null;
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
    requestHash: row['request_hash'] == null ? null : String(row['request_hash']),
    correlationId: String(row['correlation_id']),
    createdAt: String(row['created_at']),
    updatedAt: String(row['updated_at']),
    version: Number(row['version']),
  };
}

/**
 * `forUpdate`: locked until the transaction ends, for a change that depends on what was read (its version, its status).
 */
export async function findOrder(
  tx: Tx,
  orderId: string,
  options: { forUpdate?: boolean } = {},
): Promise<Order | undefined> {
  const row = await tx.get(`SELECT * FROM orders WHERE order_id = ?${options.forUpdate ? tx.forUpdate : ''}`, orderId);
  return row ? fromRow(row) : undefined;
}

export async function findOrderByIdempotencyKey(tx: Tx, createdBy: string, key: string): Promise<Order | undefined> {
  const row = await tx.get('SELECT * FROM orders WHERE created_by = ? AND idempotency_key = ?', createdBy, key);
  return row ? fromRow(row) : undefined;
}

/** Sum of the customer's CONFIRMED orders in `currency` (that of the credit limit), minor units. */
export async function openOrderTotal(tx: Tx, customerId: string, currency: string): Promise<number> {
  const row = await tx.get(
    "SELECT COALESCE(SUM(amount), 0) AS total FROM orders WHERE customer_id = ? AND status = 'CONFIRMED' AND currency = ?",
    customerId,
    currency,
  );
  return Number(row?.['total'] ?? 0);
}

export async function insertOrder(tx: Tx, o: Omit<Order, 'seq'>): Promise<Order> {
  await tx.run(
    `INSERT INTO orders (order_id, status, reject_reason, customer_id, product_id, quantity, amount, currency,
       created_by, idempotency_key, request_hash, correlation_id, created_at, updated_at, version)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    o.orderId,
    o.status,
    o.rejectReason,
    o.customerId,
    o.productId,
    o.quantity,
    o.amount,
    o.currency,
    o.createdBy,
    o.idempotencyKey,
    o.requestHash,
    o.correlationId,
    o.createdAt,
    o.updatedAt,
    o.version,
  );
  return (await findOrder(tx, o.orderId))!;
}

export async function saveOrder(tx: Tx, o: Order): Promise<void> {
  await tx.run(
    `UPDATE orders SET status = ?, reject_reason = ?, product_id = ?, quantity = ?, amount = ?, currency = ?,
       updated_at = ?, version = ? WHERE order_id = ?`,
    o.status,
    o.rejectReason,
    o.productId,
    o.quantity,
    o.amount,
    o.currency,
    o.updatedAt,
    o.version,
    o.orderId,
  );
}

export interface OrderFilter {
  customerId?: string;
  createdBy?: string;
  status?: string;
  afterSeq: number;
  limit: number;
}

/**
 * Only the conditions of the filters given, parameters in their order: a condition that may be switched off
 * (`? IS NULL OR col = ?`) keeps the planner from the index of its column (orders_by_customer, _by_creator,
 * _by_status, each in seq order).
 */
export async function listOrders(tx: Tx, f: OrderFilter): Promise<Order[]> {
  const conditions = ['seq > ?'];
  const params: SqlValue[] = [f.afterSeq];
  const filters: Array<[string, string | undefined]> = [
    ['customer_id', f.customerId],
    ['created_by', f.createdBy],
    ['status', f.status],
  ];
  for (const [column, value] of filters) {
    if (value === undefined) continue;
    conditions.push(`${column} = ?`);
    params.push(value);
  }
  const rows = await tx.all(
    `SELECT * FROM orders WHERE ${conditions.join(' AND ')} ORDER BY seq LIMIT ?`,
    ...params,
    f.limit,
  );
  return rows.map(fromRow);
}
