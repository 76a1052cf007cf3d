/**
 * LNDECIDE, the loan decision rule, in TypeScript: the same rule as src/backend/cobol/LNDECIDE.cbl,
 * record for record (the differential test holds them to identical bytes). LNAPPL links to whichever
 * runs it (PROGRAMS_COBOL).
 */
import { installmentFor, largestPrincipal } from '../loan-math.ts';
import type { LoanRuleInput, LoanRuleResult } from '../copybooks/records.ts';
import { fromMinorUnits, toMinorUnits } from '../money.ts';

/** Annual rate per risk rating in hundredths of a percent; D is not lent to. */
const RATE_BY_RATING: Record<string, number | undefined> = { A: 690, B: 890, C: 1290 };
const LONG_TERM_SURCHARGE = 100;
const LONG_TERM_FROM = 61;
/** Affordable: installment ≤ 40 % of monthly income. */
const AFFORDABLE_PERCENT = 40;
const APPROVAL_STEP = 10_000; // counter-offers are multiples of 100.00

export interface Decision {
  status: 'APPROVED' | 'REJECTED';
  reason: string | null;
  approved: number;
  rateBp: number;
  installment: number;
}

/** A rejection offers nothing, whatever the reason: no amount, no rate, no installment. */
function rejection(reason: string): Decision {
  return { status: 'REJECTED', reason, approved: 0, rateBp: 0, installment: 0 };
}

/**
 * The annual rate offered to a rating over so many installments, in hundredths of a percent; undefined: not lent to.
 */
export function rateFor(rating: string, installments: number): number | undefined {
  const baseRate = RATE_BY_RATING[rating];
  return baseRate === undefined ? undefined : baseRate + (installments >= LONG_TERM_FROM ? LONG_TERM_SURCHARGE : 0);
}

/** Amounts in minor units, the rate in hundredths of a percent. */
export function decideLoan(rating: string, monthlyIncome: number, amount: number, installments: number): Decision {
  const rateBp = rateFor(rating, installments);
  if (rateBp === undefined) return rejection('RISK_RATING');
  // installment ≤ income·40/100 ⇔ installment ≤ floor(income·40/100) for whole cents.
  const maxInstallment = Math.floor((monthlyIncome * AFFORDABLE_PERCENT) / 100);
  const full = installmentFor(amount, rateBp, installments);
  if (full <= maxInstallment) return { status: 'APPROVED', reason: null, approved: amount, rateBp, installment: full };
  const reduced = largestPrincipal(maxInstallment, rateBp, installments, APPROVAL_STEP);
  if (reduced > 0 && reduced * 2 >= amount) {
    return {
      status: 'APPROVED',
      reason: null,
      approved: reduced,
      rateBp,
      installment: installmentFor(reduced, rateBp, installments),
    };
  }
  return rejection('INSUFFICIENT_INCOME');
}

/** LNDECI record → LNDECO record. */
export function decideLoanRecord(request: LoanRuleInput): LoanRuleResult {
  const d = decideLoan(
    request.lndiRiskRating.trim(),
    toMinorUnits(request.lndiMonthlyIncome),
    toMinorUnits(request.lndiAmount),
    request.lndiInstallments,
  );
  return {
    lndoStatus: d.status,
    lndoRejectReason: d.reason ?? '',
    lndoApprovedAmount: fromMinorUnits(d.approved),
    lndoInterestRate: fromMinorUnits(d.rateBp),
    lndoInstallmentValue: fromMinorUnits(d.installment),
  };
}
