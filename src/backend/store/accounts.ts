import type { Tx } from '../../sqlite.ts';

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

export function findAccount(tx: Tx, accountId: string): Account | undefined {
  const row = tx.statement('SELECT * FROM accounts WHERE account_id = ?').get(accountId);
  return row ? fromRow(row) : undefined;
}

export function insertAccount(tx: Tx, account: Account): void {
  tx.statement('INSERT INTO accounts (account_id, customer_id, currency, balance, kind) VALUES (?, ?, ?, ?, ?)').run(
    account.accountId, account.customerId, account.currency, account.balance, account.kind,
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
export function postTransfer(tx: Tx, t: Transfer): void {
  if (!Number.isSafeInteger(t.amount) || t.amount <= 0) throw new Error('transfer amount must be a positive integer');
  const insert = tx.statement(
    `INSERT INTO ledger_postings (transfer_id, account_id, direction, amount, currency, correlation_id, posted_at)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
  );
  insert.run(t.transferId, t.debitAccountId, 'DEBIT', t.amount, t.currency, t.correlationId, t.at);
  insert.run(t.transferId, t.creditAccountId, 'CREDIT', t.amount, t.currency, t.correlationId, t.at);
  const move = tx.statement('UPDATE accounts SET balance = balance + ? WHERE account_id = ?');
  move.run(-t.amount, t.debitAccountId);
  move.run(t.amount, t.creditAccountId);
}
