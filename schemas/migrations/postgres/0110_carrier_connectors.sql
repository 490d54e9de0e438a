-- Carrier connectors (POST /carrier/connectors): DCSA Track & Trace 2.2 or
-- 3.0 producers an account registered itself, by base URL and auth scheme.
-- code is the account's name for the carrier: its subscriptions' scacCode
-- and their trackings' scac. The one secret of the scheme (API key, OAuth2
-- client secret, Basic password) is sealed with secretbox under context
-- '<account_id>/carrier-connector/<code>'; NULL for auth NONE.
CREATE TABLE carrier_connectors (
    account_id       uuid NOT NULL REFERENCES accounts (id),
    code             text NOT NULL,
    base_url         text NOT NULL,
    format           text NOT NULL,
    auth_scheme      text NOT NULL,
    auth_header_name text NOT NULL DEFAULT '',
    auth_token_url   text NOT NULL DEFAULT '',
    auth_client_id   text NOT NULL DEFAULT '',
    auth_scope       text NOT NULL DEFAULT '',
    auth_username    text NOT NULL DEFAULT '',
    event_types      text[] NOT NULL DEFAULT '{}',
    secret_enc       bytea,
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (account_id, code)
);

-- A connector's poll of a tracking asks only for the events updated since
-- poll_since (eventUpdatedDateTimeMin): the start of its last answered
-- poll, less a margin. NULL asks for every event: never polled, or a new
-- subscription is owed the shipment's history.
ALTER TABLE trackings ADD COLUMN poll_since timestamptz;
