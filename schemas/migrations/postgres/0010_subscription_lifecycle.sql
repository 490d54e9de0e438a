-- Subscriptions end (issue 10, item 6): at their expiry, when the journey
-- ended, or when no new event came for a while. The poller records the
-- facts on the tracking; the lifecycle loop (commandapi) closes the
-- subscriptions exactly as DELETE does.

-- Fingerprint of the events the last successful poll saw, and when it last
-- changed (set at the first successful poll): "no new event since".
ALTER TABLE trackings ADD COLUMN events_fingerprint text;
ALTER TABLE trackings ADD COLUMN events_changed_at timestamptz;
-- When a poll last saw every container returned empty after discharge.
ALTER TABLE trackings ADD COLUMN journey_ended_at timestamptz;

-- Why a subscription closed: DELETED, EXPIRED, JOURNEY_ENDED or IDLE.
ALTER TABLE subscriptions ADD COLUMN closed_reason text;

CREATE INDEX subscriptions_open_expiry ON subscriptions (expires_at) WHERE status = 'OPEN';
CREATE INDEX trackings_journey_ended ON trackings (journey_ended_at) WHERE journey_ended_at IS NOT NULL;
CREATE INDEX trackings_events_changed ON trackings (events_changed_at) WHERE open_subscriptions > 0;
