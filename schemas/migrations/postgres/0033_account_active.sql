-- Disabled accounts and accounts without keys (issue 30). An operator
-- disables an account (`contrack admin disable-account`): its keys are
-- refused. An account is active while it is not disabled and has a key
-- that is not revoked; kept in the transactions that revoke or create keys
-- and disable or enable accounts. The stages read it: an inactive account's
-- trackings are not polled, and its events reach neither webhooks nor the
-- feed, until it is active again.
ALTER TABLE accounts
    ADD COLUMN disabled_at timestamptz,
    ADD COLUMN active boolean NOT NULL DEFAULT true;
UPDATE accounts a SET active = EXISTS (
    SELECT 1 FROM api_keys k WHERE k.account_id = a.id AND k.revoked_at IS NULL);
