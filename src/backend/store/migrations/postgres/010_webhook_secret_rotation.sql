-- A rotated signing secret: see migrations/sqlite/012_webhook_secret_rotation.sql; the same columns.
ALTER TABLE webhook_subscriptions ADD COLUMN previous_secret TEXT;
ALTER TABLE webhook_subscriptions ADD COLUMN previous_secret_expires_at TEXT;
ALTER TABLE webhook_subscriptions ADD COLUMN secret_rotated_at TEXT;
