/**
 * Events addressed to a webhook subscription's owner (WebhookTest, WebhookSubscriptionDisabled): their data is the
 * subscription as the API shows it, never its secret, and only its owner reads them (store/events.ts). WHKTST
 * raises a WebhookTest and delivers it to the one subscription named, whatever types that subscription names.
 */
import { newId } from '../ids.ts';
import { RC } from '../message.ts';
import { fail, ok, text, type Program } from '../program.ts';
import { oncePerKey } from './keyed.ts';
import { writeAudit } from '../store/journal.ts';
import { findOwnSubscription, insertDelivery } from '../store/webhooks.ts';
import { deliveryRecord, raiseSubscriptionEvent } from './webhook-records.ts';

/**
 * A WebhookTest to the subscription named, due now: the delivery answers how it went (GET its deliveries). A retry
 * under the same idempotency key gets the same delivery, not a second one.
 */
export const sendTestEventProgram: Program<'WHKTST'> = (ctx, req) =>
  oncePerKey(ctx, [text(req.whkkSubscriptionId)], () => sendTestEvent(ctx, req));

const sendTestEvent: Program<'WHKTST'> = async (ctx, req) => {
  const s = await findOwnSubscription(ctx.tx, ctx.caller.principal, text(req.whkkSubscriptionId));
  if (!s) return fail(RC.NOT_FOUND, 'SUBSCRIPTION_NOT_FOUND', 'subscription not found');
  if (s.status !== 'active') {
    return fail(
      RC.CONFLICT,
      'SUBSCRIPTION_DISABLED',
      `the subscription is disabled (${s.disabledReason ?? 'no reason'})`,
    );
  }
  const eventId = await raiseSubscriptionEvent(ctx, 'WebhookTest', s);
  const delivery = {
    deliveryId: newId('WHD'),
    subscriptionId: s.subscriptionId,
    eventId,
    eventType: 'WebhookTest',
    at: ctx.now,
  };
  await insertDelivery(ctx.tx, delivery);
  await writeAudit(ctx, 'webhook-subscription', s.subscriptionId, `test ${delivery.deliveryId}`);
  return ok(
    deliveryRecord({
      ...delivery,
      seq: 0,
      state: 'pending',
      attempts: 0,
      lastStatus: null,
      lastError: null,
      nextAttemptAt: ctx.now,
      createdAt: ctx.now,
      updatedAt: ctx.now,
    }),
  );
};
