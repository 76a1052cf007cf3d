/** LNAPPL decides a loan application and stores the decision; LNINQ reads one. */
import { mayUseCustomerData } from '../caller.ts';
import { newId } from '../ids.ts';
import { LINK_FAILURE, LinkFailure } from '../links.ts';
import { KEY_REUSED_REASON, RC, recordSegment } from '../message.ts';
import { LOAN_AMOUNT_MINOR, LOAN_INSTALLMENTS } from '../limits.ts';
import { fromMinorUnits, minorToDecimalString, MoneyFormatError, toMinorUnits } from '../money.ts';
import type { LoanDecision } from '../copybooks/records.ts';
import { decided, fail, ok, replayed, text, type Program } from '../program.ts';
import { findCustomer } from '../store/customers.ts';
import { writeAudit, writeEvent } from '../store/journal.ts';
import { findLoan, findLoanByIdempotencyKey, insertLoan, listLoans, type LoanApplication } from '../store/loans.ts';
import { pageSize, segmentPage } from './lists.ts';

export function loanRecord(l: LoanApplication): LoanDecision {
  return {
    lnLoanId: l.loanId,
    lnStatus: l.status,
    lnRejectReason: l.rejectReason ?? '',
    lnCustomerId: Number(l.customerId),
    lnRequestedAmount: fromMinorUnits(l.requestedAmount),
    lnApprovedAmount: fromMinorUnits(l.approvedAmount),
    lnInterestRate: fromMinorUnits(l.interestRateBp),
    lnInstallmentValue: fromMinorUnits(l.installmentValue),
    lnInstallments: l.installments,
    lnCurrencyCode: l.currency,
    lnCreatedBy: l.createdBy,
    lnCreatedAt: l.createdAt,
  };
}

/** The key's earlier application was for this request: the row keeps every business field of it. */
function sameRequest(l: LoanApplication, customerId: string, amount: number, installments: number): boolean {
  return l.customerId === customerId && l.requestedAmount === amount && l.installments === installments;
}

export const applyForLoan: Program<'LNAPPL'> = async (ctx, req) => {
  const { tx, caller } = ctx;
  let amount: number;
  try {
    amount = toMinorUnits(req.lnrqAmount);
  } catch (error) {
    if (error instanceof MoneyFormatError)
      return fail(RC.INVALID_INPUT, 'INVALID_AMOUNT', 'amount has at most two decimals');
    throw error;
  }
  const installments = req.lnrqInstallments;
  // LNRQ-CUSTOMER-ID is numeric; customer ids are kept as text.
  const customerId = String(req.lnrqCustomerId);
  // The API forgets a key after its retention; the key stays here, held to the request it was first used for.
  if (ctx.idempotencyKey) {
    const earlier = await findLoanByIdempotencyKey(tx, caller.principal, ctx.idempotencyKey);
    if (earlier && !sameRequest(earlier, customerId, amount, installments)) {
      return fail(RC.CONFLICT, KEY_REUSED_REASON, 'this idempotency key was used for a different loan application');
    }
    if (earlier) return replayed(decided(earlier, loanRecord(earlier)));
  }
  if (amount < LOAN_AMOUNT_MINOR.min || amount > LOAN_AMOUNT_MINOR.max) {
    const [min, max] = [LOAN_AMOUNT_MINOR.min, LOAN_AMOUNT_MINOR.max].map(minorToDecimalString);
    return fail(RC.INVALID_INPUT, 'AMOUNT_OUT_OF_RANGE', `amount must be between ${min} and ${max}`);
  }
  const { min: fewest, max: most } = LOAN_INSTALLMENTS;
  if (!Number.isInteger(installments) || installments < fewest || installments > most) {
    return fail(RC.INVALID_INPUT, 'INSTALLMENTS_OUT_OF_RANGE', `installments must be between ${fewest} and ${most}`);
  }
  const customer = await findCustomer(tx, customerId);
  if (!customer || !mayUseCustomerData(caller, customer.customerId)) {
    return fail(RC.NOT_FOUND, 'CUSTOMER_NOT_FOUND', `customer ${customerId} not found`);
  }
  // The decision rule is its own program (LNDECIDE), in TypeScript or COBOL: see src/backend/links.ts.
  const decision = ctx.link('LNDECIDE', {
    lndiRiskRating: customer.riskRating,
    lndiMonthlyIncome: fromMinorUnits(customer.monthlyIncome),
    lndiAmount: fromMinorUnits(amount),
    lndiInstallments: installments,
  });
  const status = text(decision.lndoStatus);
  if (status !== 'APPROVED' && status !== 'REJECTED')
    throw new LinkFailure(LINK_FAILURE.FAILED, `LNDECIDE answered status "${status}"`);
  const d = {
    status: status as LoanApplication['status'],
    reason: text(decision.lndoRejectReason) || null,
    approved: toMinorUnits(decision.lndoApprovedAmount),
    rateBp: toMinorUnits(decision.lndoInterestRate),
    installment: toMinorUnits(decision.lndoInstallmentValue),
  };
  const loan: LoanApplication = {
    loanId: newId('LN'),
    status: d.status,
    rejectReason: d.reason,
    customerId,
    requestedAmount: amount,
    approvedAmount: d.approved,
    interestRateBp: d.rateBp,
    installmentValue: d.installment,
    installments,
    currency: customer.currency,
    createdBy: caller.principal,
    idempotencyKey: ctx.idempotencyKey || null,
    correlationId: ctx.correlationId,
    createdAt: ctx.now,
  };
  await insertLoan(tx, loan);
  await writeAudit(ctx, 'loan', loan.loanId, d.status.toLowerCase());
  await writeEvent(ctx, {
    type: d.status === 'APPROVED' ? 'LoanApproved' : 'LoanRejected',
    resource: 'loan',
    subject: loan.loanId,
    ownerCustomerId: customerId,
    createdBy: caller.principal,
    recordName: 'LOANREC',
    record: loanRecord(loan),
  });
  ctx.log.debug({ loanId: loan.loanId, status: d.status, reason: d.reason }, 'loan decided');
  return decided(loan, loanRecord(loan));
};

export const inquireLoan: Program<'LNINQ'> = async (ctx, req) => {
  const loan = await findLoan(ctx.tx, text(req.lnkLoanId));
  if (!loan || !mayUseCustomerData(ctx.caller, loan.customerId))
    return fail(RC.NOT_FOUND, 'LOAN_NOT_FOUND', 'loan not found');
  return ok(loanRecord(loan));
};

/**
 * Loan applications, newest first: exactly those LNINQ shows the caller (mayUseCustomerData). A customer's
 * own by default, and no one else's (not found); staff any customer's, or every customer's when none is named.
 */
export const listLoansProgram: Program<'LNLST'> = async (ctx, req) => {
  const { tx, caller } = ctx;
  let customerId = text(req.lnlCustomerId) || undefined;
  if (customerId === undefined && caller.role === 'CUSTOMER') customerId = caller.customerId ?? undefined;
  if (customerId !== undefined) {
    const customer = await findCustomer(tx, customerId);
    if (!customer || !mayUseCustomerData(caller, customer.customerId))
      return fail(RC.NOT_FOUND, 'CUSTOMER_NOT_FOUND', 'customer not found');
  } else if (caller.role !== 'AGENT') {
    return fail(RC.NOT_FOUND, 'CUSTOMER_NOT_FOUND', 'customer not found');
  }
  const limit = pageSize(req.lnlMaxItems);
  const rows = await listLoans(tx, {
    customerId,
    status: text(req.lnlStatusFilter) || undefined,
    beforeSeq: req.lnlBeforeSeq || 0,
    limit: limit + 1,
  });
  return segmentPage(rows, limit, (loan) => recordSegment('LOANREC', loanRecord(loan)));
};
