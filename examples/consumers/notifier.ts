/**
 * Example consumer: tells customers what happened to their orders, payments and loan applications. Here a
 * "notification" is a row in its own store and a line on stdout; a real one would send an e-mail or a push.
 * Run: npm run consumer:notifier (BROKER_URL, QUEUE, STORE as in consumer.ts).
 */
import { runConsumer } from './consumer.ts';

const MESSAGES: Record<string, (data: Record<string, unknown>) => string> = {
  OrderConfirmed: (d) => `Your order ${String(d['orderId'])} is confirmed.`,
  OrderCancelled: (d) => `Your order ${String(d['orderId'])} was cancelled.`,
  PaymentCompleted: (d) =>
    `You paid ${String(d['amount'])} ${String(d['currency'])} to ${String(d['creditorAccount'])}.`,
  PaymentRejected: (d) =>
    `Your payment of ${String(d['amount'])} ${String(d['currency'])} was not made (${String(d['reason'])}).`,
  LoanApproved: (d) => `Your loan of ${String(d['approvedAmount'])} ${String(d['currency'])} is approved.`,
  LoanRejected: (d) => `We cannot offer you this loan (${String(d['reason'])}).`,
};

runConsumer({
  name: 'notifier',
  eventTypes: Object.keys(MESSAGES),
  schema:
    'CREATE TABLE IF NOT EXISTS notifications (event_id TEXT PRIMARY KEY, subject TEXT NOT NULL, text TEXT NOT NULL);',
  handle(event, db) {
    const text = MESSAGES[event.type]!(event.data);
    db.prepare('INSERT INTO notifications (event_id, subject, text) VALUES (?, ?, ?)').run(
      event.id,
      event.subject,
      text,
    );
    return { notification: text };
  },
});
