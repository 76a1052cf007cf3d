import type { Tx } from '../../sqlite.ts';

export interface Address {
  line1: string;
  line2?: string;
  postalCode: string;
  city: string;
  country: string;
}

export interface Customer {
  customerId: string;
  name: string;
  email: string;
  phone: string | null;
  birthDate: string | null;
  address: Address | null;
  riskRating: 'A' | 'B' | 'C' | 'D';
  /** Minor units. */
  monthlyIncome: number;
  /** Minor units; the ceiling of the customer's confirmed open orders. */
  creditLimit: number;
  currency: string;
  createdAt: string;
  updatedAt: string;
}

type Row = Record<string, unknown>;

function fromRow(row: Row): Customer {
  return {
    customerId: String(row['customer_id']),
    name: String(row['name']),
    email: String(row['email']),
    phone: row['phone'] == null ? null : String(row['phone']),
    birthDate: row['birth_date'] == null ? null : String(row['birth_date']),
    address: row['address_json'] == null ? null : (JSON.parse(String(row['address_json'])) as Address),
    riskRating: String(row['risk_rating']) as Customer['riskRating'],
    monthlyIncome: Number(row['monthly_income']),
    creditLimit: Number(row['credit_limit']),
    currency: String(row['currency']),
    createdAt: String(row['created_at']),
    updatedAt: String(row['updated_at']),
  };
}

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export function findCustomer(tx: Tx, customerId: string): Customer | undefined {
  const row = tx.statement('SELECT * FROM customers WHERE customer_id = ?').get(customerId);
  return row ? fromRow(row) : undefined;
}

export function findCustomerByEmail(tx: Tx, email: string): Customer | undefined {
  const row = tx.statement('SELECT * FROM customers WHERE email_normalized = ?').get(normalizeEmail(email));
  return row ? fromRow(row) : undefined;
}

export function nextCustomerId(tx: Tx): string {
  const row = tx.statement('SELECT COALESCE(MAX(CAST(customer_id AS INTEGER)), 1000) + 1 AS next FROM customers').get();
  return String(row?.['next'] ?? 1001);
}

export function insertCustomer(tx: Tx, c: Customer): void {
  tx.statement(
    `INSERT INTO customers (customer_id, name, email, email_normalized, phone, birth_date, address_json,
       risk_rating, monthly_income, credit_limit, currency, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    c.customerId, c.name, c.email, normalizeEmail(c.email), c.phone, c.birthDate,
    c.address ? JSON.stringify(c.address) : null, c.riskRating, c.monthlyIncome, c.creditLimit, c.currency,
    c.createdAt, c.updatedAt,
  );
}

export function updateCustomer(tx: Tx, c: Customer): void {
  tx.statement(
    `UPDATE customers SET name = ?, email = ?, email_normalized = ?, phone = ?, birth_date = ?, address_json = ?,
       updated_at = ? WHERE customer_id = ?`,
  ).run(
    c.name, c.email, normalizeEmail(c.email), c.phone, c.birthDate, c.address ? JSON.stringify(c.address) : null,
    c.updatedAt, c.customerId,
  );
}
