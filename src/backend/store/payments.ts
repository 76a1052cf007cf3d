import type { Tx } from './tx.ts';

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

export async function findPaymentByIdempotencyKey(tx: Tx, createdBy: string, key: string): Promise<Payment | undefined> {
  const row = await tx.get('SELECT * FROM payments WHERE created_by = ? AND idempotency_key = ?', createdBy, key);
  return row ? fromRow(row) : undefined;
}

export async function insertPayment(tx: Tx, p: Payment): Promise<void> {
  await tx.run(
    `INSERT INTO payments (payment_id, status, reject_reason, customer_id, debtor_account, creditor_account, amount,
       currency, remittance, created_by, idempotency_key, correlation_id, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    p.paymentId, p.status, p.rejectReason, p.customerId, p.debtorAccount, p.creditorAccount, p.amount, p.currency,
    p.remittance, p.createdBy, p.idempotencyKey, p.correlationId, p.createdAt,
  );
}
