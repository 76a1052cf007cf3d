-- An owner's subscriptions are listed a page at a time, oldest first, by a keyset cursor: `seq` is added, numbered
-- in creation order for the subscriptions there are, and given to a new one by a trigger (inserts never name it,
-- as on PostgreSQL, where it is an identity column).
ALTER TABLE webhook_subscriptions ADD COLUMN seq INTEGER;
UPDATE webhook_subscriptions SET seq = (
  SELECT COUNT(*) FROM webhook_subscriptions AS earlier
  WHERE (earlier.created_at, earlier.subscription_id) <= (webhook_subscriptions.created_at, webhook_subscriptions.subscription_id));
CREATE UNIQUE INDEX webhook_subscriptions_by_seq ON webhook_subscriptions (seq);
CREATE TRIGGER webhook_subscriptions_seq AFTER INSERT ON webhook_subscriptions WHEN NEW.seq IS NULL
BEGIN
  UPDATE webhook_subscriptions SET seq = (SELECT COALESCE(MAX(seq), 0) + 1 FROM webhook_subscriptions)
  WHERE subscription_id = NEW.subscription_id;
END;
DROP INDEX webhook_subscriptions_by_owner;
CREATE INDEX webhook_subscriptions_by_owner ON webhook_subscriptions (owner_principal, seq);
