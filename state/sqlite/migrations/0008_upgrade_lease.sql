-- The lease moves to upgrade_lease, and kube_upgrade_lease stays as a view that refuses every
-- write: a kupgrade older than this schema (one without the refusal of unknown migrations) opens
-- the database without complaint, and would run kubeadm unfenced beside a newer one. It fails
-- instead as soon as it takes, renews or releases a lease, with the message below. Reads through
-- the old name still answer. An operator's hand edit of a lease writes upgrade_lease.
ALTER TABLE kube_upgrade_lease RENAME TO upgrade_lease;
CREATE VIEW IF NOT EXISTS kube_upgrade_lease AS
    SELECT cluster, owner, operation, acquired_at, heartbeat_at, expires_at, generation FROM upgrade_lease;
CREATE TRIGGER IF NOT EXISTS kube_upgrade_lease_insert INSTEAD OF INSERT ON kube_upgrade_lease BEGIN SELECT RAISE(ABORT, 'kube_upgrade_lease is read-only: this database was upgraded by a newer kupgrade (schema 0008 moved the lease to upgrade_lease); this kupgrade is too old to run on it, nothing was run: use the newer kupgrade (a hand edit writes upgrade_lease)'); END;
CREATE TRIGGER IF NOT EXISTS kube_upgrade_lease_update INSTEAD OF UPDATE ON kube_upgrade_lease BEGIN SELECT RAISE(ABORT, 'kube_upgrade_lease is read-only: this database was upgraded by a newer kupgrade (schema 0008 moved the lease to upgrade_lease); this kupgrade is too old to run on it: use the newer kupgrade (a hand edit writes upgrade_lease)'); END;
CREATE TRIGGER IF NOT EXISTS kube_upgrade_lease_delete INSTEAD OF DELETE ON kube_upgrade_lease BEGIN SELECT RAISE(ABORT, 'kube_upgrade_lease is read-only: this database was upgraded by a newer kupgrade (schema 0008 moved the lease to upgrade_lease); this kupgrade is too old to run on it: use the newer kupgrade (a hand edit writes upgrade_lease)'); END;
