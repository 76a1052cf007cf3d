/** What the customer's lists (ACCLST, PAYLST, LNLST) share: the page size and the SEGLSTO answer. */
import type { SegmentListResponse } from '../copybooks/records.ts';
import type { Segment } from '../message.ts';
import { ok, type ProgramReply } from '../program.ts';

const DEFAULT_ITEMS = 20;
const MAX_ITEMS = 100;

/** The page size asked for, within 1 to 100 (zero: the default). */
export function pageSize(maxItems: number): number {
  return Math.min(Math.max(Math.trunc(maxItems) || DEFAULT_ITEMS, 1), MAX_ITEMS);
}

/**
 * A page from rows read one past the page size (`limit + 1`): its items as segments, and the seq of its last
 * item as the next cursor when there were more (zero: no further page).
 */
export function segmentPage<R extends { seq: number }>(rows: readonly R[], limit: number, segment: (row: R) => Segment): ProgramReply<SegmentListResponse> {
  const page = rows.slice(0, limit);
  const next = rows.length > limit ? page.at(-1)!.seq : 0;
  return { ...ok<SegmentListResponse>({ seglNextSeq: next, seglItemCount: page.length }), segments: page.map(segment) };
}
