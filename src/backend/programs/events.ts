/**
 * EVTLST lists the events a caller may read (the events feed); EVTNXT is the event relay's turn (system
 * caller only): take or keep the lease, take the events committed since its last turn (giving them positions on
 * PostgreSQL), fan them out to webhook subscriptions, mark what the relay has published, and hand it the next
 * unpublished ones. Both answer EVTLSTO followed by the events as segments.
 */
import { eventAudience } from '../caller.ts';
import type { EventListResponse } from '../copybooks/records.ts';
import { RC, recordSegment, type Segment } from '../message.ts';
import { fail, ok, text, type Program, type ProgramReply } from '../program.ts';
import { listEvents, lockRelay, markPublished, nextPositionedEvents, saveRelay, unpublishedEvents, type StoredEvent } from '../store/events.ts';
import { fanOutToSubscriptions } from './webhooks.ts';

const MAX_ITEMS = 100;
/** Events handed on per relay turn: a backlog (a broker that was down) is worked through in steps. */
const POSITIONS_PER_TURN = 1000;

function itemCount(requested: number, fallback: number): number {
  return Math.min(Math.max(Math.trunc(requested) || fallback, 0), MAX_ITEMS);
}

/** Per event, its header (EVTREC) and then its resource's record. */
export function eventSegments(events: readonly StoredEvent[]): Segment[] {
  return events.flatMap((e): Segment[] => [
    recordSegment('EVTREC', {
      evtPosition: e.position, evtEventId: e.eventId, evtEventType: e.type, evtSubject: e.subject, evtOccurredAt: e.occurredAt,
      evtCorrelationId: e.correlationId, evtOwnerCustomerId: e.ownerCustomerId ?? '', evtRecordName: e.recordName,
    }),
    recordSegment(e.recordName, e.record),
  ]);
}

function eventList(events: readonly StoredEvent[], more: boolean, lastPosition: number, leaseHeld = true): ProgramReply<EventListResponse> {
  return {
    ...ok<EventListResponse>({ evtoLeaseHeld: leaseHeld ? 'Y' : 'N', evtoLastPosition: lastPosition, evtoMore: more ? 'Y' : 'N', evtoItemCount: events.length }),
    segments: eventSegments(events),
  };
}

export const listEventsProgram: Program<'EVTLST'> = async (ctx, req) => {
  const after = Math.max(Math.trunc(req.evtlAfterPosition ?? 0) || 0, 0);
  const limit = itemCount(req.evtlMaxItems, 20) || 1;
  const rows = await listEvents(ctx.tx, eventAudience(ctx.caller), { afterPosition: after, type: text(req.evtlTypeFilter) || undefined, limit: limit + 1 });
  const page = rows.slice(0, limit);
  return eventList(page, rows.length > limit, page.at(-1)?.position ?? after);
};

export const relayEventsProgram: Program<'EVTNXT'> = async (ctx, req) => {
  const relayId = text(req.evtnRelayId);
  const leaseSeconds = Math.trunc(req.evtnLeaseSeconds);
  if (!relayId || !(leaseSeconds >= 1)) return fail(RC.INVALID_INPUT, 'INVALID_RELAY_REQUEST', 'a relay id and a lease of at least 1 s are needed');
  const { tx } = ctx;
  const state = await lockRelay(tx);
  if (state.holder && state.holder !== relayId && state.leaseUntil && state.leaseUntil > ctx.now) {
    return eventList([], false, state.lastPosition, false);
  }
  const positioned = await nextPositionedEvents(tx, state.lastPosition, POSITIONS_PER_TURN);
  const lastPosition = positioned.at(-1)?.position ?? state.lastPosition;
  await fanOutToSubscriptions(ctx, positioned);
  // Only what this relay has handed on counts as published (the embedded relay acknowledges "everything").
  await markPublished(tx, Math.min(Math.trunc(req.evtnAckPosition ?? 0) || 0, lastPosition));
  // The lease row is written when something changed or half the lease has gone: an idle relay's turns write nothing.
  const halfLease = new Date(Date.parse(ctx.now) + (leaseSeconds * 1000) / 2).toISOString();
  if (positioned.length > 0 || state.holder !== relayId || !state.leaseUntil || state.leaseUntil < halfLease) {
    await saveRelay(tx, { holder: relayId, leaseUntil: new Date(Date.parse(ctx.now) + leaseSeconds * 1000).toISOString(), lastPosition });
  }
  const max = itemCount(req.evtnMaxItems, 0);
  const pending = max > 0 ? await unpublishedEvents(tx, lastPosition, max + 1) : [];
  return eventList(pending.slice(0, max), pending.length > max || positioned.length === POSITIONS_PER_TURN, lastPosition);
};
