-- What the relay has published is one mark, the position up to which every event is published, instead of a
-- published_at on each event: marking a turn's events rewrote every one of their rows and an index entry. The
-- relay publishes in position order and the broker confirms a prefix, so the published events always were the
-- events up to some position: the mark starts there.
ALTER TABLE event_relay ADD COLUMN published_through BIGINT NOT NULL DEFAULT 0;
UPDATE event_relay SET published_through = COALESCE(
  (SELECT MIN(position) - 1 FROM events WHERE position IS NOT NULL AND published_at IS NULL),
  (SELECT MAX(position) FROM events),
  0);
DROP INDEX events_unpublished;
ALTER TABLE events DROP COLUMN published_at;
