/**
 * Events as consumers receive them: CloudEvents 1.0 JSON envelopes (https://cloudevents.io) whose `data` is the
 * resource as the API shows it to the receiver's role; read from the back-end's event list (EVTLSTO and segments).
 */
// First: by-record.ts reaches webhook-subscription.ts, which reads EventType as it loads.
import { EventType } from './event-type.ts';
import { Type } from 'typebox';
import type { Role } from '../auth/roles.ts';
import {
  isResourceRecord,
  type CopybookRecords,
  type MessageCatalog,
  type ResourceRecordName,
} from '../backend/copybooks/index.ts';
import type { EventListResponse } from '../backend/copybooks/records.ts';
import { MessageFormatError, segmentReader, type SegmentReader } from '../backend/message.ts';
import { collectionOf, resourceView } from './by-record.ts';
import { Timestamp } from './schemas/common.ts';

export { EventType, SubscribableEventType } from './event-type.ts';

export const CloudEventSchema = Type.Object(
  {
    specversion: Type.Literal('1.0'),
    id: Type.String({ format: 'uuid', description: 'The same on every delivery of the event: deduplicate by it' }),
    type: EventType,
    source: Type.String({
      description: 'The API collection of the resource, e.g. /v1/orders; source + "/" + subject is its path',
      examples: ['/v1/orders'],
    }),
    subject: Type.String({ description: 'The resource id', examples: ['ORD-9D910462994C28C3'] }),
    time: Timestamp,
    datacontenttype: Type.Literal('application/json'),
    correlationid: Type.String({ description: 'X-Request-ID of the request that made the change' }),
    sequence: Type.String({
      pattern: '^[0-9]{15}$',
      description: 'Position in commit order, zero-padded: text order is commit order',
    }),
    data: Type.Record(Type.String(), Type.Unknown(), {
      description:
        "The resource as GET on its path returns it to the receiver's role: " +
        'an Order, Payment, LoanDecision or Customer; a Subscription for WebhookTest and WebhookSubscriptionDisabled',
    }),
  },
  { $id: 'CloudEvent', description: 'A CloudEvents 1.0 JSON envelope' },
);

export interface CloudEvent {
  specversion: '1.0';
  /** A UUID, the same wherever and however often the event is delivered: the consumer's deduplication key. */
  id: string;
  /** Past tense: OrderConfirmed, PaymentCompleted, LoanApproved, … */
  type: string;
  /** The API collection of the resource; `source` + "/" + `subject` is the resource's path. */
  source: string;
  subject: string;
  time: string;
  datacontenttype: 'application/json';
  /** The X-Request-ID of the request that made the change (extension attribute). */
  correlationid: string;
  /** The event's position in commit order, zero-padded to 15 digits so that text order is that order. */
  sequence: string;
  data: object;
}

/** An example envelope for the contract: the event of `data` (a resource example) at its collection. */
export function exampleEvent(type: string, source: string, subject: string, data: object): CloudEvent {
  return {
    specversion: '1.0',
    id: '6f1c2a9e-4b7d-4e3a-9c5f-1d8b2e7a4c60',
    type,
    source,
    subject,
    time: '2026-11-28T09:30:00.000Z',
    datacontenttype: 'application/json',
    correlationid: '0b9e5d2c-7a41-4f86-b3e0-c5d8a1f2e934',
    sequence: '000000000000042',
    data,
  };
}

/** One event of the back-end's list: its header (EVTREC) and the resource's record as it was then. */
export interface EventItem {
  position: number;
  eventId: string;
  type: string;
  subject: string;
  occurredAt: string;
  correlationId: string;
  ownerCustomerId: string | null;
  recordName: ResourceRecordName;
  /** The record `recordName` names. */
  record: Readonly<CopybookRecords[ResourceRecordName]>;
}

export interface EventList {
  /** For the relay: does it hold the lease (false: another relay gives positions now)? */
  leaseHeld: boolean;
  /** The position of the last event listed (the feed's next cursor), or where the list started. */
  lastPosition: number;
  more: boolean;
  items: EventItem[];
}

/** One event from a segment reader: its header (EVTREC), then the resource record it names. */
export function readEventItem(read: SegmentReader): EventItem {
  const head = read('EVTREC');
  const recordName = head.evtRecordName;
  if (!isResourceRecord(recordName)) {
    throw new MessageFormatError(`event ${head.evtEventId} names record "${recordName}", which is no resource record`);
  }
  return {
    position: head.evtPosition,
    eventId: head.evtEventId,
    type: head.evtEventType,
    subject: head.evtSubject,
    occurredAt: head.evtOccurredAt,
    correlationId: head.evtCorrelationId,
    ownerCustomerId: head.evtOwnerCustomerId || null,
    recordName,
    record: read(recordName),
  };
}

/** EVTLSTO and the segments after it. */
export function readEventList(
  catalog: Pick<MessageCatalog, 'segment'>,
  body: EventListResponse,
  segments: Buffer,
): EventList {
  const read = segmentReader(catalog, segments);
  const items = Array.from({ length: body.evtoItemCount }, () => readEventItem(read));
  const more = body.evtoMore === 'Y';
  return { leaseHeld: body.evtoLeaseHeld === 'Y', lastPosition: body.evtoLastPosition, more, items };
}

/** The role whose view the broker's internal consumers get: the owner's (customer's). */
export const OWNER_VIEW: Role = 'customer';

export function toCloudEvent(item: EventItem, role: Role): CloudEvent {
  return {
    specversion: '1.0',
    id: item.eventId,
    type: item.type,
    source: collectionOf(item.recordName),
    subject: item.subject,
    time: item.occurredAt,
    datacontenttype: 'application/json',
    correlationid: item.correlationId,
    sequence: String(item.position).padStart(15, '0'),
    data: resourceView(item.recordName, item.record, role),
  };
}
