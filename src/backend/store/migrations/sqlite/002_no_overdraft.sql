-- The last line against an overdraft, should a program ever forget to check: a customer account's
-- balance never goes below zero (PostgreSQL has the same rule as a CHECK constraint).
CREATE TRIGGER accounts_no_overdraft
BEFORE UPDATE OF balance ON accounts
WHEN NEW.kind = 'CUSTOMER' AND NEW.balance < 0
BEGIN
  SELECT RAISE(ABORT, 'accounts_no_overdraft: a customer account balance cannot go below zero');
END;
