-- A rotated signing secret: the one before stays in force until previous_secret_expires_at, so a receiver can
-- take the new one without missing a delivery (each carries both signatures meanwhile). Sealed like `secret`.
ALTER TABLE webhook_subscriptions ADD COLUMN previous_secret TEXT;
ALTER TABLE webhook_subscriptions ADD COLUMN previous_secret_expires_at TEXT;
ALTER TABLE webhook_subscriptions ADD COLUMN secret_rotated_at TEXT;
