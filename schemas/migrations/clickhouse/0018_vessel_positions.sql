-- Vessel position reports (from the vessel positions topic), AIS-style:
-- one row per vessel and report. A sandbox ship is an IMO number on one
-- voyage (voyage is '' for live reports: AIS has no voyage). A report
-- written twice (a replayed record) folds on merge (ReplacingMergeTree on
-- the key); exact counts use FINAL or GROUP BY. Read by IMO number and
-- time: the journey read side takes a vessel's latest report and its
-- track since departure from here. docs/analytics.md has example queries.
CREATE TABLE IF NOT EXISTS vessel_positions (
    env         String,
    imo         String,
    voyage      String,
    at          DateTime,
    lat         Float64,
    lon         Float64,
    speed_knots Float32,
    course      Float32,
    nav_status  UInt8,
    source      String,
    day         Date
) ENGINE = ReplacingMergeTree()
PARTITION BY toYYYYMM(day)
ORDER BY (env, imo, voyage, at);
