import { lockRows, type Tx } from './tx.ts';

export interface Account {
  accountId: string;
  customerId: string | null;
  currency: string;
  /** Minor units. */
  balance: number;
  kind: 'CUSTOMER' | 'SYSTEM';
}

function fromRow(row: Record<string, unknown>): Account {
  return {
    accountId: String(row['account_id']),
    customerId: row['customer_id'] == null ? null : String(row['customer_id']),
    currency: String(row['currency']),
    balance: Number(row['balance']),
    kind: String(row['kind']) as Account['kind'],
  };
}

/** A customer's accounts after `afterSeq`, in opening order (accounts_by_customer). */
export async function listCustomerAccounts(
  tx: Tx,
  customerId: string,
  page: { afterSeq: number; limit: number },
): Promise<Array<Account & { seq: number }>> {
  const rows = await tx.all(
    "SELECT * FROM accounts WHERE customer_id = ? AND kind = 'CUSTOMER' AND seq > ? ORDER BY seq LIMIT ?",
    customerId,
    page.afterSeq,
    page.limit,
  );
  return rows.map((row) => ({ ...fromRow(row), seq: Number(row['seq']) }));
}

export async function findAccount(tx: Tx, accountId: string): Promise<Account | undefined> {
  const row = await tx.get('SELECT * FROM accounts WHERE account_id = ?', accountId);
  return row ? fromRow(row) : undefined;
}

/**
 * The accounts of a transfer, locked until the transaction ends (in account-id order, so two transfers
 * between the same accounts never wait on each other): a balance read here stays true until the posting.
 */
export async function lockAccounts(tx: Tx, accountIds: readonly string[]): Promise<Map<string, Account>> {
  const rows = await lockRows(tx, 'accounts', 'account_id', accountIds);
  return new Map([...rows].map(([id, row]) => [id, fromRow(row)]));
}

export async function insertAccount(tx: Tx, account: Account): Promise<void> {
  await tx.run(
    'INSERT INTO accounts (account_id, customer_id, currency, balance, kind) VALUES (?, ?, ?, ?, ?)',
    account.accountId,
    account.customerId,
    account.currency,
    account.balance,
    account.kind,
  );
}

export interface Transfer {
  transferId: string;
  debitAccountId: string;
  creditAccountId: string;
  /** Minor units, > 0. */
  amount: number;
  currency: string;
  correlationId: string;
  at: string;
}

/** Double entry: one debit and one credit posting and both balances, in the caller's transaction. */
export async function postTransfer(tx: Tx, t: Transfer): Promise<void> {
  if (!Number.isSafeInteger(t.amount) || t.amount <= 0) throw new Error('transfer amount must be a positive integer');
  if (t.debitAccountId === t.creditAccountId) throw new Error('a transfer needs two different accounts');
  // Two statements, not four: on PostgreSQL each is a round trip made while both accounts are locked.
  await tx.run(
    `INSERT INTO ledger_postings (transfer_id, account_id, direction, amount, currency, correlation_id, posted_at)
     VALUES (?, ?, 'DEBIT', ?, ?, ?, ?), (?, ?, 'CREDIT', ?, ?, ?, ?)`,
    t.transferId,
    t.debitAccountId,
    t.amount,
    t.currency,
    t.correlationId,
    t.at,
    t.transferId,
    t.creditAccountId,
    t.amount,
    t.currency,
    t.correlationId,
    t.at,
  );
  await tx.run(
    'UPDATE accounts SET balance = balance + CASE WHEN account_id = ? THEN CAST(? AS BIGINT) ELSE CAST(? AS BIGINT) END WHERE account_id IN (?, ?)',
    t.creditAccountId,
    t.amount,
    -t.amount,
    t.debitAccountId,
    t.creditAccountId,
  );
}
