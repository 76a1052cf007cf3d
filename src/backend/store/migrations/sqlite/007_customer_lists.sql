-- The lists a customer expects (issue 10): their accounts in opening order, an account's payments and their
-- loan applications newest first. Each is read by a keyset cursor on a `seq` that grows with every new row,
-- through the index of the one filter it is given (see store/accounts.ts, payments.ts, loans.ts).

-- Payments and loan applications get `seq` as orders have it: the table's INTEGER PRIMARY KEY AUTOINCREMENT
-- (SQLite cannot add one to a table), so they are rebuilt; rows keep their order of insertion.
CREATE TABLE payments_by_seq (
  seq               INTEGER PRIMARY KEY AUTOINCREMENT,
  payment_id        TEXT NOT NULL UNIQUE,
  status            TEXT NOT NULL CHECK (status IN ('COMPLETED', 'REJECTED')),
  reject_reason     TEXT,
  customer_id       TEXT,
  debtor_account    TEXT NOT NULL,
  creditor_account  TEXT NOT NULL,
  amount            INTEGER NOT NULL,
  currency          TEXT NOT NULL,
  remittance        TEXT,
  created_by        TEXT NOT NULL,
  idempotency_key   TEXT NOT NULL,
  correlation_id    TEXT NOT NULL,
  created_at        TEXT NOT NULL
);
INSERT INTO payments_by_seq (payment_id, status, reject_reason, customer_id, debtor_account, creditor_account, amount, currency,
    remittance, created_by, idempotency_key, correlation_id, created_at)
  SELECT payment_id, status, reject_reason, customer_id, debtor_account, creditor_account, amount, currency,
    remittance, created_by, idempotency_key, correlation_id, created_at
  FROM payments ORDER BY rowid;
DROP TABLE payments;
ALTER TABLE payments_by_seq RENAME TO payments;
CREATE UNIQUE INDEX payments_idempotency ON payments (created_by, idempotency_key);
-- An account's payments: those it paid and those it received, each side in seq order.
CREATE INDEX payments_by_debtor ON payments (debtor_account, seq);
CREATE INDEX payments_by_creditor ON payments (creditor_account, seq);

CREATE TABLE loan_applications_by_seq (
  seq                INTEGER PRIMARY KEY AUTOINCREMENT,
  loan_id            TEXT NOT NULL UNIQUE,
  status             TEXT NOT NULL CHECK (status IN ('APPROVED', 'REJECTED')),
  reject_reason      TEXT,
  customer_id        TEXT NOT NULL REFERENCES customers (customer_id),
  requested_amount   INTEGER NOT NULL,
  approved_amount    INTEGER NOT NULL,
  interest_rate_bp   INTEGER NOT NULL,
  installment_value  INTEGER NOT NULL,
  installments       INTEGER NOT NULL,
  currency           TEXT NOT NULL,
  created_by         TEXT NOT NULL,
  idempotency_key    TEXT,
  correlation_id     TEXT NOT NULL,
  created_at         TEXT NOT NULL
);
INSERT INTO loan_applications_by_seq (loan_id, status, reject_reason, customer_id, requested_amount, approved_amount,
    interest_rate_bp, installment_value, installments, currency, created_by, idempotency_key, correlation_id, created_at)
  SELECT loan_id, status, reject_reason, customer_id, requested_amount, approved_amount,
    interest_rate_bp, installment_value, installments, currency, created_by, idempotency_key, correlation_id, created_at
  FROM loan_applications ORDER BY rowid;
DROP TABLE loan_applications;
ALTER TABLE loan_applications_by_seq RENAME TO loan_applications;
CREATE UNIQUE INDEX loan_applications_idempotency ON loan_applications (created_by, idempotency_key)
  WHERE idempotency_key IS NOT NULL;
CREATE INDEX loan_applications_by_customer ON loan_applications (customer_id, seq);

-- Accounts are the parent of ledger postings, so they are not rebuilt: `seq` is added, numbered in account-id
-- order for the accounts there are, and given to a new account by a trigger (inserts never name it, as on
-- PostgreSQL, where it is an identity column).
ALTER TABLE accounts ADD COLUMN seq INTEGER;
UPDATE accounts SET seq = (SELECT COUNT(*) FROM accounts AS earlier WHERE earlier.account_id <= accounts.account_id);
CREATE UNIQUE INDEX accounts_by_seq ON accounts (seq);
CREATE TRIGGER accounts_seq AFTER INSERT ON accounts WHEN NEW.seq IS NULL
BEGIN
  UPDATE accounts SET seq = (SELECT COALESCE(MAX(seq), 0) + 1 FROM accounts) WHERE account_id = NEW.account_id;
END;
-- A customer's accounts in seq order; it serves every search accounts_customer served.
DROP INDEX accounts_customer;
CREATE INDEX accounts_by_customer ON accounts (customer_id, seq);
