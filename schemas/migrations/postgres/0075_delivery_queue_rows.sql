-- A delivery_queue row holds a run of one subscription's events instead of
-- one event (issue 32): the events of a subscription that one queuing
-- statement queues, in order, as arrays (event ids, content hashes,
-- emittedAt, the DCSA event JSON, traceparents), with their count and
-- bytes, at most a delivery's batch limits (Config.MaxBatchEvents and
-- MaxBatchBytes, unless one event is larger) per row. A delivery is still
-- the range queue_from..queue_to of its subscription's rows (migration
-- 0029), now of whole rows, and its event_count their events. At
-- saturation a busy subscription's events share a row: one heap tuple, one
-- key entry and one BRIN summary update for the run instead of one each per
-- event, and a per-event emission key less (below).
--
-- Idempotence (delivery.queueRepeat, unchanged) no longer has a unique key
-- per event to lean on. delivery_versions keeps, per subscription and
-- event, the version last queued (its content hash and where its bytes
-- are: the queue row and the position in it) and the emissions queued
-- (delivery_emission of content hash and emittedAt, the newest 32): a
-- record whose emission is listed is a Kafka replay, one whose content is
-- the last version's an unchanged re-emission, anything else a change (A
-- -> B -> A included). A retraction is queued with the event as the
-- subscription last got it: the bytes the version row points at (a
-- retraction's own row holds the version it withdrew). Why it is cheaper
-- than the emission key it replaces: its row is narrow (no event JSON, the
-- hashes as 8-byte integers), it has one index (its key), and an event's
-- next version updates it in place rather than adding a queue row and two
-- index entries; with fillfactor 80 that update is a HOT update (the key
-- never changes), which writes no index entry at all. A new event inserts
-- one version row and one key entry (a plain insert: the subscription's
-- advisory lock keeps out a concurrent one), against the old row's
-- heap tuple, key entry and emission entry. Measured (BenchmarkDelivery,
-- docs/performance.md): with many events per subscription the WAL per
-- event falls by about 40%; with one event per delivery it grows a little
-- (the version row costs more than the queue row saves).
--
-- Pruning deletes a delivery's rows and the version rows that point into
-- them (delivery.prune): as before, a version pruned is forgotten.
--
-- Existing rows become one-event rows with their ids, so every delivery's
-- range, body and the rows above each cursor are unchanged; rows queued
-- before emittedAt existed (-infinity, migration 0009) carry their enqueue
-- time in the body, as the body read them, and no emission.

-- The emission of a record (content hash and emittedAt, to the
-- microsecond Postgres keeps): the same for every replay of the record. A
-- 64-bit hash: two different emissions of one event taken for one has a
-- chance of 2^-64.
CREATE FUNCTION delivery_emission(content_hash text, emitted_at timestamptz) RETURNS bigint
    LANGUAGE sql STABLE PARALLEL SAFE
    AS $$ SELECT hashtextextended(content_hash, (extract(epoch FROM emitted_at) * 1000000)::bigint) $$;

ALTER TABLE delivery_queue RENAME TO delivery_queue_events_0074;
ALTER SEQUENCE delivery_queue_id_seq OWNED BY NONE;

CREATE TABLE delivery_queue (
    subscription_id uuid NOT NULL,
    -- Given out under the subscription's advisory lock, in queuing order.
    id              bigint NOT NULL DEFAULT nextval('delivery_queue_id_seq'),
    event_count     int NOT NULL,
    -- octet_length of the events, summed: the batch limit reads it.
    bytes           int NOT NULL,
    enqueued_at     timestamptz NOT NULL,
    -- One element per event, in order. A retraction's (content hash
    -- 'retracted') event is the version it withdraws, as last queued;
    -- traceparents '' where the trace was not sampled.
    event_ids       text[] NOT NULL,
    content_hashes  text[] NOT NULL,
    emitted_at      timestamptz[] NOT NULL,
    events          bytea[] NOT NULL,
    traceparents    text[] NOT NULL
);
INSERT INTO delivery_queue (subscription_id, id, event_count, bytes, enqueued_at, event_ids, content_hashes, emitted_at,
                            events, traceparents)
SELECT subscription_id, id, 1, octet_length(event), enqueued_at, ARRAY[event_id], ARRAY[content_hash],
       ARRAY[CASE WHEN isfinite(emitted_at) THEN emitted_at ELSE enqueued_at END], ARRAY[event], ARRAY[coalesce(traceparent, '')]
FROM delivery_queue_events_0074;

CREATE TABLE delivery_versions (
    subscription_id uuid NOT NULL,
    event_id        text NOT NULL,
    -- The version last queued: hashtextextended(content hash, 0) (8 bytes
    -- for 65: a different content taken for the same has a chance of
    -- 2^-64), and its event's bytes at events[queue_pos] of the queue row
    -- queue_id.
    content_hash    bigint NOT NULL,
    queue_id        bigint NOT NULL,
    queue_pos       int NOT NULL,
    -- delivery_emission of the emissions queued, oldest first, the newest 32
    -- (a Kafka replay re-reads the records after the last committed offset:
    -- seconds of them, never 32 versions of one event).
    emissions       bigint[] NOT NULL,
    PRIMARY KEY (subscription_id, event_id)
) WITH (fillfactor = 80);
INSERT INTO delivery_versions (subscription_id, event_id, content_hash, queue_id, queue_pos, emissions)
SELECT subscription_id, event_id, hashtextextended(content_hash, 0), queue_id, 1, emissions[greatest(cardinality(emissions) - 31, 1):]
FROM (
    SELECT subscription_id, event_id, (array_agg(content_hash ORDER BY id DESC))[1] AS content_hash, max(id) AS queue_id,
           coalesce(array_agg(delivery_emission(content_hash, emitted_at) ORDER BY id) FILTER (WHERE isfinite(emitted_at)),
                    '{}') AS emissions
    FROM delivery_queue_events_0074 GROUP BY subscription_id, event_id) v;

DROP TABLE delivery_queue_events_0074;
ALTER TABLE delivery_queue ADD CONSTRAINT delivery_queue_pkey PRIMARY KEY (subscription_id, id);
ALTER SEQUENCE delivery_queue_id_seq OWNED BY delivery_queue.id;
-- The sweep's look at the rows queued since its last run (migration 0030).
CREATE INDEX delivery_queue_recent ON delivery_queue USING brin (id);

-- The queue as one row per event, in order, for people and tests reading
-- it (psql); the stage reads the arrays.
CREATE VIEW delivery_queue_events AS
SELECT q.subscription_id, q.id, u.pos, u.event_id, u.content_hash, u.emitted_at, u.event, u.traceparent, q.enqueued_at
FROM delivery_queue q
CROSS JOIN LATERAL unnest(q.event_ids, q.content_hashes, q.emitted_at, q.events, q.traceparents)
    WITH ORDINALITY AS u(event_id, content_hash, emitted_at, event, traceparent, pos);
