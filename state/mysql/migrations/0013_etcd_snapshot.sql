-- The etcd snapshots upgrades took before their control plane moved (`kupgrade upgrade abort
-- --restore-etcd` restores from them): one row per snapshot, kept after its file is pruned as
-- its history. A kupgrade older than this schema refuses the database (it holds a migration it
-- does not know) instead of upgrading without a snapshot.
CREATE TABLE IF NOT EXISTS etcd_snapshot (
    id           BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
    cluster      VARCHAR(255) NOT NULL,
    upgrade_uuid VARCHAR(64) NOT NULL,
    hop          INT NOT NULL,
    hostname     VARCHAR(255) NOT NULL,
    path         TEXT NOT NULL,
    sha256       CHAR(64) NOT NULL,
    revision     BIGINT NOT NULL,
    hash         BIGINT NOT NULL,
    size         BIGINT NOT NULL,
    external     TINYINT NOT NULL,
    created_at   DATETIME(6) NOT NULL,
    KEY etcd_snapshot_upgrade (cluster, upgrade_uuid, hop)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
