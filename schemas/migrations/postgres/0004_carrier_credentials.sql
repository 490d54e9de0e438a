-- Carrier credentials per account and carrier: the JSON object of the
-- carrier's credential fields, sealed with secretbox under context
-- '<account_id>/carrier-credentials/<scac>'.
CREATE TABLE carrier_credentials (
    account_id uuid NOT NULL REFERENCES accounts (id),
    scac       text NOT NULL,
    fields_enc bytea NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (account_id, scac)
);
