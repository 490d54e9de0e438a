-- Carriers' deviations from their standard that the normaliser's parsers
-- repaired or left out (docs/normalize.md, "Deviations handled"), counted
-- per carrier, environment, kind of repair and UTC day, so a data-quality
-- view can show them over a window beside the events read and the elements
-- dead-lettered. The
-- latest repair's path and value are kept: a value left out of an event
-- (a seal without a type, a vessel without an IMO number, an unknown
-- status code) is never dropped in silence. Counted before the
-- normaliser's Kafka transaction commits: an aborted transaction may count
-- its repairs twice.
CREATE TABLE normalize_repairs (
    scac       text NOT NULL,
    env        text NOT NULL,
    kind       text NOT NULL,
    day        date NOT NULL,
    repairs    bigint NOT NULL,
    last_path  text NOT NULL,
    last_value text NOT NULL,
    last_at    timestamptz NOT NULL,
    PRIMARY KEY (scac, env, kind, day)
);
