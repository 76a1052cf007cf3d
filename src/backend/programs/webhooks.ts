/**
 * Webhook subscriptions (WHKCRT, WHKINQ, WHKLST, WHKDEL; WHKUPD in webhook-lifecycle.ts) and their deliveries
 * (WHDLST, WHDRTY) for the caller that owns them; WHDDUE, the dispatcher's turn, and what an attempt's outcome does
 * to its subscription; and fanOutToSubscriptions, which the relay's turn calls.
 */
import { audienceReceives, eventAudience, type Caller } from '../caller.ts';
import { newId } from '../ids.ts';
import type { DeliveryTurnRequest, SegmentListResponse } from '../copybooks/records.ts';
import { RC, recordSegment, type Segment } from '../message.ts';
import { fail, ok, text, type Program, type ProgramContext, type ProgramReply } from '../program.ts';
import { eventsBySeq, subscriptionsReading, type PositionedEvent } from '../store/events.ts';
import { EVENT_RESOURCE, EVENT_TYPES, ONE_SUBSCRIPTION_EVENTS, writeAudit, type EventType } from '../store/journal.ts';
import {
  cancelPendingDeliveries,
  claimDueDeliveries,
  clearFailing,
  countOwnSubscriptionsLocked,
  deleteSubscription,
  disableSubscription,
  findDelivery,
  findOwnEqualSubscription,
  findOwnSubscription,
  insertDelivery,
  insertDeliveryAttempt,
  insertSubscription,
  listDeliveries,
  listOwnSubscriptions,
  noteFailing,
  recordAttempt,
  rescheduleDelivery,
  type DeliveryOutcome,
  type Subscription,
} from '../store/webhooks.ts';
import { eventSegments } from './event-segments.ts';
import { deliveryRecord, raiseSubscriptionEvent, SEALED_SECRET, subscriptionRecord } from './webhook-records.ts';
import { previousSecretInForce } from './webhook-secrets.ts';
import { pageSize, segmentPage, turnSize } from './lists.ts';

const MAX_EVENT_TYPES = 10;

function segmentList(segments: Segment[], count: number, nextSeq = 0): ProgramReply<SegmentListResponse> {
  return { ...ok<SegmentListResponse>({ seglNextSeq: nextSeq, seglItemCount: count }), segments };
}

/** Staff and partners keep subscriptions; customers use the apps that do. */
function maySubscribe(caller: Caller): caller is Caller & { role: 'AGENT' | 'PARTNER' } {
  return caller.role === 'AGENT' || caller.role === 'PARTNER';
}

export const createSubscription: Program<'WHKCRT'> = async (ctx, req) => {
  if (!maySubscribe(ctx.caller)) {
    return fail(RC.NOT_FOUND, 'NOT_PERMITTED', 'only agents and partners keep webhook subscriptions');
  }
  const url = text(req.whkcUrl);
  const count = Math.trunc(req.whkcEventTypeCount);
  const rows = req.whkcEventTypes.slice(0, Math.max(count, 0));
  const types = [...new Set(rows.map((r) => text(r.whkcEventType)))];
  const secret = text(req.whkcSecret);
  if (!url) return fail(RC.INVALID_INPUT, 'URL_REQUIRED', 'a subscription needs a URL');
  if (!SEALED_SECRET.test(secret)) {
    return fail(RC.INVALID_INPUT, 'SECRET_NOT_SEALED', 'a subscription needs its signing secret in the sealed form');
  }
  const refused = eventTypesRefusal(ctx.caller, count, types);
  if (refused) return refused;
  const max = Math.trunc(req.whkcMaxSubscriptions);
  if (!(max >= 1)) return fail(RC.INVALID_INPUT, 'INVALID_LIMIT', 'a subscription request needs its owner limit');
  // The count takes the owner's lock first: two equal creates at once cannot both find no equal one.
  const kept = await countOwnSubscriptionsLocked(ctx.tx, ctx.caller.principal);
  // Two subscriptions alike would deliver every event twice, signed with two secrets: the first one stands.
  const same = await findOwnEqualSubscription(ctx.tx, ctx.caller.principal, url, types);
  if (same) {
    return fail(
      RC.CONFLICT,
      'SUBSCRIPTION_EXISTS',
      `subscription ${same.subscriptionId} already sends these event types to this URL`,
    );
  }
  // Disabled subscriptions count too (as Stripe counts every endpoint): deleting one frees its place.
  if (kept >= max) {
    return fail(
      RC.RULE_FAILED,
      'SUBSCRIPTION_LIMIT_REACHED',
      `an owner keeps at most ${max} webhook subscriptions, disabled ones included; delete one to add another`,
    );
  }
  const subscription: Subscription = {
    subscriptionId: newId('WHS'),
    ownerPrincipal: ctx.caller.principal,
    ownerRole: ctx.caller.role,
    ownerCustomerId: ctx.caller.customerId,
    url,
    description: text(req.whkcDescription) || null,
    eventTypes: types,
    secret,
    status: 'active',
    disabledReason: null,
    createdAt: ctx.now,
  };
  await insertSubscription(ctx.tx, subscription);
  await writeAudit(ctx, 'webhook-subscription', subscription.subscriptionId, 'created');
  return ok(subscriptionRecord(subscription));
};

/**
 * Why `types` (the distinct ones of a request's table, which says it holds `count`) cannot be this caller's
 * subscription, or null: WHKCRT and WHKUPD ask the same.
 */
export function eventTypesRefusal(caller: Caller, count: number, types: readonly string[]): ProgramReply<never> | null {
  if (!(count >= 1 && count <= MAX_EVENT_TYPES) || types.some((t) => !(EVENT_TYPES as readonly string[]).includes(t))) {
    // The types themselves are in the API's schema and GET /v1/event-types: a list would not fit the reason text.
    return fail(
      RC.INVALID_INPUT,
      'INVALID_EVENT_TYPES',
      `eventTypes must name 1 to ${MAX_EVENT_TYPES} known event types`,
    );
  }
  // A type the owner can never receive (a partner's payments) would be a subscription that never fires.
  const audience = eventAudience(caller);
  const never = types.filter((t) => !audienceReceives(audience, EVENT_RESOURCE[t as EventType]));
  if (never.length > 0) {
    return fail(RC.INVALID_INPUT, 'EVENT_TYPES_NOT_RECEIVED', `a partner never receives ${never.join(', ')}`);
  }
  return null;
}

export const inquireSubscription: Program<'WHKINQ'> = async (ctx, req) => {
  const s = await findOwnSubscription(ctx.tx, ctx.caller.principal, text(req.whkkSubscriptionId));
  return s ? ok(subscriptionRecord(s)) : fail(RC.NOT_FOUND, 'SUBSCRIPTION_NOT_FOUND', 'subscription not found');
};

export const listSubscriptions: Program<'WHKLST'> = async (ctx, req) => {
  const limit = pageSize(req.whklMaxItems);
  const after = Math.max(Math.trunc(req.whklAfterSeq ?? 0) || 0, 0);
  const rows = await listOwnSubscriptions(ctx.tx, ctx.caller.principal, after, limit + 1);
  return segmentPage(rows, limit, (s) => recordSegment('WHKREC', subscriptionRecord(s)));
};

export const deleteSubscriptionProgram: Program<'WHKDEL'> = async (ctx, req) => {
  const s = await findOwnSubscription(ctx.tx, ctx.caller.principal, text(req.whkkSubscriptionId));
  if (!s) return fail(RC.NOT_FOUND, 'SUBSCRIPTION_NOT_FOUND', 'subscription not found');
  await deleteSubscription(ctx.tx, s.subscriptionId);
  await writeAudit(ctx, 'webhook-subscription', s.subscriptionId, 'deleted');
  return ok(subscriptionRecord(s));
};

export const listDeliveriesProgram: Program<'WHDLST'> = async (ctx, req) => {
  const s = await findOwnSubscription(ctx.tx, ctx.caller.principal, text(req.whdlSubscriptionId));
  if (!s) return fail(RC.NOT_FOUND, 'SUBSCRIPTION_NOT_FOUND', 'subscription not found');
  const limit = pageSize(req.whdlMaxItems);
  const before = Math.trunc(req.whdlBeforeSeq ?? 0) || 0;
  const filter = { state: text(req.whdlState), eventType: text(req.whdlEventType) };
  const rows = await listDeliveries(ctx.tx, s.subscriptionId, before, limit + 1, filter);
  return segmentPage(rows, limit, (d) => recordSegment('WHDREC', deliveryRecord(d)));
};

export const retryDelivery: Program<'WHDRTY'> = async (ctx, req) => {
  const s = await findOwnSubscription(ctx.tx, ctx.caller.principal, text(req.whkkSubscriptionId));
  const d = s && (await findDelivery(ctx.tx, s.subscriptionId, text(req.whkkDeliveryId), { forUpdate: true }));
  if (!s || !d) return fail(RC.NOT_FOUND, 'DELIVERY_NOT_FOUND', 'delivery not found');
  if (s.status !== 'active') {
    const why = s.disabledReason ?? 'no reason';
    return fail(RC.CONFLICT, 'SUBSCRIPTION_DISABLED', `the subscription is disabled (${why})`);
  }
  await rescheduleDelivery(ctx.tx, d.deliveryId, ctx.now);
  await writeAudit(ctx, 'webhook-subscription', s.subscriptionId, `redelivery ${d.deliveryId}`);
  return ok(deliveryRecord({ ...d, state: 'pending', nextAttemptAt: ctx.now, updatedAt: ctx.now }));
};

/**
 * Delivery rows one relay turn writes at most (but an event's deliveries are never split): the relay's transaction
 * and its lock stay short however many subscriptions a backlog of events meets.
 */
export const MAX_DELIVERIES_PER_TURN = 1000;

/**
 * A delivery per newly positioned event and active subscription that names its type and whose owner may read it
 * (the feed's rule, store/events.ts), in the relay's transaction, for the first events whose deliveries fit
 * MAX_DELIVERIES_PER_TURN (the first one whatever its count): returns how many events it took, all of whose
 * deliveries it wrote, in event order. A WebhookTest goes only to the subscription it was asked for (WHKTST).
 */
export async function fanOutToSubscriptions(ctx: ProgramContext, events: readonly PositionedEvent[]): Promise<number> {
  if (events.length === 0) return 0;
  const readers = await subscriptionsReading(ctx.tx, {
    fromPosition: events[0]!.position,
    toPosition: events.at(-1)!.position,
    except: ONE_SUBSCRIPTION_EVENTS,
  });
  const wantingOf = Map.groupBy(readers, (r) => r.eventId);
  const deliveries: Array<Parameters<typeof insertDelivery>[1]> = [];
  let taken = 0;
  for (const e of events) {
    const wanting = wantingOf.get(e.eventId) ?? [];
    if (taken > 0 && deliveries.length + wanting.length > MAX_DELIVERIES_PER_TURN) break;
    for (const { subscriptionId } of wanting) {
      deliveries.push({
        deliveryId: newId('WHD'),
        subscriptionId,
        eventId: e.eventId,
        eventType: e.type,
        at: ctx.now,
      });
    }
    taken++;
  }
  for (const d of deliveries) await insertDelivery(ctx.tx, d);
  return taken;
}

const OUTCOMES: Record<string, DeliveryOutcome['kind'] | 'gone'> = {
  S: 'succeeded',
  R: 'retry',
  F: 'failed',
  G: 'gone',
};

/** The dispatcher's results, first: what finished frees its endpoint's place for the claim after. */
async function recordResults(
  ctx: ProgramContext,
  items: DeliveryTurnRequest['whdrItem'],
  disableAfterSecs: number,
): Promise<ProgramReply<never> | null> {
  for (const item of items) {
    const kind = OUTCOMES[text(item.whdrOutcome)];
    if (!kind) {
      return fail(RC.INVALID_INPUT, 'INVALID_OUTCOME', `outcome "${text(item.whdrOutcome)}" is not S, R, F or G`);
    }
    const status = Math.trunc(item.whdrStatus) || null;
    const error = text(item.whdrError) || null;
    const outcome: DeliveryOutcome =
      kind === 'succeeded'
        ? { kind, status: status ?? 0 }
        : kind === 'retry'
          ? { kind, status, error, nextAttemptAt: text(item.whdrNextAttemptAt) || ctx.now }
          : { kind: 'failed', status, error };
    const subscriptionId = await recordAttempt(ctx.tx, text(item.whdrDeliveryId), outcome, ctx.now);
    if (subscriptionId) {
      await insertDeliveryAttempt(ctx.tx, {
        deliveryId: text(item.whdrDeliveryId),
        attemptedAt: text(item.whdrStartedAt) || ctx.now,
        durationMs: Math.max(Math.trunc(item.whdrDurationMs) || 0, 0),
        statusCode: status,
        error: kind === 'succeeded' ? null : error,
        // As sent: the codec drops only trailing blanks, and leading ones are part of the body.
        responseBody: item.whdrResponseBody || null,
        nextAttemptAt: outcome.kind === 'retry' ? outcome.nextAttemptAt : null,
      });
      await afterAttempt(ctx, subscriptionId, kind, disableAfterSecs);
    }
  }
  return null;
}

/**
 * What an attempt's outcome does to its subscription: a 410 disables it, and so does failing with no success for
 * `disableAfterSecs` (0: never); a disabled subscription keeps nothing pending.
 */
async function afterAttempt(
  ctx: ProgramContext,
  subscriptionId: string,
  kind: DeliveryOutcome['kind'] | 'gone',
  disableAfterSecs: number,
): Promise<void> {
  if (kind === 'succeeded') return clearFailing(ctx.tx, subscriptionId);
  const s = await noteFailing(ctx.tx, subscriptionId, ctx.now);
  if (!s) return;
  // An attempt in flight while it was disabled: its retry would stay pending, never claimed.
  if (s.status !== 'active') return cancelPendingDeliveries(ctx.tx, subscriptionId, ctx.now);
  const failingMs = Date.parse(ctx.now) - Date.parse(s.failingSince);
  const reason =
    kind === 'gone'
      ? 'ENDPOINT_GONE'
      : disableAfterSecs > 0 && failingMs >= disableAfterSecs * 1000
        ? 'ENDPOINT_FAILING'
        : null;
  if (!reason) return;
  await disableSubscription(ctx.tx, subscriptionId, reason, ctx.now);
  await writeAudit(ctx, 'webhook-subscription', subscriptionId, `disabled ${reason}`);
  // Told to its owner in the feed and to its other subscriptions that name the type, as Svix's endpoint.disabled.
  await raiseSubscriptionEvent(ctx, 'WebhookSubscriptionDisabled', {
    ...s,
    status: 'disabled',
    disabledReason: reason,
  });
}

export const dispatcherTurn: Program<'WHDDUE'> = async (ctx, req) => {
  const refused = await recordResults(ctx, req.whdrItem, Math.max(Math.trunc(req.whddDisableAfterSecs ?? 0) || 0, 0));
  if (refused) return refused;
  const max = turnSize(req.whddMaxItems);
  if (max === 0) return segmentList([], 0);
  const perEndpoint = Math.max(Math.trunc(req.whddPerEndpoint) || 1, 1);
  const leaseSeconds = Math.max(Math.trunc(req.whddLeaseSeconds) || 30, 1);
  const leaseUntil = new Date(Date.parse(ctx.now) + leaseSeconds * 1000).toISOString();
  const due = await claimDueDeliveries(ctx.tx, ctx.now, leaseUntil, max, perEndpoint);
  const events = await eventsBySeq(
    ctx.tx,
    due.map((d) => d.eventSeq),
  );
  const segments = due.flatMap((d): Segment[] => [
    recordSegment('WHDTASK', {
      whdtDeliveryId: d.deliveryId,
      whdtSubscriptionId: d.subscriptionId,
      whdtUrl: d.url,
      whdtSecret: d.secret,
      whdtOwnerRole: d.ownerRole,
      whdtAttempts: d.attempts,
      whdtPreviousSecret: previousSecretInForce(d.previous, ctx.now),
    }),
    ...eventSegments([events.get(d.eventSeq)!]),
  ]);
  return segmentList(segments, due.length);
};
