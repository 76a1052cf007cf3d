/** A payment as the API shows it: its schema, its view of PAYREC, and what each role receives. */
import { Type, type Static } from 'typebox';
import type { Role } from '../auth/roles.ts';
import type { PaymentRecord } from '../backend/copybooks/index.ts';
import { projectFields, type FieldLists } from './fields.ts';
import { AccountId, CurrencyCode, Money, PaymentId, Timestamp } from './schemas/common.ts';
import { pageOf } from './schemas/page.ts';

export const PaymentStatus = Type.Union([Type.Literal('COMPLETED'), Type.Literal('REJECTED')]);

export const Payment = Type.Object({
  paymentId: PaymentId,
  status: PaymentStatus,
  reason: Type.Optional(Type.String({ examples: ['INSUFFICIENT_FUNDS'] })),
  debtorAccount: AccountId,
  creditorAccount: AccountId,
  amount: Money,
  currency: CurrencyCode,
  reference: Type.Union([Type.String(), Type.Null()]),
  createdAt: Timestamp,
});
export type Payment = Static<typeof Payment>;

/** Examples for the contract: demo accounts of one customer's payment that went through, and one refused. */
export const COMPLETED_PAYMENT_EXAMPLE: Payment = {
  paymentId: 'PAY-0A1B2C3D4E5F6789',
  status: 'COMPLETED',
  debtorAccount: '1001-01',
  creditorAccount: '1002-01',
  amount: 25,
  currency: 'EUR',
  reference: 'Invoice 2026-0042',
  createdAt: '2026-11-28T09:30:00.000Z',
};
export const REJECTED_PAYMENT_EXAMPLE: Payment = {
  ...COMPLETED_PAYMENT_EXAMPLE,
  paymentId: 'PAY-1B2C3D4E5F6789A0',
  status: 'REJECTED',
  reason: 'INSUFFICIENT_FUNDS',
  amount: 9000,
};

/** An account's payments, each as GET /v1/payments/{paymentId} shows it to the caller. */
export const PaymentList = pageOf(Payment);

// No partner access: the route table refuses them too; an empty list means nothing would leak if a route's
// roles were widened by mistake.
const PAYMENT_ALL = [
  'paymentId',
  'status',
  'reason',
  'debtorAccount',
  'creditorAccount',
  'amount',
  'currency',
  'reference',
  'createdAt',
] as const;
export const PAYMENT_FIELDS = { agent: PAYMENT_ALL, customer: PAYMENT_ALL, partner: [] } as const satisfies FieldLists;

/** PAYREC → API payment. */
export function paymentFromRecord(r: PaymentRecord): Payment {
  const status = r.payStatus as Payment['status'];
  return {
    paymentId: r.payPaymentId,
    status,
    ...(status === 'REJECTED' && r.payRejectReason ? { reason: r.payRejectReason } : {}),
    debtorAccount: r.payDebtorAccount,
    creditorAccount: r.payCreditorAccount,
    amount: r.payAmount,
    currency: r.payCurrencyCode,
    reference: r.payRemittance || null,
    createdAt: r.payCreatedAt,
  };
}

/** The payment as the caller's role may see it. */
export function paymentForRole(payment: Payment, role: Role | undefined): Payment {
  return projectFields(payment, PAYMENT_FIELDS, role) as Payment;
}
