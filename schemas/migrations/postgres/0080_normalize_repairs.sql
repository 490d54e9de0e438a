-- Carriers' deviations from their standard that the normaliser's parsers
-- repaired or left out (docs/normalize.md, "Deviations handled"), counted
-- per account, carrier, environment, kind of repair and UTC day, so a
-- data-quality view (GET /carrier/metrics) can show them over a window;
-- kind 'events_read' counts the events read and 'refused' the elements
-- dead-lettered (last_value the latest reason). account_id is '' for
-- pushed payloads, which no account owns before they are routed. The
-- latest repair's path and value are kept: a value left out of an event
-- (a seal without a type, a vessel without an IMO number, an unknown
-- status code) is never dropped in silence. Counted before the
-- normaliser's Kafka transaction commits: an aborted transaction may count
-- its repairs twice.
CREATE TABLE normalize_repairs (
    account_id text NOT NULL,
    scac       text NOT NULL,
    env        text NOT NULL,
    kind       text NOT NULL,
    day        date NOT NULL,
    repairs    bigint NOT NULL,
    last_path  text NOT NULL,
    last_value text NOT NULL,
    last_at    timestamptz NOT NULL,
    PRIMARY KEY (account_id, scac, env, kind, day)
);
