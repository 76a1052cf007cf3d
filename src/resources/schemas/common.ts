import { Type } from 'typebox';

/** Identifier formats: checked on every path parameter (400 when malformed). */
export const OrderId = Type.String({
  pattern: '^ORD-[0-9A-F]{16}$',
  maxLength: 20,
  description: 'Order identifier',
  examples: ['ORD-0A1B2C3D4E5F6789'],
});
/** The customer and account identifier formats, for a field whose other limits come from a record (recordString). */
export const CUSTOMER_ID_FORMAT = { pattern: '^[0-9]{1,10}$', maxLength: 10 };
export const ACCOUNT_ID_FORMAT = { pattern: '^[0-9]{1,10}-[0-9]{2}$', maxLength: 13 };
export const CustomerId = Type.String({
  ...CUSTOMER_ID_FORMAT,
  description: 'Customer identifier',
  examples: ['1001'],
});
export const AccountId = Type.String({
  ...ACCOUNT_ID_FORMAT,
  description: 'Account identifier',
  examples: ['1001-01'],
});
export const PaymentId = Type.String({
  pattern: '^PAY-[0-9A-F]{16}$',
  maxLength: 20,
  description: 'Payment identifier',
  examples: ['PAY-0A1B2C3D4E5F6789'],
});
export const LoanId = Type.String({
  pattern: '^LN-[0-9A-F]{16}$',
  maxLength: 19,
  description: 'Loan application identifier',
  examples: ['LN-0A1B2C3D4E5F6789'],
});
export const ProductId = Type.String({
  pattern: '^[A-Z0-9][A-Z0-9-]{0,15}$',
  maxLength: 16,
  description: 'Product identifier',
  examples: ['P-100'],
});
export const CurrencyCode = Type.String({
  pattern: '^[A-Z]{3}$',
  description: 'ISO 4217 currency code',
  examples: ['EUR'],
});
export const Timestamp = Type.String({ format: 'date-time' });
export const Money = Type.Number({ description: 'Decimal amount in the currency (at most two decimals)' });

/** The Idempotency-Key header; each operation shows its own example key, as a key never serves two requests. */
export function idempotencyKeyHeader(example: string) {
  return Type.String({
    pattern: '^[A-Za-z0-9._:-]{1,64}$',
    description: 'Client-chosen key of one intended operation; retries reuse it',
    examples: [example],
  });
}
