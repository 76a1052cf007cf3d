/** A loan decision as the API shows it: its schema, its view of LOANREC, and what each role receives. */
import { Type, type Static } from 'typebox';
import type { Role } from '../auth/roles.ts';
import type { LoanDecision as LoanRecord } from '../backend/copybooks/index.ts';
import { projectFields, type FieldLists } from './fields.ts';
import { CurrencyCode, CustomerId, LoanId, Money, Timestamp } from './schemas/common.ts';
import { pageOf } from './schemas/page.ts';

export const LoanStatus = Type.Union([Type.Literal('APPROVED'), Type.Literal('REJECTED')]);

export const LoanDecision = Type.Object({
  loanId: LoanId,
  status: Type.Union([Type.Literal('APPROVED'), Type.Literal('REJECTED')], {
    description:
      'APPROVED (possibly for less than requested) or REJECTED; a rejection offers nothing: ' +
      'approvedAmount, interestRate and installmentValue are 0, whatever the reason',
  }),
  reason: Type.Optional(
    Type.String({
      description:
        'Only when REJECTED: RISK_RATING (the customer is not lent to) or INSUFFICIENT_INCOME ' +
        '(not even half the amount is affordable)',
      examples: ['INSUFFICIENT_INCOME'],
    }),
  ),
  customerId: CustomerId,
  requestedAmount: Money,
  approvedAmount: { ...Money, description: 'Amount lent, at most the requested amount; 0 when REJECTED' },
  interestRate: Type.Number({ description: 'Annual rate in percent; 0 when REJECTED' }),
  installmentValue: { ...Money, description: 'Monthly installment; 0 when REJECTED' },
  installments: Type.Integer(),
  currency: CurrencyCode,
  createdAt: Timestamp,
});
export type LoanDecision = Static<typeof LoanDecision>;

/** Examples for the contract: a demo customer's approved application, and a rejected one (which offers nothing). */
export const APPROVED_LOAN_EXAMPLE: LoanDecision = {
  loanId: 'LN-0A1B2C3D4E5F6789',
  status: 'APPROVED',
  customerId: '1001',
  requestedAmount: 10000,
  approvedAmount: 10000,
  interestRate: 6.9,
  installmentValue: 447.27,
  installments: 24,
  currency: 'EUR',
  createdAt: '2026-11-28T09:30:00.000Z',
};
export const REJECTED_LOAN_EXAMPLE: LoanDecision = {
  ...APPROVED_LOAN_EXAMPLE,
  loanId: 'LN-1B2C3D4E5F6789A0',
  status: 'REJECTED',
  reason: 'INSUFFICIENT_INCOME',
  customerId: '1002',
  requestedAmount: 150000,
  approvedAmount: 0,
  interestRate: 0,
  installmentValue: 0,
  installments: 12,
};

/** Loan applications, each as GET /v1/loan-applications/{loanId} shows it. */
export const LoanApplicationList = pageOf(LoanDecision);

// No partner access (the route table refuses them too).
const LOAN_ALL = [
  'loanId',
  'status',
  'reason',
  'customerId',
  'requestedAmount',
  'approvedAmount',
  'interestRate',
  'installmentValue',
  'installments',
  'currency',
  'createdAt',
] as const;
export const LOAN_FIELDS = { agent: LOAN_ALL, customer: LOAN_ALL, partner: [] } as const satisfies FieldLists;

/** LOANREC → API loan decision. */
export function loanFromRecord(r: LoanRecord): LoanDecision {
  const status = r.lnStatus as LoanDecision['status'];
  return {
    loanId: r.lnLoanId,
    status,
    ...(status === 'REJECTED' && r.lnRejectReason ? { reason: r.lnRejectReason } : {}),
    // The record's customer number is numeric (PIC 9); the API's customerId is the customers' string id.
    customerId: `${r.lnCustomerId}`,
    requestedAmount: r.lnRequestedAmount,
    approvedAmount: r.lnApprovedAmount,
    interestRate: r.lnInterestRate,
    installmentValue: r.lnInstallmentValue,
    installments: r.lnInstallments,
    currency: r.lnCurrencyCode,
    createdAt: r.lnCreatedAt,
  };
}

/** The decision as the caller's role may see it. */
export function loanForRole(loan: LoanDecision, role: Role | undefined): LoanDecision {
  return projectFields(loan, LOAN_FIELDS, role) as LoanDecision;
}
