-- One row per webhook delivery attempt (package delivery). The delivery log:
-- Postgres keeps each delivery's state, this table every attempt's outcome.
-- ReplacingMergeTree on (delivery_id, attempt) makes a row written twice
-- one row after merges; exact queries use FINAL or GROUP BY delivery_id, attempt.
CREATE TABLE IF NOT EXISTS delivery_attempts (
    delivery_id     String,
    account_id      String,
    subscription_id String,
    endpoint        String,
    attempt         UInt16,
    status_code     UInt16,
    outcome         String,
    latency_ms      UInt32,
    error           String,
    at              DateTime,
    day             Date
) ENGINE = ReplacingMergeTree()
PARTITION BY toYYYYMM(day)
ORDER BY (account_id, day, delivery_id, attempt);
