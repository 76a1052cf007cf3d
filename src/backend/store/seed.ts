/** Demo data, loaded into a new store and reloaded by `npm run seed`. */
import { insertAccount, postTransfer } from './accounts.ts';
import { insertCustomer, linkPartnerCustomer, type Customer } from './customers.ts';
import { insertProduct } from './products.ts';
import type { Tx } from './tx.ts';

const DEMO_CUSTOMERS: Array<
  Pick<Customer, 'customerId' | 'name' | 'email' | 'riskRating' | 'monthlyIncome' | 'creditLimit'>
> = [
  {
    customerId: '1001',
    name: 'Ada Lovelace',
    email: 'ada@example.com',
    riskRating: 'A',
    monthlyIncome: 600_000,
    creditLimit: 500_000,
  },
  {
    customerId: '1002',
    name: 'Alan Turing',
    email: 'alan@example.com',
    riskRating: 'C',
    monthlyIncome: 250_000,
    creditLimit: 100_000,
  },
  {
    customerId: '1003',
    name: 'Grace Hopper',
    email: 'grace@example.com',
    riskRating: 'D',
    monthlyIncome: 300_000,
    creditLimit: 200_000,
  },
];

/** The demo partner's customers by agreement (a partner reaches only these and those it onboards). */
const DEMO_PARTNER_LINKS = [{ principal: 'acme-shop', customerId: '1001' }];

const DEMO_ACCOUNTS = [
  { accountId: '1001-01', customerId: '1001', currency: 'EUR', opening: 250_000 },
  { accountId: '1001-02', customerId: '1001', currency: 'USD', opening: 80_000 },
  { accountId: '1002-01', customerId: '1002', currency: 'EUR', opening: 120_000 },
  { accountId: '1003-01', customerId: '1003', currency: 'EUR', opening: 1_000_000 },
];

const DEMO_PRODUCTS = [
  { productId: 'P-100', name: 'Keyboard', unitPrice: 4_990, currency: 'EUR', stock: 1000 },
  { productId: 'P-200', name: 'Laptop', unitPrice: 189_900, currency: 'EUR', stock: 5 },
  { productId: 'P-300', name: 'Lamp', unitPrice: 1_000, currency: 'EUR', stock: 0 },
];

const TABLES = [
  'sequences',
  'keyed_replies',
  'webhook_deliveries',
  'events',
  'audit_log',
  'ledger_postings',
  'payments',
  'loan_applications',
  'orders',
  'accounts',
  'products',
  'partner_customers',
  'customers',
];

export async function isEmpty(tx: Tx): Promise<boolean> {
  return Number((await tx.get('SELECT COUNT(*) AS n FROM customers'))?.['n']) === 0;
}

/** Replaces every business row with the demo data, in the caller's transaction. */
export async function seedDemoData(tx: Tx, now = new Date().toISOString()): Promise<void> {
  for (const table of TABLES) await tx.run(`DELETE FROM ${table}`);
  // Event positions start again with the data (a reseeded store is a new history).
  await tx.run('UPDATE event_relay SET holder = NULL, lease_until = NULL, last_position = 0');
  for (const c of DEMO_CUSTOMERS) {
    await insertCustomer(tx, {
      ...c,
      phone: null,
      birthDate: null,
      address: null,
      currency: 'EUR',
      createdBy: null,
      createdAt: now,
      updatedAt: now,
    });
  }
  for (const link of DEMO_PARTNER_LINKS) await linkPartnerCustomer(tx, { ...link, linkedAt: now });
  // Opening balances are posted against an equity account per currency, so the books stay balanced.
  for (const currency of ['EUR', 'USD']) {
    await insertAccount(tx, {
      accountId: `SYS-OPENING-${currency}`,
      customerId: null,
      currency,
      balance: 0,
      kind: 'SYSTEM',
    });
  }
  for (const a of DEMO_ACCOUNTS) {
    await insertAccount(tx, {
      accountId: a.accountId,
      customerId: a.customerId,
      currency: a.currency,
      balance: 0,
      kind: 'CUSTOMER',
    });
    await postTransfer(tx, {
      transferId: `OPENING-${a.accountId}`,
      debitAccountId: `SYS-OPENING-${a.currency}`,
      creditAccountId: a.accountId,
      amount: a.opening,
      currency: a.currency,
      correlationId: 'seed',
      at: now,
    });
  }
  for (const p of DEMO_PRODUCTS) await insertProduct(tx, p);
}
