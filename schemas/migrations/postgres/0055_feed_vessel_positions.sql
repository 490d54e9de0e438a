-- VESSEL_POSITION items in the account event feed (docs/feed.md), opt-in
-- per subscription (PUT /subscription/{subscription_id}/vessel-positions).
--
-- One row per opted-in subscription: its setting, the vessel its shipment
-- is at sea on (written by the feed stage from the journey's transport
-- events; NULL while it is not at sea) and the time of the last position
-- it got, which spaces its items at least interval_minutes apart.
CREATE TABLE feed_vessel_positions (
    subscription_id  uuid PRIMARY KEY REFERENCES subscriptions (id),
    account_id       uuid NOT NULL REFERENCES accounts (id),
    interval_minutes int NOT NULL CHECK (interval_minutes BETWEEN 5 AND 1440),
    enabled_at       timestamptz NOT NULL DEFAULT now(),
    -- The vessel as the positions topic keys it: environment, IMO number
    -- and, for a sandbox ship, the voyage ('' for live vessels: AIS has no
    -- voyage). All NULL while the shipment is not at sea.
    vessel_env       text,
    vessel_imo       text,
    vessel_voyage    text,
    vessel_name      text,
    -- The carrier's voyage number of the passage, and the shipment's containers.
    voyage_number    text,
    containers       text[],
    -- When the vessel left with the shipment: earlier reports are not its passage.
    departed_at      timestamptz,
    -- The time of the last position written to the feed for this subscription.
    last_position_at timestamptz
);
CREATE INDEX feed_vessel_positions_vessel ON feed_vessel_positions (vessel_env, vessel_imo, vessel_voyage)
    WHERE vessel_imo IS NOT NULL;
CREATE INDEX feed_vessel_positions_account ON feed_vessel_positions (account_id);

-- What a feed row is: an event of the events topic (EVENT, as every row
-- before) or a vessel position (VESSEL_POSITION; event holds the item's
-- vesselPosition object, src_* the position record's topic position).
ALTER TABLE feed_events ADD COLUMN kind text NOT NULL DEFAULT 'EVENT';
