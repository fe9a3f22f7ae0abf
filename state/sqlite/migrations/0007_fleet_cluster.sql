-- A fleet's clusters and their claims (`kupgrade fleet run`). One row per cluster: the fleet it
-- belongs to, its place, its goal (the version, and the state of --until or '' for the end),
-- its outcome, and the claim of the runner working on it (owner,
-- generation, expiry on the database's clock; expires_at in the past means free). Numbered 0007
-- to stay clear of migrations other branches add.
CREATE TABLE IF NOT EXISTS fleet_cluster (
    cluster     TEXT PRIMARY KEY,
    fleet       TEXT NOT NULL,
    position    INTEGER NOT NULL,
    to_version  TEXT NOT NULL,
    goal        TEXT NOT NULL DEFAULT '',
    outcome     TEXT NOT NULL,
    owner       TEXT NOT NULL DEFAULT '',
    generation  INTEGER NOT NULL DEFAULT 0,
    claimed_at  TEXT NULL,
    expires_at  TEXT NOT NULL,
    outcome_at  TEXT NULL,
    last_error  TEXT NULL,
    taken_from  TEXT NULL
);
-- Claims walk the pending clusters in position order: the walk passes only the live claims.
CREATE INDEX IF NOT EXISTS fleet_cluster_todo ON fleet_cluster (fleet, outcome, position);
CREATE INDEX IF NOT EXISTS fleet_cluster_position ON fleet_cluster (fleet, position, outcome);
