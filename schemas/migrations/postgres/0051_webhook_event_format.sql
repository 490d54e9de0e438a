-- What an account's webhook receives (POST /webhook/configure's
-- eventFormat): the interface's EVENT_DOMAIN 2.0.2 events (the default, and
-- every webhook configured before), or DCSA Track & Trace 3.0.0 events, the
-- body then a 3.0 POST /events request (package delivery, docs/api.md).
ALTER TABLE webhooks ADD COLUMN event_format text NOT NULL DEFAULT 'EVENT_DOMAIN_2.0.2'
    CHECK (event_format IN ('EVENT_DOMAIN_2.0.2', 'TNT_3.0.0'));
