/** What the bench scripts share: waiting for a child server, the payment and loan they send. */
import type { ChildProcess } from 'node:child_process';
import { until } from '../src/until.ts';

/** 0.01 EUR from Grace (10,000.00) to Ada: enough for a million payments. */
export const PAYMENT_BODY = JSON.stringify({
  debtorAccount: '1003-01',
  creditorAccount: '1001-01',
  amount: 0.01,
  currency: 'EUR',
});

/** 10,000.00 over 24 months for Ada (rating A, income 6,000.00): approved in full, 201. */
export const LOAN_BODY = JSON.stringify({ customerId: '1001', amount: 10000, installments: 24 });

/** Resolves once `url` answers 2xx; fails when the child exits first or after 30 s. */
export async function waitFor(url: string, child: ChildProcess): Promise<void> {
  await until(
    `${url} answering`,
    async () => {
      if (child.exitCode !== null) {
        throw new Error(`the server for ${url} exited with code ${child.exitCode} while starting`);
      }
      return (await fetch(url).catch(() => null))?.ok === true;
    },
    30_000,
    50,
  );
}
