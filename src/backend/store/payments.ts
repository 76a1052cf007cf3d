import type { Tx } from '../../sqlite.ts';

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

export function findPayment(tx: Tx, paymentId: string): Payment | undefined {
  const row = tx.statement('SELECT * FROM payments WHERE payment_id = ?').get(paymentId);
  return row ? fromRow(row) : undefined;
}

export function findPaymentByIdempotencyKey(tx: Tx, createdBy: string, key: string): Payment | undefined {
  const row = tx.statement('SELECT * FROM payments WHERE created_by = ? AND idempotency_key = ?').get(createdBy, key);
  return row ? fromRow(row) : undefined;
}

export function insertPayment(tx: Tx, p: Payment): void {
  tx.statement(
    `INSERT INTO payments (payment_id, status, reject_reason, customer_id, debtor_account, creditor_account, amount,
       currency, remittance, created_by, idempotency_key, correlation_id, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    p.paymentId, p.status, p.rejectReason, p.customerId, p.debtorAccount, p.creditorAccount, p.amount, p.currency,
    p.remittance, p.createdBy, p.idempotencyKey, p.correlationId, p.createdAt,
  );
}
