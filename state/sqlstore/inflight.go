package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/kupgrade/kupgrade/state"
)

// InFlight returns every cluster whose state is in flight, or in upgrading-kubelets with a host
// upgrading-kubelet, with its lease and its in-flight hosts: two queries whatever the number of
// clusters. A cluster with a time that does not parse in any of those rows, or a state that is
// not a state (it may be a mistyped in-flight one), is returned in bad: reported, not judged.
func (s *Store) InFlight(ctx context.Context) ([]state.InFlightOp, []state.BadRow, error) {
	type both struct {
		ops []state.InFlightOp
		bad []state.BadRow
	}
	r, err := again(ctx, s, func() (both, error) {
		ops, bad, err := s.inFlight(ctx)
		return both{ops, bad}, err
	})
	return r.ops, r.bad, err
}

func (s *Store) inFlight(ctx context.Context) ([]state.InFlightOp, []state.BadRow, error) {
	query, args := inFlightQuery()
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, nil, fmt.Errorf("list in-flight upgrades: %w", err)
	}
	defer rows.Close()
	var ops []state.InFlightOp
	var bad []error // bad[i]: why ops[i] cannot be judged, nil when it can
	for rows.Next() {
		op, rowErr, err := scanInFlight(rows)
		if err != nil {
			return nil, nil, fmt.Errorf("list in-flight upgrades: %w", err)
		}
		ops, bad = append(ops, op), append(bad, rowErr)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("list in-flight upgrades: %w", err)
	}
	if err := s.attachInFlightHosts(ctx, ops, bad); err != nil {
		return nil, nil, err
	}
	good, badRows := splitBad(ops, bad)
	return good, badRows, nil
}

// inFlightQuery selects the in-flight states, the states that are not states, and any upgrade
// with a host left in flight, with the lease joined.
func inFlightQuery() (string, []any) {
	var inflight, all []string
	var args, allArgs []any
	for _, st := range state.AllStates() {
		if st.InFlight() {
			inflight = append(inflight, "?")
			args = append(args, string(st))
		}
		all = append(all, "?")
		allArgs = append(allArgs, string(st))
	}
	args = append(args, allArgs...)
	// Any upgrade with a host left in flight is audited too, whatever its state: a host status
	// that outlived its operation (hand edit, older tool) blocks the retry just the same.
	marks, hostArgs := inFlightStatuses()
	args = append(args, hostArgs...)
	return "SELECT " + upgradeCols + ", " + leaseCols +
		` FROM kube_upgrade u LEFT JOIN upgrade_lease l ON l.cluster = u.cluster
		WHERE u.state IN (` + strings.Join(inflight, ",") + `)
		   OR u.state NOT IN (` + strings.Join(all, ",") + `)
		   OR EXISTS (SELECT 1 FROM host h JOIN kube_host_upgrade hu ON hu.host_id = h.id
		              WHERE h.cluster = u.cluster AND hu.status IN (` + marks + `))
		ORDER BY u.cluster`, args
}

// scanInFlight scans one row of inFlightQuery; rowErr says why the op cannot be judged.
func scanInFlight(rows *sql.Rows) (op state.InFlightOp, rowErr, err error) {
	var lc, owner, operation sql.NullString
	var gen sql.NullInt64
	var acq, hb, exp looseTime
	dest, done := upgradeDest(&op.Upgrade)
	if err := rows.Scan(append(dest, &lc, &owner, &operation, &gen, &acq, &hb, &exp)...); err != nil {
		return op, nil, err
	}
	u := op.Upgrade
	errs := []error{done()}
	if !u.State.Valid() {
		errs = append(errs, &state.RowError{Cluster: u.Cluster, Table: "kube_upgrade", Column: "state",
			Err: fmt.Errorf("%q is not a state", u.State)})
	}
	if lc.Valid {
		op.Lease = &state.Lease{Cluster: lc.String, Owner: owner.String, Operation: operation.String,
			Generation: gen.Int64, AcquiredAt: acq.Time, HeartbeatAt: hb.Time, ExpiresAt: exp.Time}
		errs = append(errs, leaseBad(u.Cluster, &acq, &hb, &exp))
	}
	return op, errors.Join(errs...), nil
}

// attachInFlightHosts gives each op its in-flight hosts; a host row with a time that does not
// parse makes its op's cluster bad.
func (s *Store) attachInFlightHosts(ctx context.Context, ops []state.InFlightOp, bad []error) error {
	if len(ops) == 0 {
		return nil
	}
	marks, args := inFlightStatuses()
	hs, err := s.queryHosts(ctx, "hu.status IN ("+marks+")", args...)
	if err != nil && !errors.Is(err, state.ErrBadRow) {
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
	for _, re := range state.RowErrors(err) {
		if i, ok := idx[re.Cluster]; ok {
			bad[i] = errors.Join(bad[i], re)
		}
	}
	return nil
}

// splitBad separates the ops that can be judged from those that cannot.
func splitBad(ops []state.InFlightOp, bad []error) ([]state.InFlightOp, []state.BadRow) {
	var good []state.InFlightOp
	var out []state.BadRow
	for i, op := range ops {
		if bad[i] != nil {
			out = append(out, state.BadRow{Cluster: op.Upgrade.Cluster, State: op.Upgrade.State, Err: bad[i]})
			continue
		}
		good = append(good, op)
	}
	return good, out
}

// inFlightStatuses is the placeholders and arguments of `hu.status IN (...)` for the host
// statuses in flight (state.InFlightHostStatuses): the store's one list of them.
func inFlightStatuses() (marks string, args []any) {
	hs := state.InFlightHostStatuses()
	qs := make([]string, len(hs))
	for i, h := range hs {
		qs[i], args = "?", append(args, string(h))
	}
	return strings.Join(qs, ", "), args
}
