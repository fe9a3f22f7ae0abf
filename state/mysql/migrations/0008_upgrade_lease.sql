-- The lease moves to upgrade_lease, and kube_upgrade_lease stays as a view that cannot be written
-- (ALGORITHM = TEMPTABLE makes a view neither updatable nor insertable): a kupgrade older than
-- this schema (one without the refusal of unknown migrations) opens the database without
-- complaint, and would run kubeadm unfenced beside a newer one. It fails instead as soon as it
-- takes, renews or releases a lease ("The target table kube_upgrade_lease of the INSERT is not
-- insertable-into"). Reads through the old name still answer. An operator's hand edit of a lease
-- writes upgrade_lease. Safe to run again: the rename happens only while kube_upgrade_lease is
-- still a table (MySQL has no RENAME TABLE IF EXISTS).
SET @kupgrade_0008 = (SELECT IF(COUNT(*) > 0, 'RENAME TABLE kube_upgrade_lease TO upgrade_lease', 'DO 0')
    FROM information_schema.tables
    WHERE table_schema = DATABASE() AND table_name = 'kube_upgrade_lease' AND table_type = 'BASE TABLE');
PREPARE kupgrade_0008 FROM @kupgrade_0008;
EXECUTE kupgrade_0008;
DEALLOCATE PREPARE kupgrade_0008;
CREATE OR REPLACE ALGORITHM = TEMPTABLE SQL SECURITY INVOKER VIEW kube_upgrade_lease AS
    SELECT cluster, owner, operation, acquired_at, heartbeat_at, expires_at, generation FROM upgrade_lease;
