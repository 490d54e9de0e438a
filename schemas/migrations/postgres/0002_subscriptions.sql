-- A tracking is (account, carrier, identifier kind, identifier value): what
-- the poller polls. Subscriptions of one account on the same shipment share it.
CREATE TABLE trackings (
    id                uuid PRIMARY KEY,
    account_id        uuid NOT NULL REFERENCES accounts (id),
    env               text NOT NULL,
    scac              text NOT NULL,
    identifier_kind   text NOT NULL CHECK (identifier_kind IN ('container', 'booking', 'bill')),
    identifier        text NOT NULL,
    -- PENDING until the first successful poll (CONNECTED); NO_CREDENTIALS
    -- while the account has no credentials for the carrier; the poller
    -- writes its failure values (UNAUTHORIZED, CARRIER_ERROR, NOT_FOUND).
    connection_status text NOT NULL,
    open_subscriptions int NOT NULL DEFAULT 0,
    created_at        timestamptz NOT NULL DEFAULT now(),
    updated_at        timestamptz NOT NULL DEFAULT now(),
    UNIQUE (account_id, scac, identifier_kind, identifier)
);
CREATE INDEX trackings_account_scac ON trackings (account_id, scac);

CREATE TABLE subscriptions (
    id             uuid PRIMARY KEY,
    account_id     uuid NOT NULL REFERENCES accounts (id),
    reference      text NOT NULL,
    tracking_id    uuid NOT NULL REFERENCES trackings (id),
    scac           text NOT NULL,
    container_number text NOT NULL DEFAULT '',
    booking_number text NOT NULL DEFAULT '',
    bill_number    text NOT NULL DEFAULT '',
    status         text NOT NULL CHECK (status IN ('OPEN', 'CLOSED')),
    created_at     timestamptz NOT NULL,
    expires_at     timestamptz NOT NULL,
    closed_at      timestamptz,
    -- Creation order for stable pagination.
    seq            bigserial,
    UNIQUE (account_id, reference)
);
CREATE INDEX subscriptions_account_seq ON subscriptions (account_id, seq);
CREATE INDEX subscriptions_tracking ON subscriptions (tracking_id) WHERE status = 'OPEN';

-- Transactional outbox: rows written in the same transaction as the change
-- they announce; the relay publishes them to Kafka and marks them.
CREATE TABLE outbox (
    seq          bigserial PRIMARY KEY,
    record_id    uuid NOT NULL UNIQUE,
    topic        text NOT NULL,
    record_key   text NOT NULL,
    record_type  text NOT NULL,
    account_id   uuid NOT NULL,
    payload      jsonb NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    published_at timestamptz
);
CREATE INDEX outbox_unpublished ON outbox (seq) WHERE published_at IS NULL;
