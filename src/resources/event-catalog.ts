/**
 * The event types, each with what it tells, the JSON Schema of its `data` and an example event: the one list the
 * OpenAPI `webhooks` section (src/api/routes/events.ts) and GET /v1/event-types both read.
 */
import { ALL_EVENT_TYPES, type EventType } from '../backend/store/journal.ts';
import { Customer } from './customer.ts';
import { exampleEvent, type CloudEvent } from './event.ts';
import { APPROVED_LOAN_EXAMPLE, LoanDecision, REJECTED_LOAN_EXAMPLE } from './loan.ts';
import { CONFIRMED_ORDER_EXAMPLE, Order, REJECTED_ORDER_EXAMPLE } from './order.ts';
import { COMPLETED_PAYMENT_EXAMPLE, Payment, REJECTED_PAYMENT_EXAMPLE } from './payment.ts';
import { Subscription } from './webhook-subscription.ts';

export interface EventTypeEntry {
  type: EventType;
  description: string;
  /** The JSON Schema of the event's `data`: the resource as GET on its path answers. */
  data: object;
  example: CloudEvent;
}

const customerExample = { customerId: '1001', name: 'Ada Lovelace', email: 'ada@example.com' };
const orderExample = (data: Order, type: string) => exampleEvent(type, '/v1/orders', data.orderId, data);
/** A subscription as the API shows it (its eventTypes typed as the strings they are). */
type SubscriptionView = Omit<Subscription, 'eventTypes'> & { eventTypes: string[] };
const subscriptionExample = (type: string, data: SubscriptionView) =>
  exampleEvent(type, '/v1/webhook-subscriptions', data.subscriptionId, data);
const SUBSCRIPTION_EXAMPLE: SubscriptionView = {
  subscriptionId: 'WHS-3C1F8A2B9D4E6F70',
  url: 'https://hooks.example.com/corebridge',
  eventTypes: ['OrderConfirmed', 'WebhookSubscriptionDisabled'],
  description: 'Order notifications for the shop',
  status: 'active',
  createdAt: '2026-11-28T09:00:00.000Z',
};

const ENTRIES: { [T in EventType]: Omit<EventTypeEntry, 'type'> } = {
  OrderConfirmed: {
    description: 'An order was placed and confirmed (stock and credit were there)',
    data: Order,
    example: orderExample(CONFIRMED_ORDER_EXAMPLE, 'OrderConfirmed'),
  },
  OrderRejected: {
    description: 'An order was placed and rejected; `data.rejectionReason` says why',
    data: Order,
    example: orderExample(REJECTED_ORDER_EXAMPLE, 'OrderRejected'),
  },
  OrderUpdated: {
    description: 'A confirmed order was changed (PUT)',
    data: Order,
    example: orderExample(
      { ...CONFIRMED_ORDER_EXAMPLE, quantity: 3, amount: 149.7, updatedAt: '2026-11-28T09:45:00.000Z' },
      'OrderUpdated',
    ),
  },
  OrderCancelled: {
    description: 'An order was cancelled',
    data: Order,
    example: orderExample(
      { ...CONFIRMED_ORDER_EXAMPLE, status: 'CANCELLED', updatedAt: '2026-11-28T10:00:00.000Z' },
      'OrderCancelled',
    ),
  },
  PaymentCompleted: {
    description: 'A payment was booked',
    data: Payment,
    example: exampleEvent(
      'PaymentCompleted',
      '/v1/payments',
      COMPLETED_PAYMENT_EXAMPLE.paymentId,
      COMPLETED_PAYMENT_EXAMPLE,
    ),
  },
  PaymentRejected: {
    description: 'A payment was refused; `data.failureReason` says why',
    data: Payment,
    example: exampleEvent(
      'PaymentRejected',
      '/v1/payments',
      REJECTED_PAYMENT_EXAMPLE.paymentId,
      REJECTED_PAYMENT_EXAMPLE,
    ),
  },
  LoanApproved: {
    description: 'A loan application was approved',
    data: LoanDecision,
    example: exampleEvent('LoanApproved', '/v1/loan-applications', APPROVED_LOAN_EXAMPLE.loanId, APPROVED_LOAN_EXAMPLE),
  },
  LoanRejected: {
    description: 'A loan application was rejected',
    data: LoanDecision,
    example: exampleEvent('LoanRejected', '/v1/loan-applications', REJECTED_LOAN_EXAMPLE.loanId, REJECTED_LOAN_EXAMPLE),
  },
  CustomerCreated: {
    description: 'A customer was onboarded',
    data: Customer,
    example: exampleEvent('CustomerCreated', '/v1/customers', '1001', customerExample),
  },
  CustomerUpdated: {
    description: "A customer's record was changed",
    data: Customer,
    example: exampleEvent('CustomerUpdated', '/v1/customers', '1001', customerExample),
  },
  WebhookSubscriptionDisabled: {
    description:
      "Deliveries to one of the owner's subscriptions stopped (`data.disabledReason` says why); sent to the " +
      "owner's other subscriptions that name this type",
    data: Subscription,
    example: subscriptionExample('WebhookSubscriptionDisabled', {
      ...SUBSCRIPTION_EXAMPLE,
      eventTypes: ['OrderConfirmed'],
      status: 'disabled',
      disabledReason: 'ENDPOINT_GONE',
    }),
  },
  WebhookTest: {
    description:
      'A test its owner asked for (POST /v1/webhook-subscriptions/{subscriptionId}/test): sent to that ' +
      'subscription only, whatever types it names; no subscription names this type',
    data: Subscription,
    example: subscriptionExample('WebhookTest', SUBSCRIPTION_EXAMPLE),
  },
};

/** Every event type, in the order ALL_EVENT_TYPES lists them. */
export const EVENT_CATALOG: readonly EventTypeEntry[] = ALL_EVENT_TYPES.map((type) => ({ type, ...ENTRIES[type] }));
