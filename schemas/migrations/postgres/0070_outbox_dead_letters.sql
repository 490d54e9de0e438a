-- Outbox dead letters (issue 31). A row Kafka refuses for a reason
-- retrying cannot fix (a record too large for its topic, a topic that does
-- not exist) is dead-lettered in place by the relay: dead_at and
-- dead_reason are set, published_at stays NULL, and the rows after it are
-- published. Before this a poison row stopped the relay, which restarted
-- every 2 s for ever, and every later subscription change queued behind
-- it. Dead rows are kept for Relay.Retention (7 days) like published ones;
-- docs/operations.md says how to find them and publish one again.
ALTER TABLE outbox ADD COLUMN dead_at timestamptz, ADD COLUMN dead_reason text;

-- The relay's queue: neither published nor dead.
DROP INDEX outbox_unpublished;
CREATE INDEX outbox_unpublished ON outbox (seq) WHERE published_at IS NULL AND dead_at IS NULL;
CREATE INDEX outbox_dead ON outbox (dead_at) WHERE dead_at IS NOT NULL;
