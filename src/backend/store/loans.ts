import type { SqlValue, Tx } from './tx.ts';

export interface LoanApplication {
  loanId: string;
  status: 'APPROVED' | 'REJECTED';
  rejectReason: string | null;
  customerId: string;
  /** Minor units. */
  requestedAmount: number;
  approvedAmount: number;
  /** Annual rate in hundredths of a percent (6.90 % → 690). */
  interestRateBp: number;
  installmentValue: number;
  installments: number;
  currency: string;
  createdBy: string;
  idempotencyKey: string | null;
  correlationId: string;
  createdAt: string;
}

function fromRow(row: Record<string, unknown>): LoanApplication {
  return {
    loanId: String(row['loan_id']),
    status: String(row['status']) as LoanApplication['status'],
    rejectReason: row['reject_reason'] == null ? null : String(row['reject_reason']),
    customerId: String(row['customer_id']),
    requestedAmount: Number(row['requested_amount']),
    approvedAmount: Number(row['approved_amount']),
    interestRateBp: Number(row['interest_rate_bp']),
    installmentValue: Number(row['installment_value']),
    installments: Number(row['installments']),
    currency: String(row['currency']),
    createdBy: String(row['created_by']),
    idempotencyKey: row['idempotency_key'] == null ? null : String(row['idempotency_key']),
    correlationId: String(row['correlation_id']),
    createdAt: String(row['created_at']),
  };
}

export async function findLoan(tx: Tx, loanId: string): Promise<LoanApplication | undefined> {
  const row = await tx.get('SELECT * FROM loan_applications WHERE loan_id = ?', loanId);
  return row ? fromRow(row) : undefined;
}

export async function findLoanByIdempotencyKey(
  tx: Tx,
  createdBy: string,
  key: string,
): Promise<LoanApplication | undefined> {
  const row = await tx.get(
    'SELECT * FROM loan_applications WHERE created_by = ? AND idempotency_key = ?',
    createdBy,
    key,
  );
  return row ? fromRow(row) : undefined;
}

export async function insertLoan(tx: Tx, l: LoanApplication): Promise<void> {
  await tx.run(
    `INSERT INTO loan_applications (loan_id, status, reject_reason, customer_id, requested_amount, approved_amount,
       interest_rate_bp, installment_value, installments, currency, created_by, idempotency_key, correlation_id,
       created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    l.loanId,
    l.status,
    l.rejectReason,
    l.customerId,
    l.requestedAmount,
    l.approvedAmount,
    l.interestRateBp,
    l.installmentValue,
    l.installments,
    l.currency,
    l.createdBy,
    l.idempotencyKey,
    l.correlationId,
    l.createdAt,
  );
}

export interface LoanPage {
  /** One customer's applications (loan_applications_by_customer); undefined: every customer's. */
  customerId?: string;
  status?: string;
  /** Keyset cursor: only applications made before this one (0: from the newest). */
  beforeSeq: number;
  limit: number;
}

/** Loan applications, newest first; only the conditions of the filters given, so each search uses its index. */
export async function listLoans(tx: Tx, page: LoanPage): Promise<Array<LoanApplication & { seq: number }>> {
  const conditions: string[] = [];
  const params: SqlValue[] = [];
  const filters: Array<[string, string | number | undefined]> = [
    ['customer_id = ?', page.customerId],
    ['status = ?', page.status],
    ['seq < ?', page.beforeSeq > 0 ? page.beforeSeq : undefined],
  ];
  for (const [condition, value] of filters) {
    if (value === undefined) continue;
    conditions.push(condition);
    params.push(value);
  }
  const where = conditions.length > 0 ? ` WHERE ${conditions.join(' AND ')}` : '';
  const rows = await tx.all(`SELECT * FROM loan_applications${where} ORDER BY seq DESC LIMIT ?`, ...params, page.limit);
  return rows.map((row) => ({ ...fromRow(row), seq: Number(row['seq']) }));
}
