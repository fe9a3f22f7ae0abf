-- The lease's generation is its fencing token (docs/states.md): every acquisition or takeover of a
-- cluster's lease takes the next number of kube_upgrade.lease_generation, and the hosts refuse a
-- command stamped with a generation older than one they have already run.
ALTER TABLE kube_upgrade ADD COLUMN lease_generation BIGINT NOT NULL DEFAULT 0;
ALTER TABLE kube_upgrade_lease ADD COLUMN generation BIGINT NOT NULL DEFAULT 0;
