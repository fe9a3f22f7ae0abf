-- A fleet's clusters and their claims (`kupgrade fleet run`). One row per cluster: the fleet it
-- belongs to, its place, its goal (the version, and the state of --until or '' for the end),
-- its outcome, and the claim of the runner working on it (owner,
-- generation, expiry on the database's clock; expires_at in the past means free). Numbered 0007
-- to stay clear of migrations other branches add.
CREATE TABLE IF NOT EXISTS fleet_cluster (
    cluster     VARCHAR(255) NOT NULL PRIMARY KEY,
    fleet       VARCHAR(255) NOT NULL,
    position    INT NOT NULL,
    to_version  VARCHAR(64) NOT NULL,
    goal        VARCHAR(64) NOT NULL DEFAULT '',
    outcome     VARCHAR(16) NOT NULL,
    owner       VARCHAR(255) NOT NULL DEFAULT '',
    generation  BIGINT NOT NULL DEFAULT 0,
    claimed_at  DATETIME(6) NULL,
    expires_at  DATETIME(6) NOT NULL,
    outcome_at  DATETIME(6) NULL,
    last_error  TEXT NULL,
    taken_from  VARCHAR(255) NULL,
    KEY fleet_cluster_todo (fleet, outcome, position),
    KEY fleet_cluster_position (fleet, position, outcome)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
