-- An owner's subscriptions are listed a page at a time, oldest first, by a keyset cursor: `seq` is an identity
-- column, the subscriptions there are numbered first, in creation order.
ALTER TABLE webhook_subscriptions ADD COLUMN seq BIGINT;
UPDATE webhook_subscriptions SET seq = numbered.n
  FROM (SELECT subscription_id, ROW_NUMBER() OVER (ORDER BY created_at, subscription_id) AS n FROM webhook_subscriptions) AS numbered
  WHERE webhook_subscriptions.subscription_id = numbered.subscription_id;
ALTER TABLE webhook_subscriptions ALTER COLUMN seq SET NOT NULL;
ALTER TABLE webhook_subscriptions ALTER COLUMN seq ADD GENERATED ALWAYS AS IDENTITY;
SELECT setval(pg_get_serial_sequence('webhook_subscriptions', 'seq'), (SELECT COALESCE(MAX(seq), 0) + 1 FROM webhook_subscriptions), false);
CREATE UNIQUE INDEX webhook_subscriptions_by_seq ON webhook_subscriptions (seq);
DROP INDEX webhook_subscriptions_by_owner;
CREATE INDEX webhook_subscriptions_by_owner ON webhook_subscriptions (owner_principal, seq);
