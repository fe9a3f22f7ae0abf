-- An upgrade across several minor versions walks hops: hops lists their versions,
-- in order, to_version last ('' for a one-hop upgrade), hop is the index of the running one. A
-- kupgrade older than this schema refuses the database (it holds a migration it does not know)
-- instead of completing an upgrade at its first hop.
ALTER TABLE kube_upgrade ADD COLUMN hops TEXT NOT NULL DEFAULT '';
ALTER TABLE kube_upgrade ADD COLUMN hop INTEGER NOT NULL DEFAULT 0;
