/**
 * ACCBAL: balance inquiry; ACCLST: a customer's accounts, each as its balance. Available equals booked balance until
 * holds exist.
 */
import { mayUseCustomerData } from '../caller.ts';
import type { AccountBalance } from '../copybooks/records.ts';
import { RC, recordSegment } from '../message.ts';
import { fromMinorUnits } from '../money.ts';
import { fail, ok, text, type Program } from '../program.ts';
import { findAccount, listCustomerAccounts, type Account } from '../store/accounts.ts';
import { findCustomer } from '../store/customers.ts';
import { pageSize, segmentPage } from './lists.ts';

function balanceRecord(account: Account, asOf: string): AccountBalance {
  return {
    accbAccountId: account.accountId,
    accbCustomerId: account.customerId ?? '',
    accbCurrencyCode: account.currency,
    accbBalance: fromMinorUnits(account.balance),
    accbAvailable: fromMinorUnits(account.balance),
    accbAsOf: asOf,
  };
}

export const balanceInquiry: Program<'ACCBAL'> = async (ctx, req) => {
  const account = await findAccount(ctx.tx, text(req.acckAccountId));
  if (!account || account.kind !== 'CUSTOMER' || !mayUseCustomerData(ctx.caller, account.customerId)) {
    return fail(RC.NOT_FOUND, 'ACCOUNT_NOT_FOUND', 'account not found');
  }
  return ok(balanceRecord(account, ctx.now));
};

/** The accounts of a customer the caller may see (ACCBAL's rule for each of them), in opening order. */
export const listAccountsProgram: Program<'ACCLST'> = async (ctx, req) => {
  const customer = await findCustomer(ctx.tx, text(req.acclCustomerId));
  if (!customer || !mayUseCustomerData(ctx.caller, customer.customerId)) {
    return fail(RC.NOT_FOUND, 'CUSTOMER_NOT_FOUND', 'customer not found');
  }
  const limit = pageSize(req.acclMaxItems);
  const rows = await listCustomerAccounts(ctx.tx, customer.customerId, {
    afterSeq: req.acclAfterSeq || 0,
    limit: limit + 1,
  });
  return segmentPage(rows, limit, (account) => recordSegment('ACCBALO', balanceRecord(account, ctx.now)));
};
