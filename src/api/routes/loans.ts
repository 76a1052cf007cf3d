/** /v1/loan-applications — LNAPPL (decision), LNINQ, and a customer's applications (LNLST). */
import type { LoanRequest as LoanRequestRecord, MessageCatalog } from '../../backend/copybooks/index.ts';
import { segmentReader } from '../../backend/message.ts';
import { cursorCodec, CursorParam } from '../cursor.ts';
import { pageLimit, pageSizeOf } from '../../resources/schemas/page.ts';
import { recordDecimal, recordInteger, recordString } from '../../resources/schemas/record-field.ts';
import { LOAN_AMOUNT_MINOR, LOAN_INSTALLMENTS } from '../../backend/limits.ts';
import { fromMinorUnits, minorToDecimalString } from '../../backend/money.ts';
import type { RecordPointers } from '../../client/refusal.ts';
import { Type, type Static } from 'typebox';
import { assertMayNameCustomer } from '../plugins/auth.ts';
import {
  APPROVED_LOAN_EXAMPLE,
  LoanApplicationList,
  LoanDecision,
  LoanStatus,
  loanForRole,
  loanFromRecord,
  REJECTED_LOAN_EXAMPLE,
} from '../../resources/loan.ts';
import { CUSTOMER_ID_FORMAT, CustomerId, idempotencyKeyHeader, LoanId } from '../../resources/schemas/common.ts';
import { OperationAccepted } from '../../resources/operation.ts';
import { PreferHeader, prefersAsync, respondAsync } from '../respond-async.ts';
import { fromTable, protectedErrors, STANDARD_ERRORS, type Api, type RouteDeps } from './common.ts';

/**
 * The customer's string identifier, as everywhere else; the contract's first clients send it as a JSON
 * number, which still names the same customer.
 */
const LoanCustomerId = Type.Union(
  [
    CustomerId,
    Type.Integer({
      minimum: 1,
      maximum: 9_999_999_999,
      deprecated: true,
      description:
        'Deprecated: the same identifier as a JSON integer, the numeric form of the first contract; send the string',
    }),
  ],
  { description: 'Customer identifier (a string; a JSON integer is accepted but deprecated)' },
);

export const LoanRequest = Type.Object(
  {
    customerId: LoanCustomerId,
    amount: recordDecimal('LNAPPL', 'lnrqAmount', {
      minimum: fromMinorUnits(LOAN_AMOUNT_MINOR.min),
      maximum: fromMinorUnits(LOAN_AMOUNT_MINOR.max),
      description: `${minorToDecimalString(LOAN_AMOUNT_MINOR.min)} to ${minorToDecimalString(LOAN_AMOUNT_MINOR.max)}, at most two decimals`,
    }),
    installments: recordInteger('LNAPPL', 'lnrqInstallments', {
      minimum: LOAN_INSTALLMENTS.min,
      maximum: LOAN_INSTALLMENTS.max,
      description: `${LOAN_INSTALLMENTS.min} to ${LOAN_INSTALLMENTS.max} monthly installments`,
    }),
  },
  {
    additionalProperties: false,
    examples: [
      {
        customerId: APPROVED_LOAN_EXAMPLE.customerId,
        amount: APPROVED_LOAN_EXAMPLE.requestedAmount,
        installments: APPROVED_LOAN_EXAMPLE.installments,
      },
    ],
  },
);
export type LoanRequest = Static<typeof LoanRequest>;

const LoanListQuery = Type.Object(
  {
    customerId: Type.Optional(
      recordString('LNLST', 'lnlCustomerId', {
        ...CUSTOMER_ID_FORMAT,
        description:
          "Whose applications: a customer's own when not given (and only their own); every customer's for staff",
      }),
    ),
    status: Type.Optional(LoanStatus),
    limit: pageLimit('LNLST', 'lnlMaxItems'),
    cursor: CursorParam('Opaque cursor from `nextCursor`'),
  },
  { additionalProperties: false },
);

const cursor = cursorCodec('l', 'cursor');

export function loanRoutes(app: Api, { backend, catalog }: RouteDeps & { catalog: MessageCatalog }): void {
  app.route({
    ...fromTable('createLoanApplication'),
    schema: {
      ...protectedErrors(['loans'], 'createLoanApplication', 'Apply for a loan and receive the decision'),
      headers: Type.Object({
        'idempotency-key': Type.Optional(idempotencyKeyHeader('loan-9b2e4c71-3f5a-4d08-a6c2-7e1d0b8f5a34')),
        prefer: PreferHeader,
      }),
      body: LoanRequest,
      response: {
        202: { description: 'Accepted to run later (Prefer: respond-async): see Location', ...OperationAccepted },
        201: {
          description: 'Loan approved (possibly for a lower amount)',
          ...LoanDecision,
          examples: [APPROVED_LOAN_EXAMPLE],
        },
        200: {
          description: 'Loan rejected (status REJECTED, see reason)',
          ...LoanDecision,
          examples: [REJECTED_LOAN_EXAMPLE],
        },
        ...STANDARD_ERRORS,
      },
    },
    handler: async (req, reply) => {
      // The loan record's customer number is numeric (PIC 9): "1001", "01001" and 1001 are one customer.
      const customerNumber = Number(req.body.customerId);
      assertMayNameCustomer(req.principal, String(customerNumber));
      const record: LoanRequestRecord = {
        lnrqCustomerId: customerNumber,
        lnrqAmount: req.body.amount,
        lnrqInstallments: req.body.installments,
      };
      const pointers: RecordPointers = {
        lnrqCustomerId: '/customerId',
        lnrqAmount: '/amount',
        lnrqInstallments: '/installments',
      };
      if (prefersAsync(req)) return respondAsync(backend, 'LNAPPL', req, reply, record, pointers);
      const out = await backend.call('LNAPPL', req, record, pointers);
      const decision = loanForRole(loanFromRecord(out.body), req.principal?.role);
      if (out.rejected) return reply.code(200).send(decision);
      return reply.code(201).header('location', `/v1/loan-applications/${decision.loanId}`).send(decision);
    },
  });

  app.route({
    ...fromTable('getLoanApplication'),
    schema: {
      ...protectedErrors(['loans'], 'getLoanApplication', 'Read a loan decision'),
      params: Type.Object({ loanId: LoanId }, { additionalProperties: false }),
      response: {
        200: { description: 'Success', ...LoanDecision, examples: [APPROVED_LOAN_EXAMPLE] },
        ...STANDARD_ERRORS,
      },
    },
    handler: async (req) => {
      const out = await backend.call('LNINQ', req, { lnkLoanId: req.params.loanId });
      return loanForRole(loanFromRecord(out.body), req.principal?.role);
    },
  });

  app.route({
    ...fromTable('listLoanApplications'),
    schema: {
      ...protectedErrors(['loans'], 'listLoanApplications', "A customer's loan applications, newest first"),
      querystring: LoanListQuery,
      response: {
        200: {
          description: 'Success',
          ...LoanApplicationList,
          examples: [{ items: [APPROVED_LOAN_EXAMPLE], nextCursor: null }],
        },
        ...STANDARD_ERRORS,
      },
    },
    handler: async (req) => {
      const q = req.query;
      // The customer number is numeric in the loan records: "01001" names 1001, as on POST.
      const customerId = q.customerId === undefined ? '' : String(Number(q.customerId));
      if (customerId) assertMayNameCustomer(req.principal, customerId);
      const out = await backend.call(
        'LNLST',
        req,
        {
          lnlCustomerId: customerId,
          lnlStatusFilter: q.status ?? '',
          lnlMaxItems: pageSizeOf(q.limit),
          lnlBeforeSeq: q.cursor ? cursor.decode(q.cursor) : 0,
        },
        { lnlCustomerId: '/customerId' },
      );
      const read = segmentReader(catalog, out.segments);
      const next = out.body.seglNextSeq;
      return {
        items: Array.from({ length: out.body.seglItemCount }, () =>
          loanForRole(loanFromRecord(read('LOANREC')), req.principal?.role),
        ),
        nextCursor: next > 0 ? cursor.encode(next) : null,
      };
    },
  });
}
