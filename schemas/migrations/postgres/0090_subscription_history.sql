-- History on subscribe: a subscription is owed its shipment's events that
-- exist already, once, in order, before anything newer. history_pending
-- says the poller has not yet polled its tracking for it: the next poll
-- carries it as a history target (schemas.HeaderHistoryFor) and clears the
-- flag once the carrier's pages are in Kafka. Rows that exist already
-- were served before this column (false); every new subscription is owed
-- its history (the default true). Push-only subscriptions are never polled
-- and keep it true: their history is what the carrier pushes next.
ALTER TABLE subscriptions ADD COLUMN history_pending boolean NOT NULL DEFAULT false;
ALTER TABLE subscriptions ALTER COLUMN history_pending SET DEFAULT true;
CREATE INDEX subscriptions_history_pending ON subscriptions (tracking_id) WHERE history_pending AND status = 'OPEN';
