/**
 * A webhook subscription and a delivery as the back-end's records carry them (WHKREC, WHDREC), and the events about
 * a subscription, addressed to its owner (WebhookTest, WebhookSubscriptionDisabled): their data is the subscription
 * as the API shows it, never its secret, and only its owner reads them (store/events.ts).
 */
import type { WebhookDelivery, WebhookSubscription } from '../copybooks/records.ts';
import type { ProgramContext } from '../program.ts';
import { writeEvent } from '../store/journal.ts';
import type { Delivery, Subscription } from '../store/webhooks.ts';

/** The sealed form the API gives (src/events/webhook-secrets.ts): this side never holds a plain secret or its key. */
export const SEALED_SECRET = /^v1\.[A-Za-z0-9_-]{1,16}\.[A-Za-z0-9_-]{40,}$/;

export function subscriptionRecord(s: Subscription): WebhookSubscription {
  return {
    whkSubscriptionId: s.subscriptionId,
    whkUrl: s.url,
    whkDescription: s.description ?? '',
    whkStatus: s.status,
    whkDisabledReason: s.disabledReason ?? '',
    whkCreatedAt: s.createdAt,
    whkEventTypeCount: s.eventTypes.length,
    whkEventTypes: s.eventTypes.map((t) => ({ whkEventType: t })),
  };
}

export function deliveryRecord(d: Delivery): WebhookDelivery {
  return {
    whdDeliveryId: d.deliveryId,
    whdSubscriptionId: d.subscriptionId,
    whdEventId: d.eventId,
    whdEventType: d.eventType,
    whdState: d.state,
    whdAttempts: d.attempts,
    whdLastStatus: d.lastStatus ?? 0,
    whdLastError: (d.lastError ?? '').slice(0, 120),
    whdNextAttemptAt: d.nextAttemptAt ?? '',
    whdCreatedAt: d.createdAt,
    whdUpdatedAt: d.updatedAt,
  };
}

/**
 * Raises an event about `subscription` for its owner, in the caller's transaction (the change it tells of);
 * the relay's fan-out sends it to the owner's active subscriptions that name its type. Answers the event id.
 */
export async function raiseSubscriptionEvent(
  ctx: ProgramContext,
  type: 'WebhookTest' | 'WebhookSubscriptionDisabled',
  subscription: Subscription,
): Promise<string> {
  return writeEvent(ctx, {
    type,
    resource: 'subscription',
    subject: subscription.subscriptionId,
    ownerCustomerId: null,
    createdBy: subscription.ownerPrincipal,
    recordName: 'WHKREC',
    record: subscriptionRecord(subscription),
  });
}
