-- Timestamped carrier pushes (issue 30): a carrier key may require the
-- Standard Webhooks headers (webhook-id, webhook-timestamp,
-- webhook-signature) and refuse the body-only Notification-Signature,
-- which a captured push could replay for ever.
ALTER TABLE api_keys ADD COLUMN signing_timestamped_only boolean NOT NULL DEFAULT false;

-- The webhook-ids of pushes accepted within the replay window (the
-- timestamp tolerance, both sides): a second push with the same id is
-- acknowledged without being processed again. Each push removes its key's
-- ids older than the window.
CREATE TABLE carrier_push_ids (
    key_id      uuid NOT NULL REFERENCES api_keys (id),
    webhook_id  text NOT NULL,
    received_at timestamptz NOT NULL,
    PRIMARY KEY (key_id, webhook_id)
);
CREATE INDEX carrier_push_ids_age ON carrier_push_ids (key_id, received_at);
