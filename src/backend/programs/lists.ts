/** What the list programs share: how many items a request may ask for, and the SEGLSTO answer of a page. */
import type { SegmentListResponse } from '../copybooks/records.ts';
import type { Segment } from '../message.ts';
import { ok, type ProgramReply } from '../program.ts';

const DEFAULT_ITEMS = 20;
/** The most items one answer carries (ORDLSTO holds at most 100). */
export const MAX_PAGE_SIZE = 100;

/** The page size asked for, within 1 to 100; zero (not asked) gives `fallback`. */
export function pageSize(maxItems: number, fallback = DEFAULT_ITEMS): number {
  return Math.min(Math.max(Math.trunc(maxItems) || fallback, 1), MAX_PAGE_SIZE);
}

/** How many items a system turn (relay, dispatcher) takes, within 0 to 100: zero asks for none. */
export function turnSize(maxItems: number): number {
  return Math.min(Math.max(Math.trunc(maxItems) || 0, 0), MAX_PAGE_SIZE);
}

/**
 * A page from rows read one past the page size (`limit + 1`): its items as segments, and the seq of its last
 * item as the next cursor when there were more (zero: no further page).
 */
export function segmentPage<R extends { seq: number }>(
  rows: readonly R[],
  limit: number,
  segment: (row: R) => Segment,
): ProgramReply<SegmentListResponse> {
  const page = rows.slice(0, limit);
  const next = rows.length > limit ? page.at(-1)!.seq : 0;
  return { ...ok<SegmentListResponse>({ seglNextSeq: next, seglItemCount: page.length }), segments: page.map(segment) };
}
