/**
 * Event type names as the API states them. Apart from event.ts because the subscription's view (which names them)
 * is itself an event's data: event.ts reaches it through by-record.ts.
 */
import { Type } from 'typebox';
import { ALL_EVENT_TYPES, EVENT_TYPES } from '../backend/store/journal.ts';

export const EventType = Type.Union(
  ALL_EVENT_TYPES.map((t) => Type.Literal(t)),
  { description: 'What happened, in the past tense' },
);

/** The types a subscription may name (WebhookTest goes only to the subscription it was asked for). */
export const SubscribableEventType = Type.Union(
  EVENT_TYPES.map((t) => Type.Literal(t)),
  { description: 'What happened, in the past tense' },
);
