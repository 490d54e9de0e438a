-- Every version of an event is delivered, a return to an earlier content
-- included (A -> B -> A pushes A twice), while a Kafka record consumed twice
-- is still queued once.
--
-- The queue was unique per (subscription, event id, content hash), so the
-- second A was taken for a repeat and dropped. A queue row now names the
-- emission it came from: the event record's emittedAt, set once by the
-- normaliser when it emits a version and carried unchanged by every replay
-- of that record. The unique key (subscription, event id, emitted_at,
-- content hash) makes a replayed record a no-op; the enqueue statement also
-- skips a record whose content equals the version last queued for that
-- subscription and event (the normaliser re-emitting an unchanged event
-- after losing its dedupe state), so neither replays nor re-emissions are
-- pushed twice and no change is ever lost.
--
-- Rows queued before this migration (and rows written without one) have
-- emitted_at '-infinity': they only ever count as the version last queued.
ALTER TABLE delivery_queue ADD COLUMN emitted_at timestamptz NOT NULL DEFAULT '-infinity';
ALTER TABLE delivery_queue DROP CONSTRAINT delivery_queue_subscription_id_event_id_content_hash_key;
CREATE UNIQUE INDEX delivery_queue_emission ON delivery_queue (subscription_id, event_id, emitted_at, content_hash);
