-- The lists a customer expects: see migrations/sqlite/007_customer_lists.sql; the same columns and indexes.
-- `seq` is an identity column here; rows already there are numbered first (payments and loan applications in
-- the order they were made, accounts by id), and the identity goes on from the highest.
ALTER TABLE payments ADD COLUMN seq BIGINT;
UPDATE payments SET seq = numbered.n
  FROM (SELECT payment_id, ROW_NUMBER() OVER (ORDER BY created_at, payment_id) AS n FROM payments) AS numbered
  WHERE numbered.payment_id = payments.payment_id;
ALTER TABLE payments ALTER COLUMN seq SET NOT NULL;
ALTER TABLE payments ALTER COLUMN seq ADD GENERATED ALWAYS AS IDENTITY;
SELECT setval(pg_get_serial_sequence('payments', 'seq'), (SELECT COALESCE(MAX(seq), 0) + 1 FROM payments), false);
CREATE UNIQUE INDEX payments_by_seq ON payments (seq);
CREATE INDEX payments_by_debtor ON payments (debtor_account, seq);
CREATE INDEX payments_by_creditor ON payments (creditor_account, seq);

ALTER TABLE loan_applications ADD COLUMN seq BIGINT;
UPDATE loan_applications SET seq = numbered.n
  FROM (SELECT loan_id, ROW_NUMBER() OVER (ORDER BY created_at, loan_id) AS n FROM loan_applications) AS numbered
  WHERE numbered.loan_id = loan_applications.loan_id;
ALTER TABLE loan_applications ALTER COLUMN seq SET NOT NULL;
ALTER TABLE loan_applications ALTER COLUMN seq ADD GENERATED ALWAYS AS IDENTITY;
SELECT setval(pg_get_serial_sequence('loan_applications', 'seq'), (SELECT COALESCE(MAX(seq), 0) + 1 FROM loan_applications), false);
CREATE UNIQUE INDEX loan_applications_by_seq ON loan_applications (seq);
CREATE INDEX loan_applications_by_customer ON loan_applications (customer_id, seq);

ALTER TABLE accounts ADD COLUMN seq BIGINT;
UPDATE accounts SET seq = numbered.n
  FROM (SELECT account_id, ROW_NUMBER() OVER (ORDER BY account_id) AS n FROM accounts) AS numbered
  WHERE numbered.account_id = accounts.account_id;
ALTER TABLE accounts ALTER COLUMN seq SET NOT NULL;
ALTER TABLE accounts ALTER COLUMN seq ADD GENERATED ALWAYS AS IDENTITY;
SELECT setval(pg_get_serial_sequence('accounts', 'seq'), (SELECT COALESCE(MAX(seq), 0) + 1 FROM accounts), false);
CREATE UNIQUE INDEX accounts_by_seq ON accounts (seq);
DROP INDEX accounts_customer;
CREATE INDEX accounts_by_customer ON accounts (customer_id, seq);
