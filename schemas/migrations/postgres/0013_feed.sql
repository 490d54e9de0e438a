-- The account event feed (package feed, GET /subscriptions/events): every
-- event of the events topic, once per OPEN subscription of its tracking,
-- numbered per account in the order written.

-- The last sequence number given out per account. Its row lock, held by a
-- writing transaction until it commits, makes an account's numbers commit
-- in order, so a reader that has seen seq n never later meets a smaller one.
-- Never deleted (numbers are never reused, so old cursors stay valid).
CREATE TABLE feed_accounts (
    account_id uuid PRIMARY KEY REFERENCES accounts (id),
    last_seq   bigint NOT NULL
);

CREATE TABLE feed_events (
    account_id      uuid NOT NULL,
    seq             bigint NOT NULL,
    subscription_id uuid NOT NULL,
    event_id        text NOT NULL,
    content_hash    text NOT NULL,
    -- Where the event record was on the events topic: a record consumed
    -- again (at-least-once) is the same row; the same event re-emitted
    -- (A, B, then A again) is a new record, hence a new row.
    src_partition   int NOT NULL,
    src_offset      bigint NOT NULL,
    -- The DCSA event JSON, as the normaliser wrote it.
    event           bytea NOT NULL,
    created_at      timestamptz NOT NULL,
    PRIMARY KEY (account_id, seq),
    UNIQUE (subscription_id, src_partition, src_offset, event_id, content_hash)
);
-- Pruning takes ranges of creation time, which follows insertion order.
CREATE INDEX feed_events_created ON feed_events USING brin (created_at);
