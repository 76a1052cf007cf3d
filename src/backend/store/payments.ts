import type { SqlValue, Tx } from './tx.ts';

export interface Payment {
  paymentId: string;
  status: 'COMPLETED' | 'REJECTED';
  rejectReason: string | null;
  /** Owner: the debtor account's customer. */
  customerId: string | null;
  debtorAccount: string;
  creditorAccount: string;
  /** Minor units. */
  amount: number;
  currency: string;
  remittance: string | null;
  createdBy: string;
  idempotencyKey: string;
  correlationId: string;
  createdAt: string;
}

function fromRow(row: Record<string, unknown>): Payment {
  return {
    paymentId: String(row['payment_id']),
    status: String(row['status']) as Payment['status'],
    rejectReason: row['reject_reason'] == null ? null : String(row['reject_reason']),
    customerId: row['customer_id'] == null ? null : String(row['customer_id']),
    debtorAccount: String(row['debtor_account']),
    creditorAccount: String(row['creditor_account']),
    amount: Number(row['amount']),
    currency: String(row['currency']),
    remittance: row['remittance'] == null ? null : String(row['remittance']),
    createdBy: String(row['created_by']),
    idempotencyKey: String(row['idempotency_key']),
    correlationId: String(row['correlation_id']),
    createdAt: String(row['created_at']),
  };
}

export async function findPayment(tx: Tx, paymentId: string): Promise<Payment | undefined> {
  const row = await tx.get('SELECT * FROM payments WHERE payment_id = ?', paymentId);
  return row ? fromRow(row) : undefined;
}

export async function findPaymentByIdempotencyKey(
  tx: Tx,
  createdBy: string,
  key: string,
): Promise<Payment | undefined> {
  const row = await tx.get('SELECT * FROM payments WHERE created_by = ? AND idempotency_key = ?', createdBy, key);
  return row ? fromRow(row) : undefined;
}

export async function insertPayment(tx: Tx, p: Payment): Promise<void> {
  await tx.run(
    `INSERT INTO payments (payment_id, status, reject_reason, customer_id, debtor_account, creditor_account, amount,
       currency, remittance, created_by, idempotency_key, correlation_id, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    p.paymentId,
    p.status,
    p.rejectReason,
    p.customerId,
    p.debtorAccount,
    p.creditorAccount,
    p.amount,
    p.currency,
    p.remittance,
    p.createdBy,
    p.idempotencyKey,
    p.correlationId,
    p.createdAt,
  );
}

export interface PaymentPage {
  /** The account whose payments are listed: those it paid and those it received. */
  accountId: string;
  status?: string;
  /** Keyset cursor: only payments made before this one (0: from the newest). */
  beforeSeq: number;
  limit: number;
}

/** Whose payments a caller may read: decided in src/backend/caller.ts (paymentAudience), applied in SQL here. */
export type PaymentAudience = { kind: 'staff' } | { kind: 'owner'; customerId: string } | { kind: 'none' };

/**
 * The SQL condition that keeps what an audience may read (src/backend/caller.ts, maySeePayment), for the side
 * of the account the payments are on. A customer's audience is only ever asked about their own account: what
 * it received is theirs to read once completed, what it paid is theirs as its owner.
 */
function audienceFilter(audience: PaymentAudience, side: 'paid' | 'received'): { sql: string; params: SqlValue[] } {
  switch (audience.kind) {
    case 'staff':
      return { sql: ' AND customer_id IS NOT NULL', params: [] };
    case 'owner':
      return side === 'paid'
        ? { sql: ' AND customer_id = ?', params: [audience.customerId] }
        : { sql: " AND (status = 'COMPLETED' OR customer_id = ?)", params: [audience.customerId] };
    case 'none':
      return { sql: ' AND 1 = 0', params: [] };
  }
}

/**
 * An account's payments, newest first: those it paid and those it received, each side read in seq order
 * through its own index (payments_by_debtor, payments_by_creditor) and merged, so neither is a scan of the
 * table. A payment is never on both sides (debtor and creditor differ).
 */
export async function listAccountPayments(
  tx: Tx,
  audience: PaymentAudience,
  page: PaymentPage,
): Promise<Array<Payment & { seq: number }>> {
  const params: SqlValue[] = [];
  const side = (column: string, which: 'paid' | 'received'): string => {
    const filter = audienceFilter(audience, which);
    params.push(page.accountId, ...filter.params);
    let sql = `SELECT * FROM payments WHERE ${column} = ?${filter.sql}`;
    if (page.status !== undefined) {
      sql += ' AND status = ?';
      params.push(page.status);
    }
    if (page.beforeSeq > 0) {
      sql += ' AND seq < ?';
      params.push(page.beforeSeq);
    }
    params.push(page.limit);
    return `SELECT * FROM (${sql} ORDER BY seq DESC LIMIT ?) AS ${which}`;
  };
  const sql = `${side('debtor_account', 'paid')} UNION ALL ${side('creditor_account', 'received')} ORDER BY seq DESC LIMIT ?`;
  const rows = await tx.all(sql, ...params, page.limit);
  return rows.map((row) => ({ ...fromRow(row), seq: Number(row['seq']) }));
}
