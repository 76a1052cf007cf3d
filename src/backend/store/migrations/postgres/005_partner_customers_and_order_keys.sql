-- Partner customers, the order request hash and the order list's indexes: see
-- migrations/sqlite/006_partner_customers_and_order_keys.sql; the same tables.
CREATE TABLE partner_customers (
  principal    TEXT NOT NULL,
  customer_id  TEXT NOT NULL REFERENCES customers (customer_id),
  linked_at    TEXT NOT NULL,
  PRIMARY KEY (principal, customer_id)
);

ALTER TABLE orders ADD COLUMN request_hash TEXT;

CREATE INDEX orders_by_customer ON orders (customer_id, seq);
CREATE INDEX orders_by_creator ON orders (created_by, seq);
CREATE INDEX orders_by_status ON orders (status, seq);
