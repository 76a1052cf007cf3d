/**
 * WHKRCV: a subscription's events of a time window delivered again (recover, as Svix names it), for the owner of
 * the subscription: after an outage, or for events raised while it was disabled or before it existed.
 */
import { newId } from '../ids.ts';
import { RC } from '../message.ts';
import { fail, ok, text } from '../program.ts';
import type { Program } from '../program.ts';
import { oncePerKey } from './keyed.ts';
import { eventsInWindowFor, type WindowEvent } from '../store/events.ts';
import { ONE_SUBSCRIPTION_EVENTS, writeAudit } from '../store/journal.ts';
import { insertDelivery, lockOwnSubscription, redueDeliveries } from '../store/webhooks.ts';

/** Events one recover queues at most: its transaction stays short, and the answer says where to go on from. */
export const MAX_RECOVER_EVENTS = 1000;

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * The events of a window to take in one call (`rows`: the window's first events, one more than a call takes when
 * there are more), and where the next call starts when the window is cut. A cut falls between two instants, never
 * inside one, so that going on from `continueFrom` queues none of them twice (only an instant holding more events
 * than one call takes is split, and is looked at again).
 */
export function cutWindow(
  rows: readonly WindowEvent[],
  maxEvents = MAX_RECOVER_EVENTS,
): { taken: WindowEvent[]; continueFrom: string | null } {
  if (rows.length <= maxEvents) return { taken: [...rows], continueFrom: null };
  const next = rows[maxEvents]!;
  let end = maxEvents;
  while (end > 0 && rows[end - 1]!.occurredAt === next.occurredAt) end--;
  return { taken: rows.slice(0, end > 0 ? end : maxEvents), continueFrom: next.occurredAt };
}

/** A retry under the same idempotency key gets the first call's answer, and queues nothing again. */
export const recoverSubscription: Program<'WHKRCV'> = (ctx, req) =>
  oncePerKey(ctx, [text(req.whkrSubscriptionId), text(req.whkrSince), text(req.whkrUntil)], () => recover(ctx, req));

const recover: Program<'WHKRCV'> = async (ctx, req) => {
  const since = text(req.whkrSince);
  const until = text(req.whkrUntil) || ctx.now;
  if (!ISO_UTC.test(since) || !ISO_UTC.test(until)) {
    return fail(RC.INVALID_INPUT, 'INVALID_WINDOW', 'since and until must be ISO 8601 UTC times');
  }
  if (!(since < until)) return fail(RC.INVALID_INPUT, 'INVALID_WINDOW', `since must be before until (${until})`);
  const s = await lockOwnSubscription(ctx.tx, ctx.caller.principal, text(req.whkrSubscriptionId));
  if (!s) return fail(RC.NOT_FOUND, 'SUBSCRIPTION_NOT_FOUND', 'subscription not found');
  if (s.status !== 'active') {
    const why = s.disabledReason ?? 'no reason';
    return fail(RC.CONFLICT, 'SUBSCRIPTION_DISABLED', `the subscription is disabled (${why}); enable it first`);
  }
  const rows = await eventsInWindowFor(ctx.tx, s.subscriptionId, {
    since,
    until,
    limit: MAX_RECOVER_EVENTS + 1,
    except: ONE_SUBSCRIPTION_EVENTS,
  });
  const { taken, continueFrom } = cutWindow(rows);
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
    await insertDelivery(ctx.tx, {
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
