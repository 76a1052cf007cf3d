/** An account's balance as the API shows it: its schema, its view of ACCBALO, and what each role receives. */
import { Type, type Static } from 'typebox';
import type { Role } from '../auth/roles.ts';
import type { AccountBalance } from '../backend/copybooks/index.ts';
import { projectFields, type FieldLists } from './fields.ts';
import { AccountId, CurrencyCode, Money, Timestamp } from './schemas/common.ts';
import { pageOf } from './schemas/page.ts';

export const Balance = Type.Object({
  account: AccountId,
  balance: Money,
  currency: CurrencyCode,
  availableBalance: Money,
  asOf: Timestamp,
});
export type Balance = Static<typeof Balance>;

/** A customer's accounts, each as GET /v1/accounts/{accountId}/balance shows it. */
export const AccountList = pageOf(Balance);

// No partner access (the route table refuses them too).
const BALANCE_ALL = ['account', 'balance', 'currency', 'availableBalance', 'asOf'] as const;
export const BALANCE_FIELDS = { agent: BALANCE_ALL, customer: BALANCE_ALL, partner: [] } as const satisfies FieldLists;

/** ACCBALO → API balance, as the caller's role may see it. */
export function balanceFromRecord(r: AccountBalance, role: Role | undefined): Balance {
  const balance: Balance = {
    account: r.accbAccountId,
    balance: r.accbBalance,
    currency: r.accbCurrencyCode,
    availableBalance: r.accbAvailable,
    asOf: r.accbAsOf,
  };
  return projectFields(balance, BALANCE_FIELDS, role) as Balance;
}
