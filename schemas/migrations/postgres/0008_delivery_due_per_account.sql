-- Delivery indexes for throughput; every index of deliveries is written on
-- each insert and on each status change.
--
-- Claiming takes the oldest due deliveries of each activated webhook (an
-- index range per account), so a claim costs what the number of webhooks
-- does, not the backlog, and one endpoint's backlog never hides another's.
-- It replaces the global due index.
CREATE INDEX deliveries_due_per_account ON deliveries (account_id, next_attempt_at)
    WHERE status IN ('PENDING', 'FAILED');
DROP INDEX deliveries_due;
-- Pruning only needs ranges of creation time, which follows insertion
-- order: a BRIN index costs next to nothing to keep up.
DROP INDEX deliveries_created;
CREATE INDEX deliveries_created ON deliveries USING brin (created_at);
-- Room on each page for the lease written on every claim, so that update
-- stays on the page and touches no index (a HOT update).
ALTER TABLE deliveries SET (fillfactor = 80);
