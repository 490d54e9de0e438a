-- The normaliser's routing of pushed events (issue 29): which open
-- trackings follow an (environment, carrier, identifier). It was a map of
-- every open tracking in each normaliser's memory; it is now this table,
-- written by each normaliser's follower of the subscriptions topic, read by
-- key with a bounded cache in front. Every normaliser follows the whole
-- topic, so several write the same rows: a row changes only to a later
-- record of its tracking (src_offset), so one still catching up never
-- writes an older state over a newer one. A closed tracking keeps its row
-- (open = false) so its position is known.
CREATE TABLE normalize_routes (
    route_key     text NOT NULL, -- env|SCAC|kind|value
    tracking_id   text NOT NULL,
    account_id    text NOT NULL,
    env           text NOT NULL,
    scac          text NOT NULL,
    open          boolean NOT NULL,
    src_partition integer NOT NULL,
    src_offset    bigint NOT NULL,
    PRIMARY KEY (route_key, tracking_id)
);
