-- delivery_queue is read by subscription only (a delivery's range, the rows
-- above a subscription's cursor, pruning), so its primary key becomes
-- (subscription_id, id) and the index on id alone goes: it was one of three
-- btree entries written for every event queued, the pipeline's hottest
-- insert. The sweep, which looks at the rows queued since its last run by
-- id, gets a BRIN index instead: its newest, unsummarised range costs an
-- insert nothing, and is always read.
CREATE UNIQUE INDEX delivery_queue_key ON delivery_queue (subscription_id, id);
ALTER TABLE delivery_queue DROP CONSTRAINT delivery_queue_pkey;
ALTER TABLE delivery_queue ADD CONSTRAINT delivery_queue_pkey PRIMARY KEY USING INDEX delivery_queue_key;
DROP INDEX delivery_queue_subscription;
CREATE INDEX delivery_queue_recent ON delivery_queue USING brin (id);
