-- Accounts are (client, environment) pairs; every other row carries account_id.
CREATE TABLE accounts (
    id           uuid PRIMARY KEY,
    client_slug  text NOT NULL,
    env          text NOT NULL CHECK (env IN ('live', 'sandbox')),
    display_name text NOT NULL,
    plan         text,
    created_at   timestamptz NOT NULL DEFAULT now(),
    UNIQUE (client_slug, env)
);

-- API keys are stored only as SHA-256 of the key; the key itself is shown once.
CREATE TABLE api_keys (
    id           uuid PRIMARY KEY,
    account_id   uuid NOT NULL REFERENCES accounts (id),
    key_hash     bytea NOT NULL UNIQUE,
    key_hint     text NOT NULL,
    name         text NOT NULL,
    role         text NOT NULL CHECK (role IN ('consumer', 'carrier')),
    carrier_scac text,
    created_at   timestamptz NOT NULL DEFAULT now(),
    revoked_at   timestamptz
);
CREATE INDEX api_keys_account ON api_keys (account_id);
