/**
 * PAYCRT creates a payment, PAYINQ reads one. Exactly-once: the payment row carries the caller's
 * idempotency key (unique per caller) and commits with its postings, so a retry after any crash
 * finds the original instead of paying twice.
 */
import { maySeePayment, mayUseCustomerData, paymentAudience } from '../caller.ts';
import { newId } from '../ids.ts';
import { KEY_REUSED_REASON, RC, recordSegment } from '../message.ts';
import { PAYMENT_AMOUNT_MINOR } from '../limits.ts';
import { fromMinorUnits, minorToDecimalString, MoneyFormatError, toMinorUnits } from '../money.ts';
import type { PaymentRecord } from '../copybooks/records.ts';
import { decided, fail, ok, replayed, text, type Program } from '../program.ts';
import { findAccount, lockAccounts, postTransfer } from '../store/accounts.ts';
import { writeAudit, writeEvent } from '../store/journal.ts';
import {
  findPayment,
  findPaymentByIdempotencyKey,
  insertPayment,
  listAccountPayments,
  type Payment,
} from '../store/payments.ts';
import { pageSize, segmentPage } from './lists.ts';

export function paymentRecord(p: Payment): PaymentRecord {
  return {
    payPaymentId: p.paymentId,
    payStatus: p.status,
    payRejectReason: p.rejectReason ?? '',
    payCustomerId: p.customerId ?? '',
    payDebtorAccount: p.debtorAccount,
    payCreditorAccount: p.creditorAccount,
    payAmount: fromMinorUnits(p.amount),
    payCurrencyCode: p.currency,
    payRemittance: p.remittance ?? '',
    payCreatedBy: p.createdBy,
    payCreatedAt: p.createdAt,
  };
}

function sameRequest(
  p: Payment,
  debtor: string,
  creditor: string,
  amount: number,
  currency: string,
  remittance: string,
) {
  return (
    p.debtorAccount === debtor &&
    p.creditorAccount === creditor &&
    p.amount === amount &&
    p.currency === currency &&
    (p.remittance ?? '') === remittance
  );
}

export const createPayment: Program<'PAYCRT'> = async (ctx, req) => {
  const { tx, caller } = ctx;
  if (!ctx.idempotencyKey)
    return fail(RC.INVALID_INPUT, 'IDEMPOTENCY_KEY_REQUIRED', 'a payment needs an idempotency key');
  const debtorId = text(req.paycDebtorAccount);
  const creditorId = text(req.paycCreditorAccount);
  const currency = text(req.paycCurrencyCode);
  const remittance = text(req.paycRemittance);
  let amount: number;
  try {
    amount = toMinorUnits(req.paycAmount);
  } catch (error) {
    if (error instanceof MoneyFormatError)
      return fail(RC.INVALID_INPUT, 'INVALID_AMOUNT', 'amount has at most two decimals');
    throw error;
  }
  const earlier = await findPaymentByIdempotencyKey(tx, caller.principal, ctx.idempotencyKey);
  if (earlier) {
    if (!sameRequest(earlier, debtorId, creditorId, amount, currency, remittance)) {
      return fail(RC.CONFLICT, KEY_REUSED_REASON, 'this idempotency key was used for a different payment');
    }
    return replayed(decided(earlier, paymentRecord(earlier)));
  }
  if (debtorId === creditorId) return fail(RC.INVALID_INPUT, 'SAME_ACCOUNT', 'debtor and creditor account must differ');
  if (amount <= PAYMENT_AMOUNT_MINOR.above || amount > PAYMENT_AMOUNT_MINOR.max) {
    const [above, max] = [PAYMENT_AMOUNT_MINOR.above, PAYMENT_AMOUNT_MINOR.max].map(minorToDecimalString);
    return fail(RC.INVALID_INPUT, 'AMOUNT_OUT_OF_RANGE', `amount must be above ${above} and at most ${max}`);
  }
  // Locked until the commit: the balance checked below is the balance debited.
  const accounts = await lockAccounts(tx, [debtorId, creditorId]);
  const debtor = accounts.get(debtorId);
  if (!debtor || debtor.kind !== 'CUSTOMER' || !mayUseCustomerData(caller, debtor.customerId)) {
    return fail(RC.NOT_FOUND, 'DEBTOR_ACCOUNT_NOT_FOUND', 'debtor account not found');
  }
  const creditor = accounts.get(creditorId);
  // The payer's own checks come first: only a payment the caller could really make learns whether its
  // creditor account exists (and its currency), so amounts the payer cannot afford probe nothing.
  let reason: string | null = null;
  if (currency !== debtor.currency) reason = 'CURRENCY_MISMATCH';
  else if (debtor.balance < amount) reason = 'INSUFFICIENT_FUNDS';
  else if (!creditor || creditor.kind !== 'CUSTOMER') reason = 'CREDITOR_NOT_FOUND';
  else if (currency !== creditor.currency) reason = 'CURRENCY_MISMATCH';
  const payment: Payment = {
    paymentId: newId('PAY'),
    status: reason ? 'REJECTED' : 'COMPLETED',
    rejectReason: reason,
    customerId: debtor.customerId,
    debtorAccount: debtorId,
    creditorAccount: creditorId,
    amount,
    currency,
    remittance: remittance || null,
    createdBy: caller.principal,
    idempotencyKey: ctx.idempotencyKey,
    correlationId: ctx.correlationId,
    createdAt: ctx.now,
  };
  await insertPayment(tx, payment);
  if (!reason) {
    await postTransfer(tx, {
      transferId: payment.paymentId,
      debitAccountId: debtorId,
      creditAccountId: creditorId,
      amount,
      currency,
      correlationId: ctx.correlationId,
      at: ctx.now,
    });
  }
  await writeAudit(ctx, 'payment', payment.paymentId, reason ? 'rejected' : 'completed');
  await writeEvent(ctx, {
    type: reason ? 'PaymentRejected' : 'PaymentCompleted',
    resource: 'payment',
    subject: payment.paymentId,
    ownerCustomerId: payment.customerId,
    createdBy: payment.createdBy,
    recordName: 'PAYREC',
    record: paymentRecord(payment),
  });
  ctx.log.debug({ paymentId: payment.paymentId, status: payment.status, reason }, 'payment decided');
  return decided(payment, paymentRecord(payment));
};

export const inquirePayment: Program<'PAYINQ'> = async (ctx, req) => {
  const payment = await findPayment(ctx.tx, text(req.paykPaymentId));
  if (!payment || !(await maySeePayment(ctx.tx, ctx.caller, payment))) {
    return fail(RC.NOT_FOUND, 'PAYMENT_NOT_FOUND', 'payment not found');
  }
  return ok(paymentRecord(payment));
};

/**
 * An account's payments, paid and received, newest first: exactly those PAYINQ shows the caller (the same
 * rule, maySeePayment, in SQL), of an account the caller may use (ACCBAL's rule; any other is not found).
 */
export const listPaymentsProgram: Program<'PAYLST'> = async (ctx, req) => {
  const account = await findAccount(ctx.tx, text(req.paylAccountId));
  if (!account || account.kind !== 'CUSTOMER' || !mayUseCustomerData(ctx.caller, account.customerId)) {
    return fail(RC.NOT_FOUND, 'ACCOUNT_NOT_FOUND', 'account not found');
  }
  const limit = pageSize(req.paylMaxItems);
  const rows = await listAccountPayments(ctx.tx, paymentAudience(ctx.caller), {
    accountId: account.accountId,
    status: text(req.paylStatusFilter) || undefined,
    beforeSeq: req.paylBeforeSeq || 0,
    limit: limit + 1,
  });
  return segmentPage(rows, limit, (payment) => recordSegment('PAYREC', paymentRecord(payment)));
};
