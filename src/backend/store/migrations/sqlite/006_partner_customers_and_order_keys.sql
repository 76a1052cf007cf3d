-- A partner reaches only its own customers: those it onboarded (customers.created_by) and those linked to
-- it here (by an agreement made outside the API; the demo data links acme-shop to 1001).
CREATE TABLE partner_customers (
  principal    TEXT NOT NULL,
  customer_id  TEXT NOT NULL REFERENCES customers (customer_id),
  linked_at    TEXT NOT NULL,
  PRIMARY KEY (principal, customer_id)
);

-- The request an order's idempotency key came with (customer, product, quantity), hashed when the order was
-- made: a key reused with another request is refused, even after a PUT changed the order. NULL before this.
ALTER TABLE orders ADD COLUMN request_hash TEXT;

-- The order list searches the index of the filter it was given, in seq order (its cursor).
CREATE INDEX orders_by_customer ON orders (customer_id, seq);
CREATE INDEX orders_by_creator ON orders (created_by, seq);
CREATE INDEX orders_by_status ON orders (status, seq);
