-- Webhook delivery (package delivery). Events of the events topic are queued
-- per subscription (delivery_queue, unique per subscription, event id and
-- content hash, so a redelivered Kafka record is queued once) and batched
-- into deliveries: one signed POST, retried on its schedule until it is
-- acknowledged (DELIVERED) or gives up (DEAD). A subscription has at most
-- one open (PENDING or FAILED) delivery of its ordered stream at a time; the
-- next one is made from the events queued meanwhile when it closes.
--
-- No foreign keys: these are the hottest tables of the pipeline, a foreign
-- key check locks the referenced row on every insert, and accounts and
-- subscriptions are never deleted. Pruning deletes a delivery's queue rows
-- with it.

CREATE TABLE deliveries (
    -- Also the webhook-id header: the same on every attempt.
    id               uuid PRIMARY KEY,
    -- Creation order, for listing newest first with a stable cursor.
    seq              bigserial NOT NULL,
    account_id       uuid NOT NULL,
    subscription_id  uuid NOT NULL,
    -- PENDING: not yet attempted (or replayed); FAILED: attempted, retrying;
    -- DELIVERED: acknowledged with a 2xx; DEAD: every attempt failed.
    status           text NOT NULL CHECK (status IN ('PENDING', 'FAILED', 'DELIVERED', 'DEAD')),
    -- A replayed dead delivery is sent outside its subscription's ordered
    -- stream (later events were already delivered after it died).
    replayed         boolean NOT NULL DEFAULT false,
    -- The body is built from the subscription's references and the events
    -- of delivery_queue rows with this delivery_id (in id order): the same
    -- bytes on every attempt.
    event_count      int NOT NULL,
    -- Every attempt ever made (the attempt number in the ClickHouse log).
    attempts         int NOT NULL DEFAULT 0,
    -- Attempts since creation or the last replay: the retry schedule's position.
    round_attempts   int NOT NULL DEFAULT 0,
    replays          int NOT NULL DEFAULT 0,
    next_attempt_at  timestamptz NOT NULL,
    -- A claimed delivery is leased to one sender; an expired lease (crashed
    -- sender) makes it due again. lease_token fences a stale sender's result.
    lease_until      timestamptz,
    lease_token      uuid,
    last_http_code   int,
    last_error       text NOT NULL DEFAULT '',
    created_at       timestamptz NOT NULL,
    updated_at       timestamptz NOT NULL,
    delivered_at     timestamptz,
    dead_at          timestamptz,
    -- When the dead letter was published to the delivery dead-letter topic.
    dlq_published_at timestamptz
);
-- The ordering rule: one open delivery per subscription's ordered stream.
CREATE UNIQUE INDEX deliveries_open_per_subscription ON deliveries (subscription_id)
    WHERE status IN ('PENDING', 'FAILED') AND NOT replayed;
CREATE INDEX deliveries_due ON deliveries (next_attempt_at) WHERE status IN ('PENDING', 'FAILED');
CREATE INDEX deliveries_account_seq ON deliveries (account_id, seq);
-- Pruning: closed deliveries older than their retention.
CREATE INDEX deliveries_created ON deliveries (created_at);
CREATE INDEX deliveries_dead_unpublished ON deliveries (dead_at)
    WHERE status = 'DEAD' AND dlq_published_at IS NULL;

CREATE TABLE delivery_queue (
    id              bigserial PRIMARY KEY,
    subscription_id uuid NOT NULL,
    event_id        text NOT NULL,
    content_hash    text NOT NULL,
    -- The DCSA event JSON, as the normaliser wrote it.
    event           bytea NOT NULL,
    -- The delivery the event was batched into; NULL while queued.
    delivery_id     uuid,
    enqueued_at     timestamptz NOT NULL,
    UNIQUE (subscription_id, event_id, content_hash)
);
CREATE INDEX delivery_queue_unbatched ON delivery_queue (subscription_id, id) WHERE delivery_id IS NULL;
CREATE INDEX delivery_queue_delivery ON delivery_queue (delivery_id);
