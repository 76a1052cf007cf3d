/**
 * EVTLST lists the events a caller may read (the events feed), EVTINQ answers one of them. EVTNXT is the event
 * relay's turn (system caller only); relayEventsProgram says its steps. All answer EVTLSTO followed by the events as
 * segments.
 */
import { eventAudience } from '../caller.ts';
import type { EventListResponse } from '../copybooks/records.ts';
import { RC } from '../message.ts';
import { fail, ok, text, type Program, type ProgramReply } from '../program.ts';
import {
  findReadableEvent,
  listEvents,
  lockRelay,
  markPublished,
  nextPositionedEvents,
  returnPositionsAfter,
  saveRelay,
  unpublishedEvents,
  type StoredEvent,
} from '../store/events.ts';
import { ALL_EVENT_TYPES } from '../store/journal.ts';
import { eventSegments } from './event-segments.ts';
import { pageSize, turnSize } from './lists.ts';
import { fanOutToSubscriptions } from './webhooks.ts';

/** Events handed on per relay turn: a backlog (a broker that was down) is worked through in steps. */
const POSITIONS_PER_TURN = 1000;

function eventList(
  events: readonly StoredEvent[],
  more: boolean,
  lastPosition: number,
  leaseHeld = true,
): ProgramReply<EventListResponse> {
  const list: EventListResponse = {
    evtoLeaseHeld: leaseHeld ? 'Y' : 'N',
    evtoLastPosition: lastPosition,
    evtoMore: more ? 'Y' : 'N',
    evtoItemCount: events.length,
  };
  return { ...ok(list), segments: eventSegments(events) };
}

/** An ISO-8601 UTC timestamp as events store theirs (toISOString), so that text order is time order. */
const STORED_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

export const listEventsProgram: Program<'EVTLST'> = async (ctx, req) => {
  const after = Math.max(Math.trunc(req.evtlAfterPosition ?? 0) || 0, 0);
  const limit = pageSize(req.evtlMaxItems);
  const count = Math.max(Math.trunc(req.evtlTypeCount ?? 0) || 0, 0);
  const types = [...new Set(req.evtlTypes.slice(0, count).map((t) => text(t.evtlType)))];
  const unknown = types.find((t) => !(ALL_EVENT_TYPES as readonly string[]).includes(t));
  if (unknown !== undefined)
    return fail(RC.INVALID_INPUT, 'INVALID_EVENT_TYPE', `no event type is called "${unknown}"`);
  const since = text(req.evtlSince);
  if (since && !STORED_TIME.test(since)) {
    return fail(RC.INVALID_INPUT, 'INVALID_SINCE', 'since must be a UTC time as YYYY-MM-DDTHH:MM:SS.sssZ');
  }
  const rows = await listEvents(ctx.tx, eventAudience(ctx.caller), {
    afterPosition: after,
    types,
    since: since || undefined,
    limit: limit + 1,
  });
  const page = rows.slice(0, limit);
  return eventList(page, rows.length > limit, page.at(-1)?.position ?? after);
};

/** One event, by the feed's rule: one the caller may not read is "not found". */
export const inquireEventProgram: Program<'EVTINQ'> = async (ctx, req) => {
  const event = await findReadableEvent(ctx.tx, eventAudience(ctx.caller), text(req.evtkEventId));
  if (!event) return fail(RC.NOT_FOUND, 'EVENT_NOT_FOUND', 'event not found');
  return eventList([event], false, event.position);
};

/**
 * Takes or keeps the lease, takes the events committed since the relay's last turn (giving them positions on
 * PostgreSQL), fans them out to webhook subscriptions (as many of them as one turn's deliveries allow), marks
 * what the relay has published, and hands it the next unpublished ones.
 */
export const relayEventsProgram: Program<'EVTNXT'> = async (ctx, req) => {
  const relayId = text(req.evtnRelayId);
  const leaseSeconds = Math.trunc(req.evtnLeaseSeconds);
  if (!relayId || !(leaseSeconds >= 1)) {
    return fail(RC.INVALID_INPUT, 'INVALID_RELAY_REQUEST', 'a relay id and a lease of at least 1 s are needed');
  }
  const { tx } = ctx;
  const state = await lockRelay(tx);
  if (state.holder && state.holder !== relayId && state.leaseUntil && state.leaseUntil > ctx.now) {
    return eventList([], false, state.lastPosition, false);
  }
  const given = await nextPositionedEvents(tx, state.lastPosition, POSITIONS_PER_TURN);
  // The fan-out may take only the first events (a bounded number of deliveries per turn): the rest, their
  // positions given back, wait for the next turn.
  const positioned = given.slice(0, await fanOutToSubscriptions(ctx, given));
  const lastPosition = positioned.at(-1)?.position ?? state.lastPosition;
  if (positioned.length < given.length) await returnPositionsAfter(tx, lastPosition);
  // Only what this relay has handed on counts as published (the embedded relay acknowledges "everything").
  await markPublished(tx, Math.min(Math.trunc(req.evtnAckPosition ?? 0) || 0, lastPosition));
  // The lease row is written when something changed or half the lease has gone: an idle relay's turns write
  // nothing.
  const halfLease = new Date(Date.parse(ctx.now) + (leaseSeconds * 1000) / 2).toISOString();
  if (positioned.length > 0 || state.holder !== relayId || !state.leaseUntil || state.leaseUntil < halfLease) {
    const leaseUntil = new Date(Date.parse(ctx.now) + leaseSeconds * 1000).toISOString();
    await saveRelay(tx, { holder: relayId, leaseUntil, lastPosition });
  }
  const max = turnSize(req.evtnMaxItems);
  const pending = max > 0 ? await unpublishedEvents(tx, lastPosition, max + 1) : [];
  const more = pending.length > max || given.length === POSITIONS_PER_TURN || positioned.length < given.length;
  return eventList(pending.slice(0, max), more, lastPosition);
};
