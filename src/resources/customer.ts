/** A customer as the API shows it: its schema, its view of CUSREC, and what each role receives. */
import { Type, type Static } from 'typebox';
import type { Role } from '../auth/roles.ts';
import type { CustomerRecord } from '../backend/copybooks/index.ts';
import { projectFields, rolesReceiving, type FieldLists } from './fields.ts';
import { CustomerId, Timestamp } from './schemas/common.ts';

export const CUSTOMER_FIELDS = {
  agent: [
    'customerId',
    'name',
    'email',
    'phone',
    'dateOfBirth',
    'address',
    'riskRating',
    'monthlyIncome',
    'orderCreditLimit',
    'currency',
    'createdAt',
    'updatedAt',
  ],
  customer: ['customerId', 'name', 'email', 'phone', 'dateOfBirth', 'address', 'createdAt', 'updatedAt'],
  partner: ['customerId', 'name'],
} as const satisfies FieldLists;

/** OpenAPI extension naming the roles that receive a field. */
const receivedBy = (field: string) => ({ 'x-roles': rolesReceiving(CUSTOMER_FIELDS, field) });

const StoredAddress = Type.Object({
  line1: Type.String(),
  line2: Type.Optional(Type.String()),
  postalCode: Type.String(),
  city: Type.String(),
  country: Type.String(),
});

export const Customer = Type.Object(
  {
    customerId: CustomerId,
    name: Type.String(),
    email: Type.Optional(Type.String()),
    phone: Type.Optional(Type.String()),
    dateOfBirth: Type.Optional(Type.String()),
    address: Type.Optional(StoredAddress),
    riskRating: Type.Optional(
      Type.String({
        description: 'Agents only: credit risk rating A–D',
        ...receivedBy('riskRating'),
      }),
    ),
    monthlyIncome: Type.Optional(Type.Number({ description: 'Agents only', ...receivedBy('monthlyIncome') })),
    orderCreditLimit: Type.Optional(
      Type.Number({
        description: 'Agents only: limit of open confirmed orders',
        ...receivedBy('orderCreditLimit'),
      }),
    ),
    currency: Type.Optional(
      Type.String({
        description: 'Agents only: currency of income and limit',
        ...receivedBy('currency'),
      }),
    ),
    createdAt: Type.Optional(Timestamp),
    updatedAt: Type.Optional(Timestamp),
  },
  {
    description:
      'Fields returned depend on the caller role: agents every field, customers their own record without ' +
      'internal fields, partners customerId and name (see x-roles)',
  },
);
export type Customer = Static<typeof Customer>;

/** CUSREC → API customer, as the caller's role may see it. */
export function customerFromRecord(r: CustomerRecord, role: Role | undefined): Customer {
  const a = r.cusAddr;
  const full: Customer = {
    customerId: r.cusCustomerId,
    name: r.cusName,
    email: r.cusEmail,
    ...(r.cusPhone ? { phone: r.cusPhone } : {}),
    ...(r.cusBirthDate ? { dateOfBirth: r.cusBirthDate } : {}),
    ...(r.cusAddrPresent === 'Y'
      ? {
          address: {
            line1: a.cusAddrLine1,
            ...(a.cusAddrLine2 ? { line2: a.cusAddrLine2 } : {}),
            postalCode: a.cusAddrPostcode,
            city: a.cusAddrCity,
            country: a.cusAddrCountry,
          },
        }
      : {}),
    ...(r.cusRiskRating ? { riskRating: r.cusRiskRating } : {}),
    monthlyIncome: r.cusMonthlyIncome,
    orderCreditLimit: r.cusCreditLimit,
    currency: r.cusCurrencyCode,
    createdAt: r.cusCreatedAt,
    updatedAt: r.cusUpdatedAt,
  };
  return projectFields(full, CUSTOMER_FIELDS, role) as Customer;
}
