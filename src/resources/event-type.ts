/**
 * Event type names as the API states them. Apart from event.ts because the subscription's view (which names them)
 * is itself an event's data: event.ts reaches it through by-record.ts.
 */
import { Type } from 'typebox';
import { ALL_EVENT_TYPES, EVENT_TYPES } from '../backend/store/journal.ts';

/** Marks a list of values that grows by design; the app's validator knows it as a keyword with no rule. */
export const OPEN_ENUM_KEYWORD = 'x-open-enum';

/**
 * Options of a list of values that grows by design (event types, delivery states): `enum` still names every value
 * sent today, and `x-open-enum` tells clients and `contract:check` that a new one is no breaking change.
 */
export const openList = (description: string) => ({
  description: `${description}. More values may be added: handle unknown ones`,
  [OPEN_ENUM_KEYWORD]: true,
});

export const EventType = Type.Union(
  ALL_EVENT_TYPES.map((t) => Type.Literal(t)),
  openList('What happened, in the past tense'),
);

/** The types a subscription may name (WebhookTest goes only to the subscription it was asked for). */
export const SubscribableEventType = Type.Union(
  EVENT_TYPES.map((t) => Type.Literal(t)),
  openList('What happened, in the past tense'),
);
