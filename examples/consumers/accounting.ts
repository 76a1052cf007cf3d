/**
 * Example consumer: keeps totals per currency of money paid and of loans granted, in integer minor units.
 * Counting an event twice would be wrong, which is why it records each event id with its work.
 * Run: npm run consumer:accounting (BROKER_URL, QUEUE, STORE as in consumer.ts).
 */
import { minorUnits, runConsumer } from './consumer.ts';

const ACCOUNT_OF: Record<string, { account: string; amountField: string }> = {
  PaymentCompleted: { account: 'payments', amountField: 'amount' },
  LoanApproved: { account: 'loans-granted', amountField: 'approvedAmount' },
};

runConsumer({
  name: 'accounting',
  eventTypes: Object.keys(ACCOUNT_OF),
  schema: `CREATE TABLE IF NOT EXISTS totals (account TEXT NOT NULL, currency TEXT NOT NULL, minor_units INTEGER NOT NULL, events INTEGER NOT NULL,
             PRIMARY KEY (account, currency));`,
  handle(event, db) {
    const { account, amountField } = ACCOUNT_OF[event.type]!;
    const amount = minorUnits(event.data[amountField]);
    const currency = String(event.data['currency']);
    db.prepare(
      `INSERT INTO totals (account, currency, minor_units, events) VALUES (?, ?, ?, 1)
                ON CONFLICT (account, currency) DO UPDATE SET minor_units = minor_units + excluded.minor_units, events = events + 1`,
    ).run(account, currency, amount);
    return { account, currency, minorUnits: amount };
  },
});
