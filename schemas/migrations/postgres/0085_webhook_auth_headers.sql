-- The headers a webhook's receiver authenticates with (POST
-- /webhook/configure's authHeaders: an API-key header, Authorization
-- Bearer or Basic), sent on every delivery attempt. Sealed like the
-- webhook secret (secretbox, context "<account>/webhook-auth-headers"):
-- a JSON list of {name, value}. NULL: none, as every webhook before.
ALTER TABLE webhooks ADD COLUMN auth_headers_enc bytea;
