-- What the first control-plane step of an upgrade found on each controller (its manifests' tags,
-- config.yaml's checksum, kubeadm's backup folders already there) and the backup folders kubeadm
-- made during the upgrade, as JSON (state.Backups): `upgrade abort` restores from these alone.
-- NULL: no control-plane step of this upgrade ran on the host. A kupgrade older than this schema
-- refuses the database (it holds a migration that kupgrade does not know).
ALTER TABLE kube_host_upgrade ADD COLUMN backups TEXT NULL;
