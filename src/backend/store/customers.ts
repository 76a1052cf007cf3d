import type { Tx } from './tx.ts';

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
  /** The principal that onboarded the customer (a partner reaches the customers it onboarded); null for older rows. */
  createdBy: string | null;
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
    createdBy: row['created_by'] == null ? null : String(row['created_by']),
    createdAt: String(row['created_at']),
    updatedAt: String(row['updated_at']),
  };
}

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** `forUpdate`: locked until the transaction ends, for a change that depends on what was read (a credit limit). */
export async function findCustomer(
  tx: Tx,
  customerId: string,
  options: { forUpdate?: boolean } = {},
): Promise<Customer | undefined> {
  const row = await tx.get(
    `SELECT * FROM customers WHERE customer_id = ?${options.forUpdate ? tx.forUpdate : ''}`,
    customerId,
  );
  return row ? fromRow(row) : undefined;
}

export async function findCustomerByEmail(tx: Tx, email: string): Promise<Customer | undefined> {
  const row = await tx.get('SELECT * FROM customers WHERE email_normalized = ?', normalizeEmail(email));
  return row ? fromRow(row) : undefined;
}

/**
 * The next customer number. A counter row, not MAX + 1: two back-end instances adding customers at once
 * each get their own (the second waits for the first's row lock). It starts above the highest number in use.
 */
export async function nextCustomerId(tx: Tx): Promise<string> {
  const row = await tx.get(
    `INSERT INTO sequences (name, value)
     VALUES ('customer_id', (SELECT COALESCE(MAX(CAST(customer_id AS INTEGER)), 1000) + 1 FROM customers))
     ON CONFLICT (name) DO UPDATE SET value = sequences.value + 1
     RETURNING value`,
  );
  return String(row!['value']);
}

export async function insertCustomer(tx: Tx, c: Customer): Promise<void> {
  await tx.run(
    `INSERT INTO customers (customer_id, name, email, email_normalized, phone, birth_date, address_json,
       risk_rating, monthly_income, credit_limit, currency, created_by, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    c.customerId,
    c.name,
    c.email,
    normalizeEmail(c.email),
    c.phone,
    c.birthDate,
    c.address ? JSON.stringify(c.address) : null,
    c.riskRating,
    c.monthlyIncome,
    c.creditLimit,
    c.currency,
    c.createdBy,
    c.createdAt,
    c.updatedAt,
  );
}

export async function updateCustomer(tx: Tx, c: Customer): Promise<void> {
  await tx.run(
    `UPDATE customers SET name = ?, email = ?, email_normalized = ?, phone = ?, birth_date = ?, address_json = ?,
       updated_at = ? WHERE customer_id = ?`,
    c.name,
    c.email,
    normalizeEmail(c.email),
    c.phone,
    c.birthDate,
    c.address ? JSON.stringify(c.address) : null,
    c.updatedAt,
    c.customerId,
  );
}

/** Is the customer linked to the partner (partner_customers), beside those the partner onboarded? */
export async function isLinkedToPartner(tx: Tx, principal: string, customerId: string): Promise<boolean> {
  return (
    (await tx.get(
      'SELECT 1 AS linked FROM partner_customers WHERE principal = ? AND customer_id = ?',
      principal,
      customerId,
    )) !== undefined
  );
}

export async function linkPartnerCustomer(
  tx: Tx,
  link: { principal: string; customerId: string; linkedAt: string },
): Promise<void> {
  await tx.run(
    'INSERT INTO partner_customers (principal, customer_id, linked_at) VALUES (?, ?, ?) ON CONFLICT (principal, customer_id) DO NOTHING',
    link.principal,
    link.customerId,
    link.linkedAt,
  );
}
