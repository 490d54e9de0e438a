-- The account event feed in batches (issue 32): one row per run of an
-- account's items written by one transaction, instead of one row per item.
-- At saturation the feed wrote a row per event and subscription, each with
-- a primary-key entry, a unique-key entry and a BRIN summary (about a
-- third of Postgres' write-ahead log per event, and 26 KB of the 31 KB a
-- tracking cost in Postgres); a batch is one row for up to 256 items.
--
-- A batch numbers its items seq_from..seq_to, consecutive, in the order
-- they were written: element i (from 1) of its arrays is item
-- seq_from + i - 1, so a cursor still names one item. Rows are read by
-- account in seq_to order; a reader takes the items above its cursor.
--
-- kind is the kind of every item of the row: EVENT (events and
-- retractions of the events topic), ALERT (one alert per row: its
-- subscription, kind and ETA move are columns too, for the subscription's
-- alerts view) or VESSEL_POSITION (events holds the item's vesselPosition
-- object). tags holds each event's tags joined with commas (schemas/
-- eventfilter; NULL: written before tags existed, passing every filter).
CREATE TABLE feed_batches (
    account_id       uuid NOT NULL,
    seq_from         bigint NOT NULL,
    seq_to           bigint NOT NULL,
    kind             text NOT NULL,
    created_at       timestamptz NOT NULL,
    subscription_ids uuid[] NOT NULL,
    event_ids        text[] NOT NULL,
    content_hashes   text[] NOT NULL,
    tags             text[] NOT NULL,
    events           bytea[] NOT NULL,
    -- ALERT rows only.
    subscription_id  uuid,
    alert_type       text,
    change_minutes   integer,
    PRIMARY KEY (account_id, seq_to),
    CHECK (seq_to - seq_from + 1 = cardinality(event_ids))
);
-- Pruning takes ranges of creation time, which follows insertion order.
CREATE INDEX feed_batches_created ON feed_batches USING brin (created_at);
-- GET /subscription/{id}/alerts.
CREATE INDEX feed_batches_alerts ON feed_batches (subscription_id, seq_to) WHERE kind = 'ALERT';

-- A record consumed again (at-least-once) writes nothing: the highest
-- offset written per topic (source: 'events' or 'alerts') and record key
-- (the tracking), whose records the consumer hands over in offset order.
-- One narrow row per tracking, updated in place (fillfactor leaves room
-- for heap-only updates), where the unique key was an index entry per
-- item. A mark older than the retention is pruned: a record that old is
-- skipped when consumed anyway.
CREATE TABLE feed_marks (
    source        text NOT NULL,
    tracking_id   uuid NOT NULL,
    src_partition int NOT NULL,
    src_offset    bigint NOT NULL,
    updated_at    timestamptz NOT NULL,
    PRIMARY KEY (source, tracking_id)
) WITH (fillfactor = 70);

-- Every item written before, one row each; the marks from their records.
INSERT INTO feed_batches (account_id, seq_from, seq_to, kind, created_at, subscription_ids, event_ids, content_hashes,
                          tags, events, subscription_id, alert_type, change_minutes)
SELECT account_id, seq, seq, CASE WHEN alert_type IS NOT NULL THEN 'ALERT' ELSE kind END, created_at,
       ARRAY[subscription_id], ARRAY[event_id], ARRAY[content_hash], ARRAY[array_to_string(tags, ',')], ARRAY[event],
       CASE WHEN alert_type IS NOT NULL THEN subscription_id END, alert_type, change_minutes
FROM feed_events;
INSERT INTO feed_marks (source, tracking_id, src_partition, src_offset, updated_at)
SELECT DISTINCT ON (source, s.tracking_id) CASE WHEN f.alert_type IS NOT NULL THEN 'alerts' ELSE 'events' END AS source,
       s.tracking_id, f.src_partition, f.src_offset, f.created_at
FROM feed_events f JOIN subscriptions s ON s.id = f.subscription_id
WHERE f.kind = 'EVENT'
ORDER BY source, s.tracking_id, f.src_offset DESC;
DROP TABLE feed_events;

-- One row per item, as the feed was: for analysts and tests, not the hot
-- paths (they read batches).
CREATE VIEW feed_items AS
SELECT b.account_id, b.seq_from + e.ord - 1 AS seq, e.subscription_id, e.event_id, e.content_hash, e.event,
       string_to_array(e.tags, ',') AS tags, b.kind, b.alert_type, b.change_minutes, b.created_at
FROM feed_batches b
CROSS JOIN LATERAL unnest(b.subscription_ids, b.event_ids, b.content_hashes, b.tags, b.events) WITH ORDINALITY
    AS e(subscription_id, event_id, content_hash, tags, event, ord);
