-- kupgrade_lock holds the single-auditor lock of `kupgrade watch` as a row with a lease on the
-- database's clock: unlike GET_LOCK, which each node of a Galera cluster grants on its own, a
-- row is replicated and certified, so two watchers on two nodes never both audit.
CREATE TABLE IF NOT EXISTS kupgrade_lock (
    name        VARCHAR(64) NOT NULL PRIMARY KEY,
    holder      VARCHAR(255) NOT NULL,
    generation  BIGINT NOT NULL,
    acquired_at DATETIME(6) NOT NULL,
    expires_at  DATETIME(6) NOT NULL
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
