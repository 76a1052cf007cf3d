/**
 * A webhook subscription, its deliveries and their attempts as the API shows them: schemas and views of WHKREC, WHDREC
 * and WHDAREC.
 */
import { Type, type Static } from 'typebox';
import type { WebhookDelivery, WebhookDeliveryAttempt, WebhookSubscription } from '../backend/copybooks/index.ts';
import { EventType, openList, SubscribableEventType } from './event-type.ts';
import { Timestamp } from './schemas/common.ts';

export const SubscriptionId = Type.String({
  pattern: '^WHS-[0-9A-F]{16}$',
  maxLength: 20,
  description: 'Webhook subscription identifier',
});
export const DeliveryId = Type.String({
  pattern: '^WHD-[0-9A-F]{16}$',
  maxLength: 20,
  description: 'Delivery identifier',
});

export const Subscription = Type.Object({
  subscriptionId: SubscriptionId,
  url: Type.String(),
  eventTypes: Type.Array(SubscribableEventType),
  description: Type.Optional(Type.String()),
  status: Type.Union([Type.Literal('active'), Type.Literal('disabled')]),
  disabledReason: Type.Optional(
    Type.String({
      description:
        'Why deliveries stopped: ENDPOINT_GONE (the endpoint answered 410), ENDPOINT_FAILING (it failed for ' +
        'WEBHOOK_DISABLE_AFTER, default 5 days), DISABLED_BY_OWNER',
    }),
  ),
  createdAt: Timestamp,
});
export type Subscription = Static<typeof Subscription>;

/** The answer to a creation: the only one that shows the signing secret. */
export const CreatedSubscription = Type.Object({
  ...Subscription.properties,
  secret: Type.String({
    pattern: '^whsec_',
    description: 'The signing secret (Standard Webhooks): shown only in this answer',
  }),
});

export const Delivery = Type.Object({
  deliveryId: DeliveryId,
  eventId: Type.String({ format: 'uuid', description: 'The event, and the webhook-id header of every attempt' }),
  eventType: EventType,
  state: Type.Union(
    [Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed'), Type.Literal('cancelled')],
    openList('cancelled: its subscription was disabled while it was pending (it may be retried once enabled)'),
  ),
  attempts: Type.Integer({ minimum: 0 }),
  lastStatusCode: Type.Union([Type.Integer(), Type.Null()], {
    description: 'HTTP status of the last attempt; null when none answered',
  }),
  lastError: Type.Union([Type.String(), Type.Null()], { description: 'Why the last attempt failed, when it did' }),
  nextAttemptAt: Type.Union([Timestamp, Type.Null()], {
    description: 'When it is tried next; null once succeeded or failed',
  }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type Delivery = Static<typeof Delivery>;

/** One attempt of a delivery: what was sent when, and what the endpoint answered. */
export const DeliveryAttempt = Type.Object({
  attemptNumber: Type.Integer({ minimum: 1, description: '1 for the first attempt, counting redeliveries too' }),
  attemptedAt: Timestamp,
  durationMs: Type.Integer({ minimum: 0, description: 'From sending to the end of the answer read (or the failure)' }),
  statusCode: Type.Union([Type.Integer(), Type.Null()], { description: 'HTTP status; null when none answered' }),
  error: Type.Union([Type.String(), Type.Null()], {
    description: 'Why the attempt failed (a status, a time-out, a refused connection); null when it succeeded',
  }),
  responseBody: Type.Union([Type.String({ maxLength: 1024 }), Type.Null()], {
    description:
      'The first 1 KB of the answer body as text (control characters and others the records do not hold are "?"); null when empty or none',
  }),
  nextAttemptAt: Type.Union([Timestamp, Type.Null()], {
    description: 'When this attempt scheduled the next one; null when it did not',
  }),
});
export type DeliveryAttempt = Static<typeof DeliveryAttempt>;

/** WHKREC → API subscription (never its secret). */
export function subscriptionFromRecord(r: WebhookSubscription): Subscription {
  return {
    subscriptionId: r.whkSubscriptionId,
    url: r.whkUrl,
    eventTypes: r.whkEventTypes.slice(0, r.whkEventTypeCount).map((t) => t.whkEventType) as Subscription['eventTypes'],
    ...(r.whkDescription ? { description: r.whkDescription } : {}),
    status: r.whkStatus as Subscription['status'],
    ...(r.whkDisabledReason ? { disabledReason: r.whkDisabledReason } : {}),
    createdAt: r.whkCreatedAt,
  };
}

/** WHDREC → API delivery. */
export function deliveryFromRecord(r: WebhookDelivery): Delivery {
  return {
    deliveryId: r.whdDeliveryId,
    eventId: r.whdEventId,
    eventType: r.whdEventType as Delivery['eventType'],
    state: r.whdState as Delivery['state'],
    attempts: r.whdAttempts,
    // 0 and blanks in the record: no attempt has answered yet, none is due.
    lastStatusCode: r.whdLastStatus || null,
    lastError: r.whdLastError || null,
    nextAttemptAt: r.whdNextAttemptAt || null,
    createdAt: r.whdCreatedAt,
    updatedAt: r.whdUpdatedAt,
  };
}

/** WHDAREC → API delivery attempt. */
export function deliveryAttemptFromRecord(r: WebhookDeliveryAttempt): DeliveryAttempt {
  return {
    attemptNumber: r.whdaAttemptNumber,
    attemptedAt: r.whdaAttemptedAt,
    durationMs: r.whdaDurationMs,
    // 0 and blanks in the record: no answer, no error, no body, nothing scheduled.
    statusCode: r.whdaStatus || null,
    error: r.whdaError || null,
    responseBody: r.whdaResponseBody || null,
    nextAttemptAt: r.whdaNextAttemptAt || null,
  };
}
