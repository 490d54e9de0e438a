-- The poll schedule lives in Postgres, an index on next-due time per
-- (account, carrier), instead of a walk of every tracking in the poller's
-- memory (issue 29). The poller claims due trackings by the index, first
-- the never-polled ones, then those polled early for an expected event,
-- then the rest in due order: when an account's trackings need more polls
-- than its plan's carrier rate allows, every interval stretches alike.

-- When the tracking is next due. A claim moves it forward by a lease (the
-- poll's time-out and a margin), so a poller that dies mid-poll only
-- delays that tracking; the poll's end sets the real next time.
ALTER TABLE trackings ADD COLUMN next_poll_at timestamptz NOT NULL DEFAULT now();
-- 0: never polled (first in line), 1: due early for an expected event
-- (an ETA, a planned departure), 2: regular re-poll.
ALTER TABLE trackings ADD COLUMN poll_class smallint NOT NULL DEFAULT 0 CHECK (poll_class IN (0, 1, 2));
-- When the carrier last answered a poll of it: the interval achieved.
ALTER TABLE trackings ADD COLUMN last_polled_at timestamptz;
-- Consecutive failed polls of this tracking (its own backoff).
ALTER TABLE trackings ADD COLUMN poll_failures integer NOT NULL DEFAULT 0;

-- Trackings polled before the schedule existed are re-polls, spread over
-- the live interval so the upgrade causes no poll storm.
UPDATE trackings SET poll_class = 2, next_poll_at = now() + random() * interval '15 minutes'
WHERE events_fingerprint IS NOT NULL OR connection_status NOT IN ('PENDING', 'NO_CREDENTIALS', 'PUSH_ONLY');

CREATE INDEX trackings_poll_due ON trackings (account_id, scac, poll_class, next_poll_at) WHERE open_subscriptions > 0;

-- The pollers alive now: each heartbeats its row and polls the accounts
-- whose hash falls to its place among them, so one account's rate at a
-- carrier is counted by one process.
CREATE TABLE poller_members (
    id      uuid PRIMARY KEY,
    seen_at timestamptz NOT NULL
);

-- What each (account, carrier) gets of its plan's rate, written by the
-- poller that polls it every few seconds; GET /account shows it.
CREATE TABLE poll_capacity (
    account_id             uuid NOT NULL REFERENCES accounts (id),
    scac                   text NOT NULL,
    trackings              integer NOT NULL,
    awaiting_first_poll    integer NOT NULL,
    configured_interval_ms bigint NOT NULL,
    interval_p50_ms        bigint,
    interval_p95_ms        bigint,
    polls_per_second       double precision NOT NULL,
    allowed_per_second     double precision NOT NULL,
    updated_at             timestamptz NOT NULL,
    PRIMARY KEY (account_id, scac)
);
