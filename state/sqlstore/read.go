package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/kupgrade/kupgrade/state"
)

const upgradeCols = "u.id, u.uuid, u.cluster, u.from_version, u.to_version, u.state, u.state_entered_at, u.recovery_attempts, u.created_at, u.updated_at"

type scanner interface{ Scan(dest ...any) error }

// upgradeDest returns the scan targets of upgradeCols and a func that finishes u after Scan.
func upgradeDest(u *state.Upgrade) ([]any, func()) {
	var entered, created, updated nullTime
	dest := []any{&u.ID, &u.UUID, &u.Cluster, &u.FromVersion, &u.ToVersion, &u.State, &entered, &u.RecoveryAttempts, &created, &updated}
	return dest, func() { u.StateEnteredAt, u.CreatedAt, u.UpdatedAt = entered.Time, created.Time, updated.Time }
}

func scanUpgrade(row scanner) (state.Upgrade, error) {
	var u state.Upgrade
	dest, done := upgradeDest(&u)
	if err := row.Scan(dest...); err != nil {
		return u, err
	}
	done()
	return u, nil
}

type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// readUpgrade reads the upgrade of cluster; lock appends the dialect's FOR UPDATE.
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
	return s.readUpgrade(ctx, s.db, cluster, false)
}

// Upgrades returns every cluster's upgrade, ordered by cluster.
func (s *Store) Upgrades(ctx context.Context) ([]state.Upgrade, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT "+upgradeCols+" FROM kube_upgrade u ORDER BY u.cluster")
	if err != nil {
		return nil, fmt.Errorf("list upgrades: %w", err)
	}
	defer rows.Close()
	var us []state.Upgrade
	for rows.Next() {
		u, err := scanUpgrade(rows)
		if err != nil {
			return nil, fmt.Errorf("list upgrades: %w", err)
		}
		us = append(us, u)
	}
	return us, rows.Err()
}

const leaseCols = "l.cluster, l.owner, l.operation, l.generation, l.acquired_at, l.heartbeat_at, l.expires_at"

func (s *Store) readLease(ctx context.Context, q querier, cluster string, lock bool) (*state.Lease, error) {
	query := "SELECT " + leaseCols + " FROM kube_upgrade_lease l WHERE l.cluster = ?"
	if lock {
		query += s.d.ForUpdate
	}
	var l state.Lease
	var acq, hb, exp nullTime
	err := q.QueryRowContext(ctx, query, cluster).Scan(&l.Cluster, &l.Owner, &l.Operation, &l.Generation, &acq, &hb, &exp)
	if isNoRows(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read lease of %q: %w", cluster, err)
	}
	l.AcquiredAt, l.HeartbeatAt, l.ExpiresAt = acq.Time, hb.Time, exp.Time
	return &l, nil
}

// Lease returns the cluster's lease row, or nil when there is none.
func (s *Store) Lease(ctx context.Context, cluster string) (*state.Lease, error) {
	return s.readLease(ctx, s.db, cluster, false)
}

const hostCols = `h.id, h.cluster, h.hostname, h.personality, COALESCE(hu.target_version, ''),
	COALESCE(h.control_plane_version, ''), COALESCE(h.kubelet_version, ''), h.versions_read_at,
	COALESCE(hu.status, '')`

const hostFrom = " FROM host h LEFT JOIN kube_host_upgrade hu ON hu.host_id = h.id"

func scanHost(row scanner) (state.Host, error) {
	var h state.Host
	var read nullTime
	err := row.Scan(&h.ID, &h.Cluster, &h.Hostname, &h.Personality, &h.TargetVersion,
		&h.ControlPlaneVersion, &h.KubeletVersion, &read, &h.Status)
	h.VersionsReadAt = read.ptr()
	return h, err
}

func (s *Store) queryHosts(ctx context.Context, where string, args ...any) ([]state.Host, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT "+hostCols+hostFrom+" WHERE "+where+" ORDER BY h.id", args...)
	if err != nil {
		return nil, fmt.Errorf("list hosts: %w", err)
	}
	defer rows.Close()
	var hs []state.Host
	for rows.Next() {
		h, err := scanHost(rows)
		if err != nil {
			return nil, fmt.Errorf("list hosts: %w", err)
		}
		hs = append(hs, h)
	}
	return hs, rows.Err()
}

// Hosts returns the hosts of cluster, ordered by id, with the reason of each one's last failure
// in the current upgrade.
func (s *Store) Hosts(ctx context.Context, cluster string) ([]state.Host, error) {
	hs, err := s.queryHosts(ctx, "h.cluster = ?", cluster)
	if err != nil || len(hs) == 0 {
		return hs, err
	}
	failures, err := s.lastFailures(ctx, cluster)
	if err != nil {
		return nil, err
	}
	for i := range hs {
		hs[i].LastFailure = failures[hs[i].Hostname]
	}
	return hs, nil
}

// lastFailures maps each host to the reason of the newest event of the current upgrade that
// failed an operation on it: a move to a failed state, or a kubelet cleared from
// upgrading-kubelet back to idle.
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
		if to.Failed() || (fromHS == state.UpgradingKubelet && toHS == state.HostIdle) {
			m[host] = reason
		}
	}
	return m, rows.Err()
}

// InFlight returns every cluster whose state is in flight, or in upgrading-kubelets with a host
// upgrading-kubelet, with its lease and its in-flight hosts: two queries whatever the number of
// clusters.
func (s *Store) InFlight(ctx context.Context) ([]state.InFlightOp, error) {
	var inflight []string
	var args []any
	for _, st := range state.AllStates() {
		if st.InFlight() {
			inflight = append(inflight, "?")
			args = append(args, string(st))
		}
	}
	// Any upgrade with a host left in flight is audited too, whatever its state: a host status
	// that outlived its operation (hand edit, older tool) blocks the retry just the same.
	args = append(args, string(state.UpgradingControlPlane), string(state.UpgradingKubelet))
	rows, err := s.db.QueryContext(ctx, "SELECT "+upgradeCols+", "+leaseCols+
		` FROM kube_upgrade u LEFT JOIN kube_upgrade_lease l ON l.cluster = u.cluster
		WHERE u.state IN (`+strings.Join(inflight, ",")+`)
		   OR EXISTS (SELECT 1 FROM host h JOIN kube_host_upgrade hu ON hu.host_id = h.id
		              WHERE h.cluster = u.cluster AND hu.status IN (?, ?))
		ORDER BY u.cluster`, args...)
	if err != nil {
		return nil, fmt.Errorf("list in-flight upgrades: %w", err)
	}
	defer rows.Close()
	var ops []state.InFlightOp
	for rows.Next() {
		var op state.InFlightOp
		var lc, owner, operation sql.NullString
		var gen sql.NullInt64
		var acq, hb, exp nullTime
		dest, done := upgradeDest(&op.Upgrade)
		if err := rows.Scan(append(dest, &lc, &owner, &operation, &gen, &acq, &hb, &exp)...); err != nil {
			return nil, fmt.Errorf("list in-flight upgrades: %w", err)
		}
		done()
		if lc.Valid {
			op.Lease = &state.Lease{Cluster: lc.String, Owner: owner.String, Operation: operation.String,
				Generation: gen.Int64, AcquiredAt: acq.Time, HeartbeatAt: hb.Time, ExpiresAt: exp.Time}
		}
		ops = append(ops, op)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list in-flight upgrades: %w", err)
	}
	return ops, s.attachInFlightHosts(ctx, ops)
}

func (s *Store) attachInFlightHosts(ctx context.Context, ops []state.InFlightOp) error {
	if len(ops) == 0 {
		return nil
	}
	hs, err := s.queryHosts(ctx, "hu.status IN (?, ?)", string(state.UpgradingControlPlane), string(state.UpgradingKubelet))
	if err != nil {
		return err
	}
	idx := make(map[string]int, len(ops))
	for i, op := range ops {
		idx[op.Upgrade.Cluster] = i
	}
	for _, h := range hs {
		if i, ok := idx[h.Cluster]; ok {
			ops[i].Hosts = append(ops[i].Hosts, h)
		}
	}
	return nil
}
