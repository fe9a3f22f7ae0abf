package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/kupgrade/kupgrade/state"
)

const upgradeCols = "u.id, u.uuid, u.cluster, u.from_version, u.to_version, u.hops, u.hop, u.state, u.state_entered_at, u.recovery_attempts, u.created_at, u.updated_at, u.lease_generation"

type scanner interface{ Scan(dest ...any) error }

// upgradeDest returns the scan targets of upgradeCols and a func that finishes u after Scan; it
// returns the RowErrors of the times that did not parse (their fields stay zero).
func upgradeDest(u *state.Upgrade) ([]any, func() error) {
	var entered, created, updated looseTime
	var hops string
	dest := []any{&u.ID, &u.UUID, &u.Cluster, &u.FromVersion, &u.ToVersion, &hops, &u.Hop, &u.State, &entered, &u.RecoveryAttempts, &created, &updated, &u.Generation}
	return dest, func() error {
		u.StateEnteredAt, u.CreatedAt, u.UpdatedAt = entered.Time, created.Time, updated.Time
		u.Hops = strings.Fields(hops)
		return errors.Join(badTime(u.Cluster, "", "kube_upgrade", "state_entered_at", &entered),
			badTime(u.Cluster, "", "kube_upgrade", "created_at", &created),
			badTime(u.Cluster, "", "kube_upgrade", "updated_at", &updated))
	}
}

// scanUpgrade scans one upgrade row; an error wrapping state.ErrBadRow comes with the row read.
func scanUpgrade(row scanner) (state.Upgrade, error) {
	var u state.Upgrade
	dest, done := upgradeDest(&u)
	if err := row.Scan(dest...); err != nil {
		return u, err
	}
	return u, done()
}

type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// readUpgrade reads the upgrade of cluster; lock appends the dialect's FOR UPDATE. A time that
// does not parse gives the row with an error wrapping state.ErrBadRow.
func (s *Store) readUpgrade(ctx context.Context, q querier, cluster string, lock bool) (state.Upgrade, error) {
	query := "SELECT " + upgradeCols + " FROM kube_upgrade u WHERE u.cluster = ?"
	if lock {
		query += s.d.ForUpdate
	}
	u, err := scanUpgrade(q.QueryRowContext(ctx, query, cluster))
	if isNoRows(err) {
		return u, notFound(cluster)
	}
	if err != nil {
		return u, fmt.Errorf("read upgrade of %q: %w", cluster, err)
	}
	return u, nil
}

// Upgrade returns the upgrade of cluster; ErrNotFound when there is none.
func (s *Store) Upgrade(ctx context.Context, cluster string) (state.Upgrade, error) {
	return again(ctx, s, func() (state.Upgrade, error) { return s.readUpgrade(ctx, s.db, cluster, false) })
}

// Upgrades returns every cluster's upgrade, ordered by cluster.
func (s *Store) Upgrades(ctx context.Context) ([]state.Upgrade, error) {
	return again(ctx, s, func() ([]state.Upgrade, error) { return s.upgrades(ctx) })
}

func (s *Store) upgrades(ctx context.Context) ([]state.Upgrade, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT "+upgradeCols+" FROM kube_upgrade u ORDER BY u.cluster")
	if err != nil {
		return nil, fmt.Errorf("list upgrades: %w", err)
	}
	defer rows.Close()
	var us []state.Upgrade
	var bad []error
	for rows.Next() {
		u, err := scanUpgrade(rows)
		if errors.Is(err, state.ErrBadRow) {
			bad = append(bad, err) // listed all the same: one hand edit hides no cluster
		} else if err != nil {
			return nil, fmt.Errorf("list upgrades: %w", err)
		}
		us = append(us, u)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list upgrades: %w", err)
	}
	if len(bad) > 0 {
		return us, fmt.Errorf("list upgrades: %w", errors.Join(bad...))
	}
	return us, nil
}

const leaseCols = "l.cluster, l.owner, l.operation, l.generation, l.acquired_at, l.heartbeat_at, l.expires_at"

// readLease reads the lease of cluster (nil when none); lock appends the dialect's FOR UPDATE. A
// time that does not parse gives the row (owner and operation read) with an error wrapping
// state.ErrBadRow: whoever holds it, nobody can tell whether it is live.
func (s *Store) readLease(ctx context.Context, q querier, cluster string, lock bool) (*state.Lease, error) {
	query := "SELECT " + leaseCols + " FROM upgrade_lease l WHERE l.cluster = ?"
	if lock && s.d.ForUpdate != "" {
		// A locking read of a row that is not there locks the gap where it would go, and every
		// cluster whose lease is taken at the same moment (a fleet) deadlocks on that gap. A
		// lease row is only ever inserted by a writer holding the cluster's upgrade row, which
		// the caller holds: a plain read that finds none may trust it, and the row, when there,
		// is then read with its lock.
		var one int
		err := q.QueryRowContext(ctx, "SELECT 1 FROM upgrade_lease WHERE cluster = ?", cluster).Scan(&one)
		if isNoRows(err) {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("read lease of %q: %w", cluster, err)
		}
		query += s.d.ForUpdate
	}
	var l state.Lease
	var acq, hb, exp looseTime
	err := q.QueryRowContext(ctx, query, cluster).Scan(&l.Cluster, &l.Owner, &l.Operation, &l.Generation, &acq, &hb, &exp)
	if isNoRows(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read lease of %q: %w", cluster, err)
	}
	l.AcquiredAt, l.HeartbeatAt, l.ExpiresAt = acq.Time, hb.Time, exp.Time
	if err := leaseBad(cluster, &acq, &hb, &exp); err != nil {
		return &l, fmt.Errorf("read lease of %q: %w", cluster, err)
	}
	return &l, nil
}

// leaseBad returns the RowErrors of a lease row's times.
func leaseBad(cluster string, acq, hb, exp *looseTime) error {
	return errors.Join(badTime(cluster, "", "upgrade_lease", "acquired_at", acq),
		badTime(cluster, "", "upgrade_lease", "heartbeat_at", hb),
		badTime(cluster, "", "upgrade_lease", "expires_at", exp))
}

// Lease returns the cluster's lease row, or nil when there is none.
func (s *Store) Lease(ctx context.Context, cluster string) (*state.Lease, error) {
	return again(ctx, s, func() (*state.Lease, error) { return s.readLease(ctx, s.db, cluster, false) })
}

const hostCols = `h.id, h.cluster, h.hostname, h.personality, COALESCE(hu.target_version, ''),
	COALESCE(h.control_plane_version, ''), COALESCE(h.kubelet_version, ''), h.versions_read_at,
	COALESCE(hu.status, ''), hu.updated_at, COALESCE(hu.backups, '')`

const hostFrom = " FROM host h LEFT JOIN kube_host_upgrade hu ON hu.host_id = h.id"

// scanHost scans one host row; an error wrapping state.ErrBadRow comes with the row read.
func scanHost(row scanner) (state.Host, error) {
	var h state.Host
	var read, updated looseTime
	var backups string
	if err := row.Scan(&h.ID, &h.Cluster, &h.Hostname, &h.Personality, &h.TargetVersion,
		&h.ControlPlaneVersion, &h.KubeletVersion, &read, &h.Status, &updated, &backups); err != nil {
		return h, err
	}
	h.VersionsReadAt, h.UpdatedAt = read.ptr(), updated.Time
	var bad error
	if h.Backups, bad = state.DecodeBackups(backups); bad != nil {
		bad = &state.RowError{Cluster: h.Cluster, Host: h.Hostname, Table: "kube_host_upgrade", Column: "backups", Err: bad}
	}
	return h, errors.Join(badTime(h.Cluster, h.Hostname, "host", "versions_read_at", &read),
		badTime(h.Cluster, h.Hostname, "kube_host_upgrade", "updated_at", &updated), bad)
}

// queryHosts lists the hosts matching where, ordered by id. Hosts with a time that does not
// parse are listed all the same, and the error (wrapping state.ErrBadRow) names them.
func (s *Store) queryHosts(ctx context.Context, where string, args ...any) ([]state.Host, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT "+hostCols+hostFrom+" WHERE "+where+" ORDER BY h.id", args...)
	if err != nil {
		return nil, fmt.Errorf("list hosts: %w", err)
	}
	defer rows.Close()
	var hs []state.Host
	var bad []error
	for rows.Next() {
		h, err := scanHost(rows)
		if errors.Is(err, state.ErrBadRow) {
			bad = append(bad, err)
		} else if err != nil {
			return nil, fmt.Errorf("list hosts: %w", err)
		}
		hs = append(hs, h)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list hosts: %w", err)
	}
	if len(bad) > 0 {
		return hs, fmt.Errorf("list hosts: %w", errors.Join(bad...))
	}
	return hs, nil
}

// Hosts returns the hosts of cluster, ordered by id, with the reason of each one's last failure
// in the current upgrade; a time that does not parse gives them all with an ErrBadRow error.
func (s *Store) Hosts(ctx context.Context, cluster string) ([]state.Host, error) {
	return again(ctx, s, func() ([]state.Host, error) { return s.hosts(ctx, cluster) })
}

func (s *Store) hosts(ctx context.Context, cluster string) ([]state.Host, error) {
	hs, bad := s.queryHosts(ctx, "h.cluster = ?", cluster)
	if (bad != nil && !errors.Is(bad, state.ErrBadRow)) || len(hs) == 0 {
		return hs, bad
	}
	failures, err := s.lastFailures(ctx, cluster)
	if err != nil {
		return nil, err
	}
	for i := range hs {
		hs[i].LastFailure = failures[hs[i].Hostname]
	}
	return hs, bad
}

// lastFailures maps each host to the reason of the newest event of the current upgrade that
// failed an operation on it: a move to a failed state or into a host's failed twin (from flight,
// or from idle: a step that failed before it could start on the host), or a kubelet cleared from
// upgrading-kubelet back to idle (as kupgrade did before upgrading-kubelet-failed).
func (s *Store) lastFailures(ctx context.Context, cluster string) (map[string]string, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT e.hostname, e.reason, COALESCE(e.to_state, ''),
		COALESCE(e.from_host_status, ''), COALESCE(e.to_host_status, '')
		FROM kube_upgrade_event e JOIN kube_upgrade u ON u.uuid = e.upgrade_uuid
		WHERE e.cluster = ? AND e.hostname IS NOT NULL ORDER BY e.id DESC`, cluster)
	if err != nil {
		return nil, fmt.Errorf("read host failures: %w", err)
	}
	defer rows.Close()
	m := map[string]string{}
	for rows.Next() {
		var host, reason string
		var to state.State
		var fromHS, toHS state.HostStatus
		if err := rows.Scan(&host, &reason, &to, &fromHS, &toHS); err != nil {
			return nil, fmt.Errorf("read host failures: %w", err)
		}
		if _, seen := m[host]; seen {
			continue
		}
		if to.Failed() || (toHS.Failed() && fromHS != toHS) || ((fromHS == state.UpgradingKubelet || fromHS == state.DowngradingKubelet) && toHS == state.HostIdle) {
			m[host] = reason
		}
	}
	return m, rows.Err()
}
