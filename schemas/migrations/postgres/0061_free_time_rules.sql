-- An account's free-time rules (PUT /account/free-time, issue 34): the
-- demurrage and detention free days (and rates) per port and carrier, "*"
-- for any, as one JSON array (schemas/readiness.Rule); the most specific
-- rule applies. Replaced whole by each PUT.
CREATE TABLE free_time_rules (
    account_id uuid PRIMARY KEY REFERENCES accounts (id),
    rules      jsonb NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now()
);

-- The alerts stage's record of the clock-driven alerts it published
-- (LFD_APPROACHING, DEMURRAGE_STARTED), so a sweep publishes each once.
CREATE TABLE alerts_published (
    account_id   uuid NOT NULL,
    alert_id     text NOT NULL,
    published_at timestamptz NOT NULL,
    PRIMARY KEY (account_id, alert_id)
);
CREATE INDEX alerts_published_at ON alerts_published USING brin (published_at);
