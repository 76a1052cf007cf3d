/**
 * WHKRCV: a subscription's events of a time window delivered again (recover, as Svix names it), for the owner of
 * the subscription: after an outage, or for events raised while it was disabled or before it existed.
 */
import { audienceAdmits, eventAudience } from '../caller.ts';
import { newId } from '../ids.ts';
import { RC } from '../message.ts';
import { fail, ok, text } from '../program.ts';
import type { Program } from '../program.ts';
import { writeAudit } from '../store/journal.ts';
import {
  eventsInWindow,
  findOwnSubscriptionForUpdate,
  insertDueDelivery,
  redueDeliveries,
  type WindowEvent,
} from '../store/webhooks.ts';

/** Events one recover queues at most: its transaction stays short, and the answer says where to go on from. */
export const MAX_RECOVER_EVENTS = 1000;
/**
 * Events of the subscription's types one recover looks at at most, admitted or not: a partner's events are few
 * among everyone's, and the scan is bounded as the queueing is.
 */
export const MAX_RECOVER_SCAN = 5 * MAX_RECOVER_EVENTS;

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * The events of a window to take in one call, and where the next call starts when the window is cut. A cut falls
 * between two instants, never inside one, so that going on from `continueFrom` queues none of them twice (only
 * an instant holding more events than one call takes is split, and is looked at again).
 */
export function cutWindow(
  rows: readonly WindowEvent[],
  admits: (e: WindowEvent) => boolean,
  maxEvents = MAX_RECOVER_EVENTS,
  maxScan = MAX_RECOVER_SCAN,
): { taken: WindowEvent[]; continueFrom: string | null } {
  const admitted: WindowEvent[] = [];
  let instantStart = 0;
  let admittedBeforeInstant = 0;
  for (let i = 0; i < rows.length; i++) {
    const e = rows[i]!;
    if (i > 0 && e.occurredAt !== rows[i - 1]!.occurredAt) {
      instantStart = i;
      admittedBeforeInstant = admitted.length;
    }
    const admit = admits(e);
    if (i === maxScan || (admit && admitted.length === maxEvents)) {
      return {
        taken: instantStart > 0 ? admitted.slice(0, admittedBeforeInstant) : admitted,
        continueFrom: e.occurredAt,
      };
    }
    if (admit) admitted.push(e);
  }
  return { taken: admitted, continueFrom: null };
}

export const recoverSubscription: Program<'WHKRCV'> = async (ctx, req) => {
  const since = text(req.whkrSince);
  const until = text(req.whkrUntil) || ctx.now;
  if (!ISO_UTC.test(since) || !ISO_UTC.test(until)) {
    return fail(RC.INVALID_INPUT, 'INVALID_WINDOW', 'since and until must be ISO 8601 UTC times');
  }
  if (!(since < until)) return fail(RC.INVALID_INPUT, 'INVALID_WINDOW', `since must be before until (${until})`);
  const s = await findOwnSubscriptionForUpdate(ctx.tx, ctx.caller.principal, text(req.whkrSubscriptionId));
  if (!s) return fail(RC.NOT_FOUND, 'SUBSCRIPTION_NOT_FOUND', 'subscription not found');
  if (s.status !== 'active') {
    const why = s.disabledReason ?? 'no reason';
    return fail(RC.CONFLICT, 'SUBSCRIPTION_DISABLED', `the subscription is disabled (${why}); enable it first`);
  }
  // The fan-out's own rule (fanOutToSubscriptions): who the subscription's owner is decides what it receives.
  const audience = eventAudience({ principal: s.ownerPrincipal, role: s.ownerRole, customerId: s.ownerCustomerId });
  const rows = await eventsInWindow(ctx.tx, { types: s.eventTypes, since, until, limit: MAX_RECOVER_SCAN + 1 });
  const { taken, continueFrom } = cutWindow(rows, (e) => audienceAdmits(audience, e));
  // Due a millisecond apart in the order raised, the last one now (all of them due at once): the dispatcher claims
  // the oldest due first, so they go out in that order whether they had a delivery (an older one) or get one now.
  const now = Date.parse(ctx.now);
  const due = taken.map((e, i) => ({ e, dueAt: new Date(now - (taken.length - 1 - i)).toISOString() }));
  const had = await redueDeliveries(
    ctx.tx,
    s.subscriptionId,
    due.map(({ e, dueAt }) => ({ eventId: e.eventId, dueAt })),
    ctx.now,
  );
  for (const { e, dueAt } of due) {
    if (had.has(e.eventId)) continue;
    await insertDueDelivery(ctx.tx, {
      deliveryId: newId('WHD'),
      subscriptionId: s.subscriptionId,
      eventId: e.eventId,
      eventType: e.type,
      at: ctx.now,
      dueAt,
    });
  }
  const window = `${since}..${continueFrom ?? until}`;
  await writeAudit(ctx, 'webhook-subscription', s.subscriptionId, `recovered ${taken.length} events ${window}`);
  return ok({
    whkoSubscriptionId: s.subscriptionId,
    whkoSince: since,
    whkoUntil: until,
    whkoQueued: taken.length,
    whkoRequeued: had.size,
    whkoCut: continueFrom ? 'Y' : 'N',
    whkoContinueFrom: continueFrom ?? '',
  });
};
