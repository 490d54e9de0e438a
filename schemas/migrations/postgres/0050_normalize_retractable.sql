-- Where the normaliser sent each event pushed in DCSA Track & Trace 3.0
-- (package normalize/stage). A 3.0 retraction names only the eventID of the
-- event it withdraws, so a pushed one is routed to the trackings that got
-- that event: those rows. Polled events need none (the tracking polled is
-- the route). Written before the Kafka transaction that emits the events
-- commits; a row whose transaction aborted names a tracking that never got
-- the event, which a retraction then skips (its dedupe state is empty).
-- event_id is contrack's id (a UUID v5 over the carrier's SCAC and its
-- eventID), so (env, scac, event_id) is one carrier's event in one
-- environment.
CREATE TABLE normalize_retractable (
    env         text NOT NULL,
    scac        text NOT NULL,
    event_id    text NOT NULL,
    tracking_id text NOT NULL,
    account_id  text NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (env, scac, event_id, tracking_id)
);
