-- The poll rate per (account, carrier) is part of the usage plan (issue 29):
-- an account polls each carrier with its own credentials, under its own
-- contract with that carrier, at most this many polls per second. Every
-- existing plan keeps the rate every account had before (10/s).
ALTER TABLE usage_plans ADD COLUMN carrier_rate double precision NOT NULL DEFAULT 10
    CHECK (carrier_rate > 0 AND carrier_rate <= 100000);
