-- The W3C traceparent of each queued event's fan-out span (NULL when the
-- trace was not sampled, or for rows queued before this migration). Kept
-- per queue row, not per delivery: a delivery batches several events, each
-- with its own trace, and a delivery opened later (the subscription's
-- previous one still open) batches rows queued by other processes. Whichever
-- process claims a delivery — after a restart, a takeover, a retry — reads
-- them with the body, so every attempt joins its events' traces.
ALTER TABLE delivery_queue ADD COLUMN traceparent text;
