-- Since when a subscription's deliveries fail, and the cancelled delivery state: see
-- migrations/sqlite/011_webhook_lifecycle.sql (PostgreSQL widens the CHECK in place).
ALTER TABLE webhook_subscriptions ADD COLUMN failing_since TEXT;

ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_state_check;
ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_state_check
  CHECK (state IN ('pending', 'succeeded', 'failed', 'cancelled'));
