-- Each event of an upgrade with hops records the hop it belongs to, as people read it
-- ("hop 2 of 3 (v1.31.14)"); '' for a one-hop upgrade and for events written before.
ALTER TABLE kube_upgrade_event ADD COLUMN hop TEXT NOT NULL DEFAULT '';
