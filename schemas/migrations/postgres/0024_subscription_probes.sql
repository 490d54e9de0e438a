-- The expiry index no longer answers look-ups it cannot narrow. Its
-- predicate was exactly the open-subscription probes' (status = 'OPEN'), so
-- on tables without statistics (a new database's first minutes, when every
-- index looks one page long) the planner could pick a full scan of it,
-- filtering on tracking_id, instead of subscriptions_tracking — and kept
-- that generic plan per connection. Delivery's queue and the feed's write
-- then read every open subscription for each event. `expires_at IS NOT
-- NULL` (always true: the column is NOT NULL) is implied by the lifecycle
-- sweep's own condition, not by a probe by tracking.
DROP INDEX subscriptions_open_expiry;
CREATE INDEX subscriptions_open_expiry ON subscriptions (expires_at) WHERE status = 'OPEN' AND expires_at IS NOT NULL;
