/**
 * Reading the events feed in tests: every page, and waiting until the relay has given positions to what is expected.
 */
import assert from 'node:assert/strict';
import type { TestApp } from './app.ts';

export interface FeedEvent {
  specversion: string;
  id: string;
  type: string;
  source: string;
  subject: string;
  time: string;
  datacontenttype: string;
  correlationid: string;
  sequence: string;
  data: Record<string, unknown>;
}

/** Every event the caller may see, page by page (`limit` per page), oldest first. */
export async function readFeed(h: TestApp, as: string, query = '', limit = 100): Promise<FeedEvent[]> {
  const items: FeedEvent[] = [];
  let after = '';
  for (let page = 0; page < 1000; page++) {
    const res = await h.request({
      method: 'GET',
      url: `/v1/events?limit=${limit}${query}${after ? `&cursor=${after}` : ''}`,
      as,
    });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json() as { items: FeedEvent[]; nextCursor: string; hasMore: boolean };
    items.push(...body.items);
    after = body.nextCursor;
    if (!body.hasMore) return items;
  }
  throw new Error('the feed did not end');
}

/** The caller's feed once `done` holds for it (the relay positions committed events within its poll interval). */
export async function feedWhen(
  h: TestApp,
  as: string,
  done: (events: FeedEvent[]) => boolean,
  ms = 10_000,
): Promise<FeedEvent[]> {
  const deadline = Date.now() + ms;
  for (;;) {
    const events = await readFeed(h, as);
    if (done(events)) return events;
    if (Date.now() > deadline)
      assert.fail(
        `the feed of ${as} did not get there in ${ms} ms; it has ${events.map((e) => `${e.type} ${e.subject}`).join(', ')}`,
      );
    await new Promise((r) => setTimeout(r, 20));
  }
}
