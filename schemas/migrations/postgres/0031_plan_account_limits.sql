-- Two per-account limits of a usage plan (issue 30), so no tenant exhausts
-- what others share: the long-polls of GET /subscriptions/events it may
-- hold at once (per API process), and the subscriptions it may have open.
ALTER TABLE usage_plans
    ADD COLUMN long_polls integer NOT NULL DEFAULT 20 CHECK (long_polls >= 1 AND long_polls <= 10000),
    ADD COLUMN open_subscriptions bigint NOT NULL DEFAULT 100000
        CHECK (open_subscriptions >= 1 AND open_subscriptions <= 100000000);

UPDATE usage_plans SET long_polls = 2, open_subscriptions = 100 WHERE name = 'trial';
UPDATE usage_plans SET long_polls = 20, open_subscriptions = 10000 WHERE name = 'sandbox';
UPDATE usage_plans SET long_polls = 20, open_subscriptions = 100000 WHERE name = 'standard';
UPDATE usage_plans SET long_polls = 100, open_subscriptions = 2000000 WHERE name = 'enterprise';
UPDATE usage_plans SET long_polls = 5, open_subscriptions = 1000 WHERE name = 'carrier';

-- Each account's open subscriptions, kept in the transaction that opens or
-- closes one (subscribing checks it against the plan under the row's lock).
ALTER TABLE accounts ADD COLUMN open_subscriptions bigint NOT NULL DEFAULT 0 CHECK (open_subscriptions >= 0);
UPDATE accounts a SET open_subscriptions = (
    SELECT count(*) FROM subscriptions s WHERE s.account_id = a.id AND s.status = 'OPEN');
