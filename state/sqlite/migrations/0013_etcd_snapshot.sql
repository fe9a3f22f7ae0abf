-- The etcd snapshots upgrades took before their control plane moved (`kupgrade upgrade abort
-- --restore-etcd` restores from them): one row per snapshot, kept after its file is pruned as
-- its history. A kupgrade older than this schema refuses the database (it holds a migration it
-- does not know) instead of upgrading without a snapshot.
CREATE TABLE IF NOT EXISTS etcd_snapshot (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    cluster      TEXT NOT NULL,
    upgrade_uuid TEXT NOT NULL,
    hop          INTEGER NOT NULL,
    hostname     TEXT NOT NULL,
    path         TEXT NOT NULL,
    sha256       TEXT NOT NULL,
    revision     INTEGER NOT NULL,
    hash         INTEGER NOT NULL,
    size         INTEGER NOT NULL,
    external     INTEGER NOT NULL,
    created_at   TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS etcd_snapshot_upgrade ON etcd_snapshot (cluster, upgrade_uuid, hop);
