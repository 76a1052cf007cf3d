/**
 * Business ranges the programs enforce, in one place: the programs check them and the API's request schemas state
 * them, so the contract shows a client the limits the server applies. Money in minor units (exact integers).
 */

/** A payment's amount: above 0, at most 1,000,000.00. */
export const PAYMENT_AMOUNT_MINOR = { above: 0, max: 100_000_000 } as const;

/** A loan application's amount: 500.00 to 200,000.00. */
export const LOAN_AMOUNT_MINOR = { min: 50_000, max: 20_000_000 } as const;

/** A loan's number of monthly installments. */
export const LOAN_INSTALLMENTS = { min: 6, max: 120 } as const;
