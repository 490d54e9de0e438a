-- Alerts and terminal readiness for analysts (issue 34, docs/analytics.md).
--
-- alerts: every alert of the alerts topic (projector, its own consumer
-- group). An alert's id is stable, so one raised again (a replay) is the
-- same row once merged; readers take one row per alert_id (argMax).
CREATE TABLE IF NOT EXISTS alerts (
    account_id          String,
    env                 String,
    tracking_id         String,
    scac                String,
    alert_id            String,
    alert_type          String,
    equipment_reference String,
    location            String,
    alert_time          DateTime,
    change_minutes      Int32,
    alert_json          String,
    emitted_at          DateTime,
    version             UInt64
) ENGINE = ReplacingMergeTree(version)
PARTITION BY toYYYYMM(alert_time)
ORDER BY (account_id, alert_id);

-- readiness: a container's facts at its port of discharge, as the journey
-- projection last derived them (one row per change; readers take the
-- highest version per container). Unknown times are 1970-01-01 00:00:00.
CREATE TABLE IF NOT EXISTS readiness (
    account_id       String,
    env              String,
    tracking_id      String,
    equipment_number String,
    scac             String,
    pod              String,
    discharged_at    DateTime,
    available_at     DateTime,
    picked_up_at     DateTime,
    returned_at      DateTime,
    holds            UInt16,
    holds_open       UInt16,
    facts_json       String,
    updated_at       DateTime,
    version          UInt64
) ENGINE = ReplacingMergeTree(version)
ORDER BY (account_id, tracking_id, equipment_number);

-- demurrage: the days and estimated cost under the account's free-time
-- rules, as the alerts stage last computed them for a container (while in
-- the terminal or on detention, and once more when it left or was
-- returned); version is the computation's time.
CREATE TABLE IF NOT EXISTS demurrage (
    account_id       String,
    tracking_id      String,
    equipment_number String,
    scac             String,
    pod              String,
    discharged_at    DateTime,
    last_free_day    Date,
    picked_up_at     DateTime,
    returned_at      DateTime,
    demurrage_days   UInt16,
    detention_days   UInt16,
    demurrage_cost   Float64,
    detention_cost   Float64,
    currency         String,
    computed_at      DateTime,
    version          UInt64
) ENGINE = ReplacingMergeTree(version)
ORDER BY (account_id, tracking_id, equipment_number);
