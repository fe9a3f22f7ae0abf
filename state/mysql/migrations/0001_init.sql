-- The tables of docs/states.md for MySQL 8 and MariaDB 10.11. Times are DATETIME(6) holding UTC
-- (kupgrade writes values computed in Go; an operator writes UTC_TIMESTAMP() - INTERVAL ...):
-- DATETIME, unlike TIMESTAMP, is never converted by the session time_zone. Indexes are declared
-- inline so that every statement is safe to run again (MySQL commits DDL one statement at a time).
-- utf8mb4_bin: names compare exactly, as in SQLite.
CREATE TABLE IF NOT EXISTS host (
    id                    BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
    cluster               VARCHAR(255) NOT NULL,
    hostname              VARCHAR(255) NOT NULL,
    personality           VARCHAR(32) NOT NULL,
    control_plane_version VARCHAR(64) NULL,
    kubelet_version       VARCHAR(64) NULL,
    versions_read_at      DATETIME(6) NULL,
    UNIQUE KEY host_cluster_hostname (cluster, hostname)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

CREATE TABLE IF NOT EXISTS kube_upgrade (
    id                BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
    uuid              CHAR(36) NOT NULL,
    cluster           VARCHAR(255) NOT NULL,
    from_version      VARCHAR(64) NOT NULL,
    to_version        VARCHAR(64) NOT NULL,
    state             VARCHAR(64) NOT NULL,
    state_entered_at  DATETIME(6) NOT NULL,
    recovery_attempts INT NOT NULL DEFAULT 0,
    created_at        DATETIME(6) NOT NULL,
    updated_at        DATETIME(6) NOT NULL,
    UNIQUE KEY kube_upgrade_uuid (uuid),
    UNIQUE KEY kube_upgrade_cluster (cluster),
    KEY kube_upgrade_state (state)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

CREATE TABLE IF NOT EXISTS kube_host_upgrade (
    id             BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
    uuid           CHAR(36) NOT NULL,
    host_id        BIGINT NOT NULL,
    target_version VARCHAR(64) NULL,
    status         VARCHAR(64) NULL,
    created_at     DATETIME(6) NOT NULL,
    updated_at     DATETIME(6) NOT NULL,
    UNIQUE KEY kube_host_upgrade_uuid (uuid),
    UNIQUE KEY kube_host_upgrade_host (host_id),
    KEY kube_host_upgrade_status (status),
    CONSTRAINT kube_host_upgrade_host_fk FOREIGN KEY (host_id) REFERENCES host (id) ON DELETE CASCADE
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

CREATE TABLE IF NOT EXISTS kube_upgrade_lease (
    cluster      VARCHAR(255) NOT NULL PRIMARY KEY,
    owner        VARCHAR(255) NOT NULL,
    operation    VARCHAR(255) NOT NULL,
    acquired_at  DATETIME(6) NOT NULL,
    heartbeat_at DATETIME(6) NOT NULL,
    expires_at   DATETIME(6) NOT NULL
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

CREATE TABLE IF NOT EXISTS kube_upgrade_event (
    id               BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
    cluster          VARCHAR(255) NOT NULL,
    upgrade_uuid     CHAR(36) NOT NULL,
    hostname         VARCHAR(255) NULL,
    actor            VARCHAR(32) NOT NULL,
    from_state       VARCHAR(64) NULL,
    to_state         VARCHAR(64) NULL,
    from_host_status VARCHAR(64) NULL,
    to_host_status   VARCHAR(64) NULL,
    reason           TEXT NOT NULL,
    evidence         LONGTEXT NULL,
    created_at       DATETIME(6) NOT NULL,
    KEY kube_upgrade_event_cluster (cluster, id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
