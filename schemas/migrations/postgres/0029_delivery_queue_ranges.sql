-- A delivery names its events as a range of its subscription's queue rows
-- (queue_from..queue_to, ids in the subscription's queue order) instead of
-- each queue row naming its delivery. Batching events queued while the
-- subscription's previous delivery was open used to update every one of
-- those rows (a new row version and index entries each, the largest write
-- of the pipeline at saturation); now it only inserts the delivery.
--
-- The rows of a subscription not yet in a delivery are those above its
-- cursor, the highest queue_to of its deliveries. Ids are taken under the
-- subscription's advisory lock (delivery.lockSQL), so a subscription's rows
-- are numbered in the order they are queued and committed, and a batch is
-- always the oldest rows above the cursor: every range is contiguous.
ALTER TABLE deliveries ADD COLUMN queue_from bigint, ADD COLUMN queue_to bigint;
UPDATE deliveries d SET queue_from = r.lo, queue_to = r.hi
FROM (SELECT delivery_id, min(id) AS lo, max(id) AS hi FROM delivery_queue
      WHERE delivery_id IS NOT NULL GROUP BY delivery_id) r
WHERE d.id = r.delivery_id;
-- The cursor: a subscription's highest queue_to.
CREATE INDEX deliveries_subscription_cursor ON deliveries (subscription_id, queue_to) WHERE queue_to IS NOT NULL;
-- A delivery's events, and the rows above a cursor.
CREATE INDEX delivery_queue_subscription ON delivery_queue (subscription_id, id);
DROP INDEX delivery_queue_unbatched;
DROP INDEX delivery_queue_delivery;
ALTER TABLE delivery_queue DROP COLUMN delivery_id;
