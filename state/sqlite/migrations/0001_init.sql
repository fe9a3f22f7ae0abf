-- The tables of docs/states.md. Times are TEXT "YYYY-MM-DD HH:MM:SS.ffffff" in UTC, so that
-- datetime('now', '-2 hours') in a hand edit compares and parses like what kupgrade writes.
CREATE TABLE IF NOT EXISTS host (
    id                    INTEGER PRIMARY KEY AUTOINCREMENT,
    cluster               TEXT NOT NULL,
    hostname              TEXT NOT NULL,
    personality           TEXT NOT NULL,
    control_plane_version TEXT NULL,
    kubelet_version       TEXT NULL,
    versions_read_at      TEXT NULL,
    UNIQUE (cluster, hostname)
);

CREATE TABLE IF NOT EXISTS kube_upgrade (
    id                INTEGER PRIMARY KEY AUTOINCREMENT,
    uuid              TEXT NOT NULL UNIQUE,
    cluster           TEXT NOT NULL UNIQUE,
    from_version      TEXT NOT NULL,
    to_version        TEXT NOT NULL,
    state             TEXT NOT NULL,
    state_entered_at  TEXT NOT NULL,
    recovery_attempts INTEGER NOT NULL DEFAULT 0,
    created_at        TEXT NOT NULL,
    updated_at        TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS kube_upgrade_state ON kube_upgrade (state);

CREATE TABLE IF NOT EXISTS kube_host_upgrade (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    uuid           TEXT NOT NULL UNIQUE,
    host_id        INTEGER NOT NULL UNIQUE REFERENCES host (id) ON DELETE CASCADE,
    target_version TEXT NULL,
    status         TEXT NULL,
    created_at     TEXT NOT NULL,
    updated_at     TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS kube_host_upgrade_status ON kube_host_upgrade (status);

CREATE TABLE IF NOT EXISTS kube_upgrade_lease (
    cluster      TEXT PRIMARY KEY,
    owner        TEXT NOT NULL,
    operation    TEXT NOT NULL,
    acquired_at  TEXT NOT NULL,
    heartbeat_at TEXT NOT NULL,
    expires_at   TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS kube_upgrade_event (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    cluster          TEXT NOT NULL,
    upgrade_uuid     TEXT NOT NULL,
    hostname         TEXT NULL,
    actor            TEXT NOT NULL,
    from_state       TEXT NULL,
    to_state         TEXT NULL,
    from_host_status TEXT NULL,
    to_host_status   TEXT NULL,
    reason           TEXT NOT NULL,
    evidence         TEXT NULL,
    created_at       TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS kube_upgrade_event_cluster ON kube_upgrade_event (cluster, id);
