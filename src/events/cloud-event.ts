/**
 * Events as consumers receive them: CloudEvents 1.0 JSON envelopes (https://cloudevents.io) whose `data` is
 * the resource as the API shows it, with the field lists of the role that receives it
 * (src/api/authorization/fields.ts). The back-end's event list (EVTLSTO and its segments) is read here.
 */
import type { Role } from '../api/auth/roles.ts';
import { LOAN_FIELDS, ORDER_FIELDS, PAYMENT_FIELDS, projectFields } from '../api/authorization/fields.ts';
import { customerFromRecord } from '../api/routes/customers.ts';
import { loanFromRecord } from '../api/routes/loans.ts';
import { orderFromRecord } from '../api/routes/orders.ts';
import { paymentFromRecord } from '../api/routes/payments.ts';
import { isResourceRecord, type CopybookRecords, type MessageCatalog, type ResourceRecordName } from '../backend/copybooks/index.ts';
import type { EventListResponse } from '../backend/copybooks/records.ts';
import { MessageFormatError, segmentReader, type SegmentReader } from '../backend/message.ts';

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
  if (!isResourceRecord(recordName)) throw new MessageFormatError(`event ${head.evtEventId} names record "${recordName}", which is no resource record`);
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
export function readEventList(catalog: Pick<MessageCatalog, 'segment'>, body: EventListResponse, segments: Buffer): EventList {
  const read = segmentReader(catalog, segments);
  const items = Array.from({ length: body.evtoItemCount }, () => readEventItem(read));
  return { leaseHeld: body.evtoLeaseHeld === 'Y', lastPosition: body.evtoLastPosition, more: body.evtoMore === 'Y', items };
}

/** Per resource record: the API collection it belongs to (the event's `source`) and its API representation. */
const RESOURCES: { [N in ResourceRecordName]: { source: string; data(record: CopybookRecords[N], role: Role): object } } = {
  ORDREC: { source: '/v1/orders', data: (r, role) => projectFields(orderFromRecord(r), ORDER_FIELDS, role) },
  PAYREC: { source: '/v1/payments', data: (r, role) => projectFields(paymentFromRecord(r), PAYMENT_FIELDS, role) },
  LOANREC: { source: '/v1/loan-applications', data: (r, role) => projectFields(loanFromRecord(r), LOAN_FIELDS, role) },
  CUSREC: { source: '/v1/customers', data: (r, role) => customerFromRecord(r, role) },
};

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
  /** The event's position in commit order, zero-padded to 15 digits so that text order is that order (extension attribute). */
  sequence: string;
  data: object;
}

/** The roles the back-end's owner views map to: the broker's internal consumers get the owner's (customer's) view. */
export const OWNER_VIEW: Role = 'customer';

/** A resource record as the API shows it to a role (what GET on its path answers). */
export function resourceView<N extends ResourceRecordName>(recordName: N, record: CopybookRecords[N], role: Role): object {
  return RESOURCES[recordName].data(record, role);
}

export function toCloudEvent(item: EventItem, role: Role): CloudEvent {
  const resource = RESOURCES[item.recordName];
  return {
    specversion: '1.0',
    id: item.eventId,
    type: item.type,
    source: resource.source,
    subject: item.subject,
    time: item.occurredAt,
    datacontenttype: 'application/json',
    correlationid: item.correlationId,
    sequence: String(item.position).padStart(15, '0'),
    data: resourceView(item.recordName, item.record, role),
  };
}
