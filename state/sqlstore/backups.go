package sqlstore

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/kupgrade/kupgrade/state"
)

// AddBackups appends to hostname's backups record the folders of dirs and kubeletDirs (oldest
// first) that kubeadm made during this upgrade, in one transaction with compare-and-set on the
// record read. A host without a record (no control-plane step of
// this upgrade ran there) is left alone: its folders are not this upgrade's.
func (s *Store) AddBackups(ctx context.Context, cluster, hostname string, dirs, kubeletDirs []string) (state.Backups, error) {
	var out state.Backups
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		var id int64
		var text sql.NullString
		err := tx.QueryRowContext(ctx, `SELECT hu.id, hu.backups FROM kube_host_upgrade hu JOIN host h ON h.id = hu.host_id
			WHERE h.cluster = ? AND h.hostname = ?`+s.d.ForUpdate, cluster, hostname).Scan(&id, &text)
		if isNoRows(err) {
			return fmt.Errorf("%w: host %s is not part of the upgrade of cluster %q", state.ErrNotFound, hostname, cluster)
		}
		if err != nil {
			return fmt.Errorf("read backups of %s: %w", hostname, err)
		}
		old, err := state.DecodeBackups(text.String)
		if err != nil {
			return &state.RowError{Cluster: cluster, Host: hostname, Table: "kube_host_upgrade", Column: "backups", Err: err}
		}
		added, changed := old.Add(dirs, kubeletDirs)
		out = old
		if !old.Recorded() || !changed {
			return nil
		}
		out = added
		return s.writeBackups(ctx, tx, cluster, hostname, id, text.String, added)
	})
	if err != nil {
		return state.Backups{}, fmt.Errorf("record kubeadm's backups on %s: %w", hostname, err)
	}
	return out, nil
}

// writeBackups replaces the record oldText of row id with b (compare-and-set).
func (s *Store) writeBackups(ctx context.Context, tx *sql.Tx, cluster, hostname string, id int64, oldText string, b state.Backups) error {
	text, err := state.EncodeBackups(b)
	if err != nil {
		return err
	}
	res, err := tx.ExecContext(ctx, "UPDATE kube_host_upgrade SET backups = ? WHERE id = ? AND COALESCE(backups, '') = ?", text, id, oldText)
	if err := one(res, err, cluster, "backups of host "+hostname); err != nil {
		return err
	}
	return nil
}
