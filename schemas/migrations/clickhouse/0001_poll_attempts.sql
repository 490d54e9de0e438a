-- One row per carrier poll (from the poll-attempts topic). ReplacingMergeTree
-- on attempt_id makes a replayed record one row after merges; queries that
-- must be exact use FINAL or GROUP BY attempt_id.
CREATE TABLE IF NOT EXISTS poll_attempts (
    attempt_id  String,
    account_id  String,
    env         String,
    scac        String,
    tracking_id String,
    outcome     String,
    http_code   UInt16,
    latency_ms  UInt32,
    event_count UInt32,
    at          DateTime,
    day         Date
) ENGINE = ReplacingMergeTree()
PARTITION BY toYYYYMM(day)
ORDER BY (account_id, scac, day, attempt_id);
