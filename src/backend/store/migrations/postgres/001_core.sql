-- Core tables of the back-end transaction system on PostgreSQL: the same tables as migrations/sqlite,
-- so the same SQL runs on both. Money is integer minor units (BIGINT); times are ISO-8601 text, as there.

CREATE TABLE customers (
  customer_id        TEXT PRIMARY KEY,
  name               TEXT NOT NULL,
  email              TEXT NOT NULL,
  email_normalized   TEXT NOT NULL UNIQUE,
  phone              TEXT,
  birth_date         TEXT,
  address_json       TEXT,
  risk_rating        TEXT NOT NULL CHECK (risk_rating IN ('A', 'B', 'C', 'D')),
  monthly_income     BIGINT NOT NULL CHECK (monthly_income >= 0),
  credit_limit       BIGINT NOT NULL CHECK (credit_limit >= 0),
  currency           TEXT NOT NULL,
  created_at         TEXT NOT NULL,
  updated_at         TEXT NOT NULL
);

-- Customer accounts and system accounts (customer_id NULL), e.g. the opening-balance equity account.
CREATE TABLE accounts (
  account_id   TEXT PRIMARY KEY,
  customer_id  TEXT REFERENCES customers (customer_id),
  currency     TEXT NOT NULL,
  balance      BIGINT NOT NULL,
  kind         TEXT NOT NULL CHECK (kind IN ('CUSTOMER', 'SYSTEM')),
  -- The last line against an overdraft, should a program ever forget its row lock.
  CONSTRAINT accounts_no_overdraft CHECK (kind = 'SYSTEM' OR balance >= 0)
);
CREATE INDEX accounts_customer ON accounts (customer_id);

-- Double-entry postings: every transfer writes one debit and one credit of the same amount.
CREATE TABLE ledger_postings (
  posting_id     BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  transfer_id    TEXT NOT NULL,
  account_id     TEXT NOT NULL REFERENCES accounts (account_id),
  direction      TEXT NOT NULL CHECK (direction IN ('DEBIT', 'CREDIT')),
  amount         BIGINT NOT NULL CHECK (amount > 0),
  currency       TEXT NOT NULL,
  correlation_id TEXT NOT NULL,
  posted_at      TEXT NOT NULL
);
CREATE INDEX ledger_postings_transfer ON ledger_postings (transfer_id);
CREATE INDEX ledger_postings_account ON ledger_postings (account_id);

CREATE TABLE products (
  product_id   TEXT PRIMARY KEY,
  name         TEXT NOT NULL,
  unit_price   BIGINT NOT NULL CHECK (unit_price >= 0),
  currency     TEXT NOT NULL,
  stock        BIGINT NOT NULL CHECK (stock >= 0)
);

CREATE TABLE orders (
  seq              BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  order_id         TEXT NOT NULL UNIQUE,
  status           TEXT NOT NULL CHECK (status IN ('CONFIRMED', 'REJECTED', 'CANCELLED')),
  reject_reason    TEXT,
  customer_id      TEXT NOT NULL REFERENCES customers (customer_id),
  product_id       TEXT NOT NULL,
  quantity         BIGINT NOT NULL,
  amount           BIGINT NOT NULL,
  currency         TEXT NOT NULL,
  created_by       TEXT NOT NULL,
  idempotency_key  TEXT,
  correlation_id   TEXT NOT NULL,
  created_at       TEXT NOT NULL,
  updated_at       TEXT NOT NULL,
  version          BIGINT NOT NULL DEFAULT 1
);
CREATE INDEX orders_customer ON orders (customer_id, status);
CREATE UNIQUE INDEX orders_idempotency ON orders (created_by, idempotency_key) WHERE idempotency_key IS NOT NULL;

CREATE TABLE payments (
  payment_id        TEXT PRIMARY KEY,
  status            TEXT NOT NULL CHECK (status IN ('COMPLETED', 'REJECTED')),
  reject_reason     TEXT,
  customer_id       TEXT,
  debtor_account    TEXT NOT NULL,
  creditor_account  TEXT NOT NULL,
  amount            BIGINT NOT NULL,
  currency          TEXT NOT NULL,
  remittance        TEXT,
  created_by        TEXT NOT NULL,
  idempotency_key   TEXT NOT NULL,
  correlation_id    TEXT NOT NULL,
  created_at        TEXT NOT NULL
);
-- Exactly-once: one payment per caller and key, committed with the postings.
CREATE UNIQUE INDEX payments_idempotency ON payments (created_by, idempotency_key);

CREATE TABLE loan_applications (
  loan_id            TEXT PRIMARY KEY,
  status             TEXT NOT NULL CHECK (status IN ('APPROVED', 'REJECTED')),
  reject_reason      TEXT,
  customer_id        TEXT NOT NULL REFERENCES customers (customer_id),
  requested_amount   BIGINT NOT NULL,
  approved_amount    BIGINT NOT NULL,
  interest_rate_bp   BIGINT NOT NULL,
  installment_value  BIGINT NOT NULL,
  installments       BIGINT NOT NULL,
  currency           TEXT NOT NULL,
  created_by         TEXT NOT NULL,
  idempotency_key    TEXT,
  correlation_id     TEXT NOT NULL,
  created_at         TEXT NOT NULL
);
CREATE UNIQUE INDEX loan_applications_idempotency ON loan_applications (created_by, idempotency_key)
  WHERE idempotency_key IS NOT NULL;

-- Business audit trail, written in the business transaction.
CREATE TABLE audit_log (
  audit_id        BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  tran_code       TEXT NOT NULL,
  entity          TEXT NOT NULL,
  entity_id       TEXT NOT NULL,
  action          TEXT NOT NULL,
  principal       TEXT NOT NULL,
  correlation_id  TEXT NOT NULL,
  at              TEXT NOT NULL
);

CREATE TABLE sequences (
  name   TEXT PRIMARY KEY,
  value  BIGINT NOT NULL
);

-- Events to publish (LoanApproved, …), written in the business transaction; a relay comes later.
CREATE TABLE outbox (
  event_id        TEXT PRIMARY KEY,
  event_type      TEXT NOT NULL,
  aggregate_id    TEXT NOT NULL,
  payload_json    TEXT NOT NULL,
  correlation_id  TEXT NOT NULL,
  created_at      TEXT NOT NULL,
  published_at    TEXT
);
