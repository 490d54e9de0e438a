-- Deliveries that carry a message of their own instead of a subscription's
-- events: the webhook verification (sent when a webhook is configured,
-- carrying the secret to activate it with) and the console's test delivery.
-- They go through the delivery stage like events — durable, leased, signed,
-- behind the endpoint's breaker, retried on the schedule, logged — so a
-- verification survives a restart.
--
-- kind: 'events' (every row before this migration), 'verification', 'test'.
ALTER TABLE deliveries ADD COLUMN kind text NOT NULL DEFAULT 'events'
    CHECK (kind IN ('events', 'verification', 'test'));
-- A message delivery belongs to no subscription.
ALTER TABLE deliveries ALTER COLUMN subscription_id DROP NOT NULL;
-- The body of a message delivery, sealed (secretbox, context
-- "<account_id>/webhook-message"): a verification carries the webhook secret.
-- The same bytes on every attempt. NULL for events (built from the queue).
ALTER TABLE deliveries ADD COLUMN message_enc bytea;
-- NOT VALID: every existing row is an events delivery with a subscription and
-- no message; new and updated rows are checked.
ALTER TABLE deliveries ADD CONSTRAINT deliveries_kind_shape CHECK (
    (kind = 'events') = (subscription_id IS NOT NULL) AND (kind = 'events') = (message_enc IS NULL)) NOT VALID;
-- Verifications are claimed whether or not the webhook is activated (it is
-- not, yet): their own small due index.
CREATE INDEX deliveries_verification_due ON deliveries (next_attempt_at)
    WHERE kind = 'verification' AND status IN ('PENDING', 'FAILED');
-- The per-account rate limit of test deliveries, and finding an account's
-- open verification when its webhook is re-configured or activated.
CREATE INDEX deliveries_messages_per_account ON deliveries (account_id, created_at) WHERE kind <> 'events';
