// Package killcheck reads what a killed kupgrade left in its database, for the kill campaigns of
// the simulated tier (cmd/kupgrade) and of the Docker tier (integration): the same questions,
// asked in SQL that SQLite and MySQL both answer, so the two campaigns judge a kill alike.
package killcheck

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/kupgrade/kupgrade/state"
)

// InFlight reports whether the upgrade's state or any host status is one in which an operation
// runs (or ran when it died), as the state machine defines them.
func InFlight(ctx context.Context, db *sql.DB) (bool, error) {
	var states, hosts []string
	for _, s := range state.AllStates() {
		if s.InFlight() {
			states = append(states, string(s))
		}
	}
	for _, h := range state.InFlightHostStatuses() {
		hosts = append(hosts, string(h))
	}
	n, err := count(ctx, db, "SELECT COUNT(*) FROM kube_upgrade WHERE state IN "+list(states))
	if err != nil || n > 0 {
		return n > 0, err
	}
	n, err = count(ctx, db, "SELECT COUNT(*) FROM kube_host_upgrade WHERE status IN "+list(hosts))
	return n > 0, err
}

// Problems lists what a kill must never leave: an operation in flight with no lease, or a stored
// state that the newest state change of its upgrade does not lead to (a state written without
// its event).
func Problems(ctx context.Context, db *sql.DB) ([]string, error) {
	var out []string
	flying, err := InFlight(ctx, db)
	if err != nil {
		return nil, err
	}
	leases, err := count(ctx, db, "SELECT COUNT(*) FROM upgrade_lease")
	if err != nil {
		return nil, err
	}
	if flying && leases == 0 {
		out = append(out, "an operation is in flight with no lease")
	}
	rows, err := db.QueryContext(ctx, `SELECT u.state, COALESCE((SELECT e.to_state FROM kube_upgrade_event e
		WHERE e.upgrade_uuid = u.uuid AND COALESCE(e.from_state, '') <> COALESCE(e.to_state, '') ORDER BY e.id DESC LIMIT 1), '')
		FROM kube_upgrade u`)
	if err != nil {
		return nil, fmt.Errorf("read the states: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var st, last string
		if err := rows.Scan(&st, &last); err != nil {
			return nil, fmt.Errorf("read the states: %w", err)
		}
		if last != "" && last != st {
			out = append(out, fmt.Sprintf("state %s but the newest state change went to %s", st, last))
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read the states: %w", err)
	}
	return out, nil
}

// EventHoles lists the state changes of every upgrade that do not start where the previous one
// ended: an event lost, or a state written without its event.
func EventHoles(ctx context.Context, db *sql.DB) ([]string, error) {
	rows, err := db.QueryContext(ctx, `SELECT id, upgrade_uuid, COALESCE(from_state, ''), COALESCE(to_state, '')
		FROM kube_upgrade_event WHERE COALESCE(from_state, '') <> COALESCE(to_state, '') ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("read events: %w", err)
	}
	defer rows.Close()
	last := map[string]string{}
	var holes []string
	for rows.Next() {
		var id int64
		var uuid, from, to string
		if err := rows.Scan(&id, &uuid, &from, &to); err != nil {
			return nil, fmt.Errorf("read events: %w", err)
		}
		if prev, seen := last[uuid]; seen && prev != from {
			holes = append(holes, fmt.Sprintf("event %d of upgrade %s goes %s -> %s, but the previous change ended in %s", id, uuid, from, to, prev))
		}
		last[uuid] = to
	}
	return holes, rows.Err()
}

func count(ctx context.Context, db *sql.DB, query string) (int, error) {
	var n int
	if err := db.QueryRowContext(ctx, query).Scan(&n); err != nil {
		return 0, fmt.Errorf("%s: %w", query, err)
	}
	return n, nil
}

// list is an SQL list of quoted names; the names come from the state package, never a user.
func list(names []string) string {
	return "('" + strings.Join(names, "', '") + "')"
}
