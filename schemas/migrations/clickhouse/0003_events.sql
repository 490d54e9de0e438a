-- Every normalised DCSA event per tracking (from the events topic), the read
-- model of GET /subscription/equipment. An update of an event (an estimate
-- that moved) is a new row with a higher version; readers take the row of
-- the highest version per event (argMax), merges keep only it.
CREATE TABLE IF NOT EXISTS events (
    account_id          String,
    env                 String,
    tracking_id         String,
    scac                String,
    event_id            String,
    content_hash        String,
    event_type          String,
    classifier          String,
    type_code           String,
    equipment_reference String,
    location            String,
    event_time          DateTime,
    event_json          String,
    emitted_at          DateTime,
    version             UInt64
) ENGINE = ReplacingMergeTree(version)
PARTITION BY toYYYYMM(emitted_at)
ORDER BY (account_id, tracking_id, event_id);
