-- The hand-back count of a fleet's cluster (`kupgrade fleet run`): how many runs of it began and
-- did not end in done or failed (handed back because the database failed under them, or never
-- finished: their runner died or could not record the outcome). It lives in the row, so that
-- every runner, a restarted one too, counts toward one limit; done and failed reset it.
ALTER TABLE fleet_cluster ADD COLUMN hand_backs INTEGER NOT NULL DEFAULT 0;
