/** What the bench scripts share: waiting for a child server, the payment and loan they send (free ports: test/helpers/free-port.ts). */
import type { ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';

/** 0.01 EUR from Grace (10,000.00) to Ada: enough for a million payments. */
export const PAYMENT_BODY = JSON.stringify({ debtorAccount: '1003-01', creditorAccount: '1001-01', amount: 0.01, currency: 'EUR' });

/** 10,000.00 over 24 months for Ada (rating A, income 6,000.00): approved in full, 201. */
export const LOAN_BODY = JSON.stringify({ customerId: '1001', amount: 10000, installments: 24 });

/** Resolves once `url` answers 2xx; fails when the child exits first or after 30 s. */
export async function waitFor(url: string, child: ChildProcess): Promise<void> {
  const until = Date.now() + 30_000;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`the server for ${url} exited with code ${child.exitCode} while starting`);
    try {
      if ((await fetch(url)).ok) return;
    } catch { /* starting */ }
    await sleep(50);
  }
  throw new Error(`${url} did not come up within 30 s`);
}
