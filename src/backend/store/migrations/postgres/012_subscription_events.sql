-- Events may be about a webhook subscription (WebhookTest, WebhookSubscriptionDisabled), addressed to its owner
-- (created_by).
ALTER TABLE events DROP CONSTRAINT events_resource_check;
ALTER TABLE events ADD CONSTRAINT events_resource_check
  CHECK (resource IN ('order', 'payment', 'loan', 'customer', 'subscription'));
-- A time window (the feed's `since`, a recover's window) is found by time, not by reading every event; by time
-- alone, so that giving an event its position does not rewrite an entry of this index.
CREATE INDEX events_by_time ON events (occurred_at);
