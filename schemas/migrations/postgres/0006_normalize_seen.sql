-- The normaliser's dedupe state: the content hash last emitted per tracking
-- and event id. Written after the Kafka transaction that emitted the event
-- commits; an in-memory LRU in front keeps hot entries.
CREATE TABLE normalize_seen (
    tracking_id  text NOT NULL,
    event_id     text NOT NULL,
    content_hash text NOT NULL,
    updated_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tracking_id, event_id)
);
