/** An event as a message carries it (EVTLST, EVTNXT, WHDDUE): its header record, then its resource's record. */
import { recordSegment, type Segment } from '../message.ts';
import type { StoredEvent } from '../store/events.ts';

/** Per event, its header (EVTREC) and then its resource's record. */
export function eventSegments(events: readonly StoredEvent[]): Segment[] {
  return events.flatMap((e): Segment[] => [
    recordSegment('EVTREC', {
      evtPosition: e.position,
      evtEventId: e.eventId,
      evtEventType: e.type,
      evtSubject: e.subject,
      evtOccurredAt: e.occurredAt,
      evtCorrelationId: e.correlationId,
      evtOwnerCustomerId: e.ownerCustomerId ?? '',
      evtRecordName: e.recordName,
    }),
    recordSegment(e.recordName, e.record),
  ]);
}
