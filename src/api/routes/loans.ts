/** /v1/loan-applications — LNAPPL (decision) and LNINQ. */
import { Type, type Static } from 'typebox';
import { assertMayNameCustomer } from '../plugins/auth.ts';
import { problem } from '../schemas/problem.ts';
import { LOAN_FIELDS, projectFields } from '../authorization/fields.ts';
import type { Role } from '../auth/roles.ts';
import { CurrencyCode, IdempotencyKeyHeader, LoanId, Money, Timestamp } from '../schemas/common.ts';
import { OperationAccepted, PreferHeader, prefersAsync, respondAsync } from './operations.ts';
import { fromTable, protectedErrors, STANDARD_ERRORS, type Api, type RouteDeps } from './common.ts';

export const LoanRequest = Type.Object(
  {
    customerId: Type.Integer({ minimum: 1, maximum: 9_999_999_999, description: 'Customer number' }),
    amount: Type.Number({ description: '500.00 to 200000.00' }),
    installments: Type.Integer({ description: '6 to 120 monthly installments' }),
  },
  { additionalProperties: false },
);
export type LoanRequest = Static<typeof LoanRequest>;

export const LoanDecision = Type.Object({
  loanId: LoanId,
  status: Type.Union([Type.Literal('APPROVED'), Type.Literal('REJECTED')]),
  reason: Type.Optional(Type.String({ examples: ['INSUFFICIENT_INCOME'] })),
  customerId: Type.Integer(),
  requestedAmount: Money,
  approvedAmount: Money,
  interestRate: Type.Number({ description: 'Annual rate in percent' }),
  installmentValue: Money,
  installments: Type.Integer(),
  currency: CurrencyCode,
  createdAt: Timestamp,
});
export type LoanDecision = Static<typeof LoanDecision>;

/** The decision as the caller's role may see it (src/api/authorization/fields.ts). */
const forRole = (loan: LoanDecision, role: Role | undefined): LoanDecision => projectFields(loan, LOAN_FIELDS, role) as LoanDecision;

export function loanFromRecord(r: Record<string, unknown>): LoanDecision {
  const status = String(r['lnStatus']) as LoanDecision['status'];
  const reason = String(r['lnRejectReason'] ?? '');
  return {
    loanId: String(r['lnLoanId']),
    status,
    ...(status === 'REJECTED' && reason ? { reason } : {}),
    customerId: Number(r['lnCustomerId']),
    requestedAmount: Number(r['lnRequestedAmount']),
    approvedAmount: Number(r['lnApprovedAmount']),
    interestRate: Number(r['lnInterestRate']),
    installmentValue: Number(r['lnInstallmentValue']),
    installments: Number(r['lnInstallments']),
    currency: String(r['lnCurrencyCode']),
    createdAt: String(r['lnCreatedAt']),
  };
}

export function loanRoutes(app: Api, { backend }: RouteDeps): void {
  app.route({
    ...fromTable('createLoanApplication'),
    schema: {
      ...protectedErrors(['loans'], 'createLoanApplication', 'Apply for a loan and receive the decision'),
      headers: Type.Object({ 'idempotency-key': Type.Optional(IdempotencyKeyHeader), prefer: PreferHeader }),
      body: LoanRequest,
      response: {
        202: { description: 'Accepted to run later (Prefer: respond-async): see Location', ...OperationAccepted },
        201: { description: 'Loan approved (possibly for a lower amount)', ...LoanDecision },
        200: { description: 'Loan rejected (status REJECTED, see reason)', ...LoanDecision },
        ...STANDARD_ERRORS,
        409: problem('The same Idempotency-Key is still in flight'),
        422: problem('The same Idempotency-Key was used with a different request'),
      },
    },
    handler: async (req, reply) => {
      assertMayNameCustomer(req.principal, String(req.body.customerId));
      const record = { lnrqCustomerId: req.body.customerId, lnrqAmount: req.body.amount, lnrqInstallments: req.body.installments };
      const pointers = { lnrqCustomerId: '/customerId', lnrqAmount: '/amount', lnrqInstallments: '/installments' };
      if (prefersAsync(req)) return respondAsync(backend, 'LNAPPL', req, reply, record, pointers);
      const out = await backend.call('LNAPPL', req, record, pointers);
      const decision = forRole(loanFromRecord(out.body), req.principal?.role);
      if (out.rejected) return reply.code(200).send(decision);
      return reply.code(201).header('location', `/v1/loan-applications/${decision.loanId}`).send(decision);
    },
  });

  app.route({
    ...fromTable('getLoanApplication'),
    schema: {
      ...protectedErrors(['loans'], 'getLoanApplication', 'Read a loan decision'),
      params: Type.Object({ loanId: LoanId }, { additionalProperties: false }),
      response: { 200: { description: 'Success', ...LoanDecision }, ...STANDARD_ERRORS },
    },
    handler: async (req) => {
      const out = await backend.call('LNINQ', req, { lnkLoanId: req.params.loanId });
      return forRole(loanFromRecord(out.body), req.principal?.role);
    },
  });
}
