/**
 * WHKUPD: the owner of a webhook subscription changes it with a merge patch — its URL, event types, description,
 * or status. Disabling it cancels its pending deliveries; enabling it again delivers the events positioned from
 * then on, and lets a cancelled delivery be retried.
 */
import { RC } from '../message.ts';
import { fail, ok, text, type Program } from '../program.ts';
import { writeAudit } from '../store/journal.ts';
import {
  cancelPendingDeliveries,
  findOwnEqualSubscription,
  lockOwnerSubscriptions,
  lockOwnSubscription,
  updateSubscription,
  type Subscription,
} from '../store/webhooks.ts';
import { subscriptionRecord } from './webhook-records.ts';
import { eventTypesRefusal } from './webhooks.ts';

const STATUSES: ReadonlyArray<Subscription['status']> = ['active', 'disabled'];

export const updateSubscriptionProgram: Program<'WHKUPD'> = async (ctx, req) => {
  const current = await lockOwnSubscription(ctx.tx, ctx.caller.principal, text(req.whkuSubscriptionId));
  if (!current) return fail(RC.NOT_FOUND, 'SUBSCRIPTION_NOT_FOUND', 'subscription not found');
  const urlAction = text(req.whkuUrlAction) || 'K';
  const descriptionAction = text(req.whkuDescriptionAction) || 'K';
  const statusAction = text(req.whkuStatusAction) || 'K';
  const typesAction = text(req.whkuEventTypesAction) || 'K';
  // Only the description may be removed: a subscription always has a URL, event types and a status.
  if (
    ![urlAction, statusAction, typesAction].every((a) => a === 'K' || a === 'S') ||
    !'KSD'.includes(descriptionAction)
  ) {
    return fail(RC.INVALID_INPUT, 'INVALID_ACTION', 'unknown patch action');
  }
  if ([urlAction, descriptionAction, statusAction, typesAction].every((a) => a === 'K')) {
    return fail(
      RC.INVALID_INPUT,
      'EMPTY_PATCH',
      'the patch changes nothing: name url, eventTypes, description or status',
    );
  }

  const next: Subscription = { ...current };
  if (urlAction === 'S') {
    next.url = text(req.whkuUrl);
    if (!next.url) return fail(RC.INVALID_INPUT, 'URL_REQUIRED', 'a subscription needs a URL');
  }
  if (descriptionAction !== 'K')
    next.description = descriptionAction === 'S' ? text(req.whkuDescription) || null : null;
  if (typesAction === 'S') {
    const count = Math.trunc(req.whkuEventTypeCount);
    const rows = req.whkuEventTypes.slice(0, Math.max(count, 0));
    next.eventTypes = [...new Set(rows.map((r) => text(r.whkuEventType)))];
    const refused = eventTypesRefusal(ctx.caller, count, next.eventTypes);
    if (refused) return refused;
  }
  if (statusAction === 'S') {
    const status = text(req.whkuStatus) as Subscription['status'];
    if (!STATUSES.includes(status)) {
      return fail(RC.INVALID_INPUT, 'INVALID_STATUS', 'status must be active or disabled');
    }
    // Disabling one that is disabled already keeps its reason (ENDPOINT_GONE says more than the owner's pause).
    if (status !== current.status) {
      next.status = status;
      next.disabledReason = status === 'disabled' ? 'DISABLED_BY_OWNER' : null;
      // Enabled again: a failing streak starts afresh, or the next failure would disable it at once.
      next.failingSince = null;
    }
  }
  // The failures were another endpoint's.
  if (next.url !== current.url) next.failingSince = null;
  if (next.url !== current.url || typesAction === 'S') {
    // As a create: two subscriptions alike would deliver every event twice.
    await lockOwnerSubscriptions(ctx.tx, current.ownerPrincipal);
    const same = await findOwnEqualSubscription(ctx.tx, current.ownerPrincipal, next.url, next.eventTypes);
    if (same && same.subscriptionId !== current.subscriptionId) {
      return fail(
        RC.CONFLICT,
        'SUBSCRIPTION_EXISTS',
        `subscription ${same.subscriptionId} already sends these event types to this URL`,
      );
    }
  }

  await updateSubscription(ctx.tx, next);
  if (next.status === 'disabled' && current.status === 'active') {
    await cancelPendingDeliveries(ctx.tx, next.subscriptionId, ctx.now);
  }
  const action =
    next.status === current.status ? 'updated' : next.status === 'disabled' ? 'disabled DISABLED_BY_OWNER' : 'enabled';
  await writeAudit(ctx, 'webhook-subscription', next.subscriptionId, action);
  return ok(subscriptionRecord(next));
};
