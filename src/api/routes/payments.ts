/** /v1/payments — PAYCRT (Idempotency-Key required), PAYINQ, and an account's payments (PAYLST). */
import { Type, type Static } from 'typebox';
import {
  COMPLETED_PAYMENT_EXAMPLE,
  Payment,
  PaymentList,
  PaymentStatus,
  paymentForRole,
  paymentFromRecord,
  REJECTED_PAYMENT_EXAMPLE,
} from '../../resources/payment.ts';
import { PAYMENT_AMOUNT_MINOR } from '../../backend/limits.ts';
import { fromMinorUnits, minorToDecimalString } from '../../backend/money.ts';
import {
  ACCOUNT_ID_FORMAT,
  AccountId,
  CurrencyCode,
  idempotencyKeyHeader,
  PaymentId,
} from '../../resources/schemas/common.ts';
import { recordDecimal, recordString } from '../../resources/schemas/record-field.ts';
import type { RecordPointers } from '../../client/refusal.ts';
import type { MessageCatalog, PaymentCreateRequest } from '../../backend/copybooks/index.ts';
import { segmentReader } from '../../backend/message.ts';
import { cursorCodec, CursorParam } from '../cursor.ts';
import { pageLimit, pageSizeOf } from '../../resources/schemas/page.ts';
import { OperationAccepted } from '../../resources/operation.ts';
import { PreferHeader, prefersAsync, respondAsync } from '../respond-async.ts';
import { fromTable, protectedErrors, STANDARD_ERRORS, type Api, type RouteDeps } from './common.ts';

export const PaymentRequest = Type.Object(
  {
    debtorAccount: AccountId,
    creditorAccount: AccountId,
    amount: recordDecimal('PAYCRT', 'paycAmount', {
      exclusiveMinimum: fromMinorUnits(PAYMENT_AMOUNT_MINOR.above),
      maximum: fromMinorUnits(PAYMENT_AMOUNT_MINOR.max),
      description: `Above ${minorToDecimalString(PAYMENT_AMOUNT_MINOR.above)}, at most ${minorToDecimalString(PAYMENT_AMOUNT_MINOR.max)}, at most two decimals`,
    }),
    currency: CurrencyCode,
    reference: Type.Optional(
      recordString('PAYCRT', 'paycRemittance', {
        minLength: 1,
        description: 'Remittance information shown to the creditor',
      }),
    ),
  },
  {
    additionalProperties: false,
    // Demo accounts of ada (customer 1001) and alan, both in EUR: the payment goes through.
    examples: [
      {
        debtorAccount: COMPLETED_PAYMENT_EXAMPLE.debtorAccount,
        creditorAccount: COMPLETED_PAYMENT_EXAMPLE.creditorAccount,
        amount: COMPLETED_PAYMENT_EXAMPLE.amount,
        currency: COMPLETED_PAYMENT_EXAMPLE.currency,
        reference: COMPLETED_PAYMENT_EXAMPLE.reference,
      },
    ],
  },
);
export type PaymentRequest = Static<typeof PaymentRequest>;

const PAYMENT_POINTERS: RecordPointers = {
  paycDebtorAccount: '/debtorAccount',
  paycCreditorAccount: '/creditorAccount',
  paycAmount: '/amount',
  paycCurrencyCode: '/currency',
  paycRemittance: '/reference',
};

/**
 * The account is required, for staff too: the list is an account's statement, its object-level check is the
 * account's (404 for one the caller may not use), and every page is read through that account's indexes.
 */
const PaymentListQuery = Type.Object(
  {
    accountId: recordString('PAYLST', 'paylAccountId', {
      ...ACCOUNT_ID_FORMAT,
      description: 'The account whose payments (paid and received) are listed',
      examples: ['1001-01'],
    }),
    status: Type.Optional(PaymentStatus),
    limit: pageLimit('PAYLST', 'paylMaxItems'),
    cursor: CursorParam('Opaque cursor from `nextCursor`'),
  },
  { additionalProperties: false },
);

const cursor = cursorCodec('p', 'cursor');

export function paymentRoutes(app: Api, { backend, catalog }: RouteDeps & { catalog: MessageCatalog }): void {
  app.route({
    ...fromTable('createPayment'),
    schema: {
      ...protectedErrors(['payments'], 'createPayment', 'Create a payment between two accounts'),
      headers: Type.Object({
        'idempotency-key': idempotencyKeyHeader('payment-5f0c6f4e-8d3a-4c1e-9b7a-2f64c1d0a9e3'),
        prefer: PreferHeader,
      }),
      body: PaymentRequest,
      response: {
        202: { description: 'Accepted to run later (Prefer: respond-async): see Location', ...OperationAccepted },
        201: { description: 'Payment completed', ...Payment, examples: [COMPLETED_PAYMENT_EXAMPLE] },
        200: {
          description: 'Payment rejected by the back-end (status REJECTED, see reason)',
          ...Payment,
          examples: [REJECTED_PAYMENT_EXAMPLE],
        },
        ...STANDARD_ERRORS,
      },
    },
    handler: async (req, reply) => {
      const b = req.body;
      const record: PaymentCreateRequest = {
        paycDebtorAccount: b.debtorAccount,
        paycCreditorAccount: b.creditorAccount,
        paycAmount: b.amount,
        paycCurrencyCode: b.currency,
        paycRemittance: b.reference ?? '',
      };
      if (prefersAsync(req)) return respondAsync(backend, 'PAYCRT', req, reply, record, PAYMENT_POINTERS);
      const out = await backend.call('PAYCRT', req, record, PAYMENT_POINTERS);
      const payment = paymentForRole(paymentFromRecord(out.body), req.principal?.role);
      if (out.rejected) return reply.code(200).send(payment);
      return reply.code(201).header('location', `/v1/payments/${payment.paymentId}`).send(payment);
    },
  });

  app.route({
    ...fromTable('getPayment'),
    schema: {
      ...protectedErrors(['payments'], 'getPayment', 'Read a payment'),
      params: Type.Object({ paymentId: PaymentId }, { additionalProperties: false }),
      response: {
        200: { description: 'Success', ...Payment, examples: [COMPLETED_PAYMENT_EXAMPLE] },
        ...STANDARD_ERRORS,
      },
    },
    handler: async (req) => {
      const out = await backend.call('PAYINQ', req, { paykPaymentId: req.params.paymentId });
      return paymentForRole(paymentFromRecord(out.body), req.principal?.role);
    },
  });

  app.route({
    ...fromTable('listPayments'),
    schema: {
      ...protectedErrors(['payments'], 'listPayments', "An account's payments, paid and received, newest first"),
      querystring: PaymentListQuery,
      response: {
        200: {
          description: 'Success',
          ...PaymentList,
          examples: [{ items: [COMPLETED_PAYMENT_EXAMPLE, REJECTED_PAYMENT_EXAMPLE], nextCursor: null }],
        },
        ...STANDARD_ERRORS,
      },
    },
    handler: async (req) => {
      const q = req.query;
      const out = await backend.call(
        'PAYLST',
        req,
        {
          paylAccountId: q.accountId,
          paylStatusFilter: q.status ?? '',
          paylMaxItems: pageSizeOf(q.limit),
          paylBeforeSeq: q.cursor ? cursor.decode(q.cursor) : 0,
        },
        { paylAccountId: '/accountId' },
      );
      const read = segmentReader(catalog, out.segments);
      const next = out.body.seglNextSeq;
      return {
        items: Array.from({ length: out.body.seglItemCount }, () =>
          paymentForRole(paymentFromRecord(read('PAYREC')), req.principal?.role),
        ),
        nextCursor: next > 0 ? cursor.encode(next) : null,
      };
    },
  });
}
