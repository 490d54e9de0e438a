-- Usage plans are data: an operator creates and changes them with
-- `contrack admin plan` and moves accounts with `contrack admin set-plan`.
-- accounts.plan names a row here (NULL: no plan, limited as the built-in
-- "none" fallback). Names are never renamed; id is what GET /account shows.
CREATE TABLE usage_plans (
    name            text PRIMARY KEY CHECK (name ~ '^[a-z0-9]([a-z0-9-]{0,30}[a-z0-9])?$' AND name <> 'none'),
    id              text NOT NULL UNIQUE,
    display_name    text NOT NULL CHECK (display_name <> ''),
    rate_per_second double precision NOT NULL CHECK (rate_per_second > 0 AND rate_per_second <= 1000000),
    burst           integer NOT NULL CHECK (burst >= 1 AND burst <= 10000000),
    daily_quota     bigint CHECK (daily_quota IS NULL OR daily_quota > 0),
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now()
);

-- Today's four plans, unchanged, and the carrier plan for streaming pushes:
-- 2,000/s sustained per key (4x a carrier pushing 500 events/s one per
-- request) and a burst of 10,000 (5 s at that rate: a backlog replayed after
-- the carrier's own outage), no daily quota (a push must never be refused
-- for volume).
INSERT INTO usage_plans (name, id, display_name, rate_per_second, burst) VALUES
    ('trial', 'plan-trial', 'Trial', 2, 5),
    ('sandbox', 'plan-sandbox', 'Sandbox', 100, 500),
    ('standard', 'plan-standard', 'Standard', 200, 1000),
    ('enterprise', 'plan-enterprise', 'Enterprise', 2000, 10000),
    ('carrier', 'plan-carrier', 'Carrier streaming', 2000, 10000);

-- Existing accounts keep their plans. A name the code never knew was
-- limited as "no plan" and shown as usagePlan null: it becomes exactly that.
UPDATE accounts SET plan = NULL WHERE plan IS NOT NULL AND plan NOT IN (SELECT name FROM usage_plans);
ALTER TABLE accounts ADD CONSTRAINT accounts_plan_fkey FOREIGN KEY (plan) REFERENCES usage_plans (name);

-- Requests counted against a plan's daily quota, per account and UTC day.
-- API processes add their in-memory counts here every second or so.
CREATE TABLE usage_daily (
    account_id uuid NOT NULL REFERENCES accounts (id),
    day        date NOT NULL,
    requests   bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (account_id, day)
);
