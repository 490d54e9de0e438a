-- One webhook per account. The secret is issued at configure time and sealed
-- with secretbox under context '<account_id>/webhook-secret'.
CREATE TABLE webhooks (
    account_id    uuid PRIMARY KEY REFERENCES accounts (id),
    target_url    text NOT NULL,
    activated     boolean NOT NULL DEFAULT false,
    secret_enc    bytea NOT NULL,
    configured_at timestamptz NOT NULL DEFAULT now(),
    activated_at  timestamptz,
    updated_at    timestamptz NOT NULL DEFAULT now()
);
