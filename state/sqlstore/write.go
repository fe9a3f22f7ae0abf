package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/kupgrade/kupgrade/state"
)

// CreateUpgrade creates the upgrade of nu.Cluster in upgrade-started, records its hosts and one
// kube_host_upgrade row each, and writes the first event. ErrRefused when one exists.
func (s *Store) CreateUpgrade(ctx context.Context, nu state.NewUpgrade) (state.Upgrade, error) {
	if nu.Cluster == "" {
		return state.Upgrade{}, fmt.Errorf("%w: create upgrade: empty cluster name", state.ErrBadInput)
	}
	for _, v := range []string{nu.FromVersion, nu.ToVersion} {
		if _, err := state.ParseVersion(v); err != nil {
			return state.Upgrade{}, fmt.Errorf("create upgrade: %w", err)
		}
	}
	var u state.Upgrade
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		var err error
		u, err = s.createTx(ctx, tx, nu)
		return err
	})
	if err != nil && s.d.Duplicate(err) {
		err = fmt.Errorf("%w: an upgrade of cluster %q was created at the same moment", state.ErrRefused, nu.Cluster)
	}
	if err != nil {
		return state.Upgrade{}, fmt.Errorf("create upgrade: %w", err)
	}
	return u, nil
}

func (s *Store) createTx(ctx context.Context, tx *sql.Tx, nu state.NewUpgrade) (state.Upgrade, error) {
	now, err := s.txNow(ctx, tx)
	if err != nil {
		return state.Upgrade{}, err
	}
	// A plain read: locking a row that is not there would take a gap lock that every other
	// cluster created at the same moment (MySQL) deadlocks on; the unique key on cluster refuses
	// a second upgrade created meanwhile (Duplicate, above).
	old, err := s.readUpgrade(ctx, tx, nu.Cluster, false)
	if err == nil || errors.Is(err, state.ErrBadRow) {
		dup := fmt.Errorf("%w: an upgrade of cluster %q to %s exists already (state %s)", state.ErrRefused, nu.Cluster, old.ToVersion, old.State)
		return old, state.WithNextSteps(dup, "; finish it, or abort and delete it (`%s`, `%s`)",
			state.Next("upgrade", "abort"), state.Next("upgrade", "delete"))
	}
	if !errors.Is(err, state.ErrNotFound) {
		return old, err
	}
	u := state.Upgrade{UUID: uuid.NewString(), Cluster: nu.Cluster, FromVersion: nu.FromVersion, ToVersion: nu.ToVersion,
		Hops: nu.Hops, State: state.UpgradeStarted, StateEnteredAt: now, CreatedAt: now, UpdatedAt: now}
	res, err := tx.ExecContext(ctx, `INSERT INTO kube_upgrade (uuid, cluster, from_version, to_version, hops, hop, state,
		state_entered_at, recovery_attempts, created_at, updated_at) VALUES (?, ?, ?, ?, ?, 0, ?, ?, 0, ?, ?)`,
		u.UUID, u.Cluster, u.FromVersion, u.ToVersion, strings.Join(u.Hops, " "), string(u.State), fmtTime(now), fmtTime(now), fmtTime(now))
	if err != nil {
		return u, fmt.Errorf("insert upgrade: %w", err)
	}
	if u.ID, err = res.LastInsertId(); err != nil {
		return u, fmt.Errorf("insert upgrade: %w", err)
	}
	if err := s.createHosts(ctx, tx, nu, now); err != nil {
		return u, err
	}
	return u, insertEvent(ctx, tx, state.Event{Cluster: u.Cluster, UpgradeUUID: u.UUID, Actor: nu.Actor,
		ToState: u.State, Reason: nu.Reason, CreatedAt: now, Hop: u.HopLabel()})
}

// createHosts makes the cluster's host rows those of nu (kept by hostname so their ids and
// versions survive from one upgrade to the next) and gives each a fresh kube_host_upgrade row.
func (s *Store) createHosts(ctx context.Context, tx *sql.Tx, nu state.NewUpgrade, now time.Time) error {
	if err := s.onHostUpgrades(ctx, tx, nu.Cluster, "DELETE FROM kube_host_upgrade"); err != nil {
		return fmt.Errorf("clear host upgrades: %w", err)
	}
	keep := map[string]bool{}
	for _, h := range nu.Hosts {
		keep[h.Hostname] = true
		if _, err := tx.ExecContext(ctx, s.d.UpsertHost, nu.Cluster, h.Hostname, h.Personality,
			nullable(h.ControlPlaneVersion), nullable(h.KubeletVersion)); err != nil {
			return fmt.Errorf("record host %s: %w", h.Hostname, err)
		}
		// The host's id first, then a plain INSERT: MariaDB takes a table-wide AUTO-INC lock for
		// an INSERT ... SELECT, on which clusters created at the same moment fail (error 1467).
		var id int64
		if err := tx.QueryRowContext(ctx, "SELECT id FROM host WHERE cluster = ? AND hostname = ?", nu.Cluster, h.Hostname).Scan(&id); err != nil {
			return fmt.Errorf("read host %s: %w", h.Hostname, err)
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO kube_host_upgrade (uuid, host_id, target_version, status, created_at, updated_at)
			VALUES (?, ?, NULL, NULL, ?, ?)`, uuid.NewString(), id, fmtTime(now), fmtTime(now))
		if err != nil {
			return fmt.Errorf("record host upgrade %s: %w", h.Hostname, err)
		}
	}
	rows, err := tx.QueryContext(ctx, "SELECT id, hostname FROM host WHERE cluster = ?", nu.Cluster)
	if err != nil {
		return fmt.Errorf("list hosts: %w", err)
	}
	var gone []int64
	for rows.Next() {
		var id int64
		var name string
		if err := rows.Scan(&id, &name); err != nil {
			rows.Close()
			return fmt.Errorf("list hosts: %w", err)
		}
		if !keep[name] {
			gone = append(gone, id)
		}
	}
	rows.Close()
	for _, id := range gone {
		if _, err := tx.ExecContext(ctx, "DELETE FROM host WHERE id = ?", id); err != nil {
			return fmt.Errorf("forget host no longer in the inventory: %w", err)
		}
	}
	return rows.Err()
}

// DeleteUpgrade deletes the upgrade of cluster if its state is still from; the event log keeps
// its history (and gets one more row saying who deleted it).
func (s *Store) DeleteUpgrade(ctx context.Context, cluster string, from state.State, actor state.Actor, reason string) error {
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		u, err := s.readUpgrade(ctx, tx, cluster, true)
		if err != nil && !errors.Is(err, state.ErrBadRow) { // its times decide nothing here
			return err
		}
		if u.State != from {
			return conflict(cluster, "expected state %s, found %s", from, u.State)
		}
		if err := s.onHostUpgrades(ctx, tx, cluster, "DELETE FROM kube_host_upgrade"); err != nil {
			return fmt.Errorf("delete upgrade rows: %w", err)
		}
		if _, err := tx.ExecContext(ctx, "DELETE FROM upgrade_lease WHERE cluster = ?", cluster); err != nil {
			return fmt.Errorf("delete upgrade rows: %w", err)
		}
		res, err := tx.ExecContext(ctx, "DELETE FROM kube_upgrade WHERE id = ? AND state = ?", u.ID, string(from))
		if err := one(res, err, cluster, "upgrade state"); err != nil {
			return err
		}
		now, err := s.txNow(ctx, tx)
		if err != nil {
			return err
		}
		return insertEvent(ctx, tx, state.Event{Cluster: cluster, UpgradeUUID: u.UUID, Actor: actor,
			FromState: u.State, Reason: reason, CreatedAt: now, Hop: u.HopLabel()})
	})
	if err != nil {
		return fmt.Errorf("delete upgrade: %w", err)
	}
	return nil
}

// SetVersions records the versions read over SSH; "" leaves a column unchanged.
func (s *Store) SetVersions(ctx context.Context, cluster, hostname, controlPlane, kubelet string, at time.Time) error {
	// The same UPDATE twice writes the same row: run again after a lost connection like a read.
	_, err := again(ctx, s, func() (struct{}, error) {
		return struct{}{}, s.setVersions(ctx, cluster, hostname, controlPlane, kubelet, at)
	})
	return err
}

func (s *Store) setVersions(ctx context.Context, cluster, hostname, controlPlane, kubelet string, at time.Time) error {
	res, err := s.db.ExecContext(ctx, `UPDATE host SET control_plane_version = COALESCE(?, control_plane_version),
		kubelet_version = COALESCE(?, kubelet_version), versions_read_at = ? WHERE cluster = ? AND hostname = ?`,
		nullable(controlPlane), nullable(kubelet), fmtTime(at), cluster, hostname)
	if err != nil {
		return fmt.Errorf("set versions of %s: %w", hostname, err)
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return state.WithNextSteps(fmt.Errorf("%w: host %s of cluster %q", state.ErrNotFound, hostname, cluster),
			" (hosts come from `%s`)", state.Next("upgrade", "start"))
	}
	return nil
}

// RenewLease extends owner's lease by ttl from now; ErrConflict when it is gone or another's.
func (s *Store) RenewLease(ctx context.Context, cluster, owner string, ttl time.Duration) (state.Lease, error) {
	var out state.Lease
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		// Times that do not parse are rewritten by the renewal: only the owner is compared.
		l, err := s.readLease(ctx, tx, cluster, true)
		if err != nil && !errors.Is(err, state.ErrBadRow) {
			return err
		}
		if l == nil {
			return conflict(cluster, "expected the lease of %s, found none (the operation was failed or finished by someone else)", owner)
		}
		if l.Owner != owner {
			return conflict(cluster, "expected the lease of %s, found it held by %s for %s", owner, l.Owner, l.Operation)
		}
		now, err := s.txNow(ctx, tx)
		if err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, "UPDATE upgrade_lease SET heartbeat_at = ?, expires_at = ? WHERE cluster = ? AND owner = ?",
			fmtTime(now), fmtTime(now.Add(ttl)), cluster, owner)
		if err := one(res, err, cluster, "lease"); err != nil {
			return err
		}
		out = *l
		out.HeartbeatAt, out.ExpiresAt = now, now.Add(ttl)
		return nil
	})
	if err != nil {
		return state.Lease{}, fmt.Errorf("renew lease: %w", err)
	}
	return out, nil
}

// onHostUpgrades runs stmt (an UPDATE or DELETE of kube_host_upgrade, without WHERE) on the
// cluster's rows, named by their host ids: `host_id IN (SELECT ...)` made MariaDB scan, and
// lock, every cluster's rows, on which a fleet's clusters deadlocked.
func (s *Store) onHostUpgrades(ctx context.Context, tx *sql.Tx, cluster, stmt string, args ...any) error {
	rows, err := tx.QueryContext(ctx, "SELECT id FROM host WHERE cluster = ?", cluster)
	if err != nil {
		return fmt.Errorf("read host ids: %w", err)
	}
	var ids []any
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return fmt.Errorf("read host ids: %w", err)
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil || len(ids) == 0 {
		return err
	}
	_, err = tx.ExecContext(ctx, stmt+" WHERE host_id IN ("+strings.Repeat(",?", len(ids))[1:]+")", append(args, ids...)...)
	return err
}
