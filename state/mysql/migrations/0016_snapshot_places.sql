-- Where each etcd snapshot is besides the runner's copy (etcd_snapshot.path): the machine that
-- copy is on (runner_host) and the file etcdctl saved on the controller (controller_path, on
-- etcd_snapshot.hostname). `upgrade abort --restore-etcd` falls back to the controller's file,
-- when its sha256 is the one recorded, on a runner that does not hold the copy (another runner
-- of a shared database, a replaced machine). Both default to '' (a row written before: the
-- controller's file is where kupgrade always saved it), so that an INSERT naming only the older
-- columns still succeeds and the older columns mean what they meant. A kupgrade older than this
-- schema refuses to open the database all the same (it holds a migration it does not know).
ALTER TABLE etcd_snapshot ADD COLUMN runner_host VARCHAR(255) NOT NULL DEFAULT '';
ALTER TABLE etcd_snapshot ADD COLUMN controller_path VARCHAR(4096) NOT NULL DEFAULT '';
