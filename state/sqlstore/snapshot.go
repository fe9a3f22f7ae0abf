package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/kupgrade/kupgrade/state"
)

const snapshotCols = "id, cluster, upgrade_uuid, hop, hostname, path, sha256, revision, hash, size, external, created_at, runner_host, controller_path"

// AddSnapshot records snap and its event in one transaction, with compare-and-set on the
// upgrade: still snap.UpgradeUUID, at snap.Hop, in the first controller's control-plane step.
// Anything else is ErrConflict and writes nothing (the step was failed or taken over meanwhile).
func (s *Store) AddSnapshot(ctx context.Context, snap state.EtcdSnapshot, actor state.Actor) (state.EtcdSnapshot, error) {
	if err := snap.Check(); err != nil {
		return snap, err
	}
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		u, err := s.readUpgrade(ctx, tx, snap.Cluster, true)
		if err != nil {
			return err
		}
		if u.UUID != snap.UpgradeUUID || u.Hop != snap.Hop || u.State != state.UpgradingFirstMaster {
			return fmt.Errorf("%w: the upgrade of %q is %s at hop %d in %s, not %s at hop %d in %s: the snapshot is not recorded",
				state.ErrConflict, snap.Cluster, u.UUID, u.Hop, u.State, snap.UpgradeUUID, snap.Hop, state.UpgradingFirstMaster)
		}
		if snap.CreatedAt, err = s.txNow(ctx, tx); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, "INSERT INTO etcd_snapshot ("+snapshotCols[4:]+") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
			snap.Cluster, snap.UpgradeUUID, snap.Hop, snap.Hostname, snap.Path, snap.SHA256, snap.Revision, snap.Hash, snap.Size, snap.External, fmtTime(snap.CreatedAt),
			snap.RunnerHost, snap.ControllerPath)
		if err != nil {
			return fmt.Errorf("insert the snapshot: %w", err)
		}
		if snap.ID, err = res.LastInsertId(); err != nil {
			return fmt.Errorf("insert the snapshot: %w", err)
		}
		evidence, _ := json.Marshal(map[string]any{"etcd_snapshot": snap})
		return insertEvent(ctx, tx, state.Event{Cluster: snap.Cluster, UpgradeUUID: u.UUID, Hostname: snap.Hostname, Actor: actor,
			FromState: u.State, ToState: u.State, Reason: "etcd snapshot saved: " + snap.String(), Evidence: evidence, CreatedAt: snap.CreatedAt})
	})
	if err != nil {
		return snap, fmt.Errorf("record the etcd snapshot of %q: %w", snap.Cluster, err)
	}
	return snap, nil
}

// Snapshots returns the etcd snapshots recorded for cluster, newest first.
func (s *Store) Snapshots(ctx context.Context, cluster string) ([]state.EtcdSnapshot, error) {
	return again(ctx, s, func() ([]state.EtcdSnapshot, error) { return s.snapshots(ctx, cluster) })
}

func (s *Store) snapshots(ctx context.Context, cluster string) ([]state.EtcdSnapshot, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT "+snapshotCols+" FROM etcd_snapshot WHERE cluster = ? ORDER BY id DESC", cluster)
	if err != nil {
		return nil, fmt.Errorf("read etcd snapshots: %w", err)
	}
	defer rows.Close()
	var out []state.EtcdSnapshot
	for rows.Next() {
		var sn state.EtcdSnapshot
		var created nullTime
		if err := rows.Scan(&sn.ID, &sn.Cluster, &sn.UpgradeUUID, &sn.Hop, &sn.Hostname, &sn.Path, &sn.SHA256,
			&sn.Revision, &sn.Hash, &sn.Size, &sn.External, &created, &sn.RunnerHost, &sn.ControllerPath); err != nil {
			return nil, fmt.Errorf("read etcd snapshots: %w", err)
		}
		sn.CreatedAt = created.Time
		out = append(out, sn)
	}
	return out, rows.Err()
}
