-- A carrier key may have a shared secret for DCSA Notification-Signature on
-- POST /events, sealed with secretbox under context '<key id>/signing-secret'.
ALTER TABLE api_keys ADD COLUMN signing_secret_enc bytea;
