-- Delivery instances and lease owners: a lease belongs to the instance that
-- took it, and an instance proves it is alive by a heartbeat. When an
-- instance dies (SIGKILL, a lost node) its leases are claimable as soon as
-- its heartbeat is stale (seconds), not when the lease expires (a minute):
-- the deliveries it held, and the subscriptions' later ones behind them,
-- resume within seconds.
CREATE TABLE delivery_instances (
    id           uuid PRIMARY KEY,
    started_at   timestamptz NOT NULL,
    heartbeat_at timestamptz NOT NULL
);
-- NULL for leases taken before this migration: those wait for lease_until.
ALTER TABLE deliveries ADD COLUMN lease_owner uuid;
