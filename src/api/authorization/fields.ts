/**
 * Field-level authorization (OWASP API3): which response fields each role receives, one explicit list per
 * resource. Routes build the full object from the back-end record and project it here; anything not listed
 * for a role is never sent to it. The OpenAPI document marks the restricted fields (`x-roles`).
 */
import type { Role } from '../auth/roles.ts';

export const CUSTOMER_FIELDS = {
  agent: ['customerId', 'name', 'email', 'phone', 'dateOfBirth', 'address', 'riskRating', 'monthlyIncome', 'orderCreditLimit', 'currency', 'createdAt', 'updatedAt'],
  customer: ['customerId', 'name', 'email', 'phone', 'dateOfBirth', 'address', 'createdAt', 'updatedAt'],
  partner: ['customerId', 'name'],
} as const satisfies Record<Role, readonly string[]>;

// Orders: every caller allowed on the route (the route table) sees the whole order; listed so a field
// added to the schema is a decision, not an accident.
const ORDER_ALL = ['orderId', 'status', 'reason', 'customerId', 'productId', 'quantity', 'amount', 'currency', 'createdAt', 'updatedAt'] as const;
export const ORDER_FIELDS = { agent: ORDER_ALL, customer: ORDER_ALL, partner: ORDER_ALL } as const satisfies Record<Role, readonly string[]>;

// Balances, payments and loans: no partner access (the route table refuses them too; an empty list here
// means nothing would leak if a route's roles were widened by mistake).
const BALANCE_ALL = ['account', 'balance', 'currency', 'availableBalance', 'asOf'] as const;
export const BALANCE_FIELDS = { agent: BALANCE_ALL, customer: BALANCE_ALL, partner: [] } as const satisfies Record<Role, readonly string[]>;

const PAYMENT_ALL = ['paymentId', 'status', 'reason', 'debtorAccount', 'creditorAccount', 'amount', 'currency', 'reference', 'createdAt'] as const;
export const PAYMENT_FIELDS = { agent: PAYMENT_ALL, customer: PAYMENT_ALL, partner: [] } as const satisfies Record<Role, readonly string[]>;

const LOAN_ALL = [
  'loanId', 'status', 'reason', 'customerId', 'requestedAmount', 'approvedAmount', 'interestRate', 'installmentValue', 'installments', 'currency', 'createdAt',
] as const;
export const LOAN_FIELDS = { agent: LOAN_ALL, customer: LOAN_ALL, partner: [] } as const satisfies Record<Role, readonly string[]>;

/** Every resource's list, by the response schema it projects (the fields test checks each covers its schema). */
export const RESOURCE_FIELDS = {
  customer: CUSTOMER_FIELDS, order: ORDER_FIELDS, balance: BALANCE_FIELDS, payment: PAYMENT_FIELDS, loan: LOAN_FIELDS,
} as const;

/** Roles that receive a field of a resource's list: what the OpenAPI document shows. */
export function rolesReceiving(fields: Record<Role, readonly string[]>, field: string): Role[] {
  return (Object.keys(fields) as Role[]).filter((role) => fields[role].includes(field));
}

/** The object with only the fields the role may see; a role without a list receives nothing. */
export function projectFields<T extends object>(value: T, fields: Record<Role, readonly string[]>, role: Role | undefined): Partial<T> {
  const allowed: readonly string[] = role === undefined ? [] : fields[role];
  const out: Partial<T> = {};
  for (const key of allowed) {
    if (Object.hasOwn(value, key) && (value as Record<string, unknown>)[key] !== undefined) {
      (out as Record<string, unknown>)[key] = (value as Record<string, unknown>)[key];
    }
  }
  return out;
}
