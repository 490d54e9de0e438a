-- Pushed events (POST /events) that matched no open tracking of their
-- carrier key's SCAC and environment, counted per carrier key by the
-- normaliser so the operator sees them (`contrack admin list`) instead of
-- their vanishing. Counted before the normaliser's Kafka transaction
-- commits: a transaction aborted afterwards may count its events twice.
CREATE TABLE pushed_unmatched (
    -- The carrier key (api_keys.id as text; '' for records pushed before
    -- keys travelled with them).
    key_id         text PRIMARY KEY,
    scac           text NOT NULL,
    env            text NOT NULL,
    events         bigint NOT NULL,
    -- The container (or booking / bill) of the latest unmatched event.
    last_reference text NOT NULL,
    last_at        timestamptz NOT NULL
);
