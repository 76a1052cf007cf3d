/** ACCBAL: balance inquiry. Available equals booked balance until holds exist. */
import { mayUseCustomerData } from '../caller.ts';
import { RC } from '../message.ts';
import { fromMinorUnits } from '../money.ts';
import { fail, ok, text, type Program } from '../program.ts';
import { findAccount } from '../store/accounts.ts';

export const balanceInquiry: Program<'ACCBAL'> = async (ctx, req) => {
  const account = await findAccount(ctx.tx, text(req.acckAccountId));
  if (!account || account.kind !== 'CUSTOMER' || !mayUseCustomerData(ctx.caller, account.customerId)) {
    return fail(RC.NOT_FOUND, 'ACCOUNT_NOT_FOUND', 'account not found');
  }
  return ok({
    accbAccountId: account.accountId,
    accbCustomerId: account.customerId ?? '',
    accbCurrencyCode: account.currency,
    accbBalance: fromMinorUnits(account.balance),
    accbAvailable: fromMinorUnits(account.balance),
    accbAsOf: ctx.now,
  });
};
