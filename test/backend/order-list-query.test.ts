/**
 * The order list's SQL names only the filters given, so SQLite searches the matching index (customer, the
 * creating partner, status) instead of scanning every order; and it still lists exactly what the filters ask.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { insertOrder, listOrders, type Order, type OrderFilter } from '../../src/backend/store/orders.ts';
import { seedDemoData } from '../../src/backend/store/seed.ts';
import type { Row, Tx } from '../../src/backend/store/tx.ts';
import { openTempSqliteStore } from '../helpers/backend-store.ts';

/** The plan SQLite chooses for the query listOrders sends (captured from the transaction it is given). */
async function planOf(tx: Tx, filter: OrderFilter): Promise<string> {
  let sent: { sql: string; params: unknown[] } | undefined;
  const capturing: Tx = { ...tx, all: (sql, ...params) => ((sent = { sql, params }), tx.all(sql, ...params)) };
  await listOrders(capturing, filter);
  const plan = await tx.all(`EXPLAIN QUERY PLAN ${sent!.sql}`, ...(sent!.params as Array<string | number | null>));
  return plan.map((row: Row) => String(row['detail'])).join('; ');
}

const order = (n: number, customerId: string, createdBy: string, status: Order['status']): Omit<Order, 'seq'> => ({
  orderId: `ORD-${String(n).padStart(16, '0')}`,
  status,
  rejectReason: status === 'REJECTED' ? 'OUT_OF_STOCK' : null,
  customerId,
  productId: 'P-100',
  quantity: 1,
  amount: 4990,
  currency: 'EUR',
  createdBy,
  idempotencyKey: null,
  requestHash: null,
  correlationId: 'test',
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  version: 1,
});

test('a customer filter and a partner filter each search their index', async (t) => {
  const store = openTempSqliteStore(t, 'orders');
  await store.transaction(async (tx) => {
    assert.match(
      await planOf(tx, { customerId: '1001', afterSeq: 0, limit: 21 }),
      /USING (COVERING )?INDEX orders_by_customer\b/,
    );
    // (customer_id, status) holds its rows in rowid (seq) order too: the credit check's index serves both.
    assert.match(
      await planOf(tx, { customerId: '1001', status: 'CONFIRMED', afterSeq: 0, limit: 21 }),
      /USING (COVERING )?INDEX orders_(by_)?customer\b/,
    );
    assert.match(
      await planOf(tx, { createdBy: 'acme-shop', afterSeq: 0, limit: 21 }),
      /USING (COVERING )?INDEX orders_by_creator\b/,
    );
    assert.match(
      await planOf(tx, { createdBy: 'acme-shop', customerId: '1001', afterSeq: 10, limit: 21 }),
      /USING (COVERING )?INDEX orders_by_(customer|creator)\b/,
    );
    assert.match(
      await planOf(tx, { status: 'REJECTED', afterSeq: 0, limit: 21 }),
      /USING (COVERING )?INDEX orders_by_status\b/,
    );
  });
});

test('the list keeps exactly the orders every given filter admits, in seq order, after the cursor', async (t) => {
  const store = openTempSqliteStore(t, 'orders');
  const ids = (orders: Order[]) => orders.map((o) => o.orderId.slice(-2));
  await store.transaction(async (tx) => {
    await seedDemoData(tx);
    const rows: Array<[string, string, Order['status']]> = [
      ['1001', 'ada', 'CONFIRMED'],
      ['1001', 'acme-shop', 'REJECTED'],
      ['1002', 'alan', 'CONFIRMED'],
      ['1001', 'acme-shop', 'CONFIRMED'],
      ['1002', 'clerk', 'CANCELLED'],
      ['1001', 'ada', 'CONFIRMED'],
    ];
    for (const [i, [customerId, createdBy, status]] of rows.entries())
      await insertOrder(tx, order(i + 1, customerId, createdBy, status));
    assert.deepEqual(ids(await listOrders(tx, { afterSeq: 0, limit: 100 })), ['01', '02', '03', '04', '05', '06']);
    assert.deepEqual(ids(await listOrders(tx, { customerId: '1001', afterSeq: 0, limit: 100 })), [
      '01',
      '02',
      '04',
      '06',
    ]);
    assert.deepEqual(ids(await listOrders(tx, { createdBy: 'acme-shop', afterSeq: 0, limit: 100 })), ['02', '04']);
    assert.deepEqual(
      ids(await listOrders(tx, { createdBy: 'acme-shop', status: 'CONFIRMED', afterSeq: 0, limit: 100 })),
      ['04'],
    );
    assert.deepEqual(
      ids(await listOrders(tx, { customerId: '1002', createdBy: 'acme-shop', afterSeq: 0, limit: 100 })),
      [],
    );
    assert.deepEqual(ids(await listOrders(tx, { status: 'CONFIRMED', afterSeq: 0, limit: 100 })), [
      '01',
      '03',
      '04',
      '06',
    ]);
    const first = await listOrders(tx, { customerId: '1001', status: 'CONFIRMED', afterSeq: 0, limit: 2 });
    assert.deepEqual(ids(first), ['01', '04']);
    assert.deepEqual(
      ids(await listOrders(tx, { customerId: '1001', status: 'CONFIRMED', afterSeq: first[1]!.seq, limit: 2 })),
      ['06'],
    );
  });
});
