package sqlstore

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/kupgrade/kupgrade/state"
)

// FleetRows lists fleet's clusters (every fleet's for ""), with their upgrade's state and their
// operation lease's expiry, in fleet and position order.
func (s *Store) FleetRows(ctx context.Context, fleet string) ([]state.FleetRow, error) {
	return again(ctx, s, func() ([]state.FleetRow, error) { return s.fleetRows(ctx, fleet) })
}

func (s *Store) fleetRows(ctx context.Context, fleet string) ([]state.FleetRow, error) {
	query := `SELECT f.fleet, f.cluster, f.position, f.to_version, f.outcome, f.owner, f.generation, f.claimed_at,
		f.expires_at, f.outcome_at, COALESCE(f.last_error, ''), COALESCE(f.taken_from, ''), COALESCE(u.state, ''),
		u.state_entered_at, l.expires_at, f.hand_backs
		FROM fleet_cluster f LEFT JOIN kube_upgrade u ON u.cluster = f.cluster LEFT JOIN upgrade_lease l ON l.cluster = f.cluster`
	var args []any
	if fleet != "" {
		query += " WHERE f.fleet = ?"
		args = append(args, fleet)
	}
	rows, err := s.db.QueryContext(ctx, query+" ORDER BY f.fleet, f.position", args...)
	if err != nil {
		return nil, fmt.Errorf("list fleet %s: %w", fleet, err)
	}
	defer rows.Close()
	var out []state.FleetRow
	for rows.Next() {
		r, err := scanFleetRow(rows)
		if err != nil {
			return nil, fmt.Errorf("list fleet %s: %w", fleet, err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

func scanFleetRow(rows *sql.Rows) (state.FleetRow, error) {
	var r state.FleetRow
	var claimed, exp, outAt, entered, lease looseTime
	err := rows.Scan(&r.Fleet, &r.Cluster, &r.Position, &r.ToVersion, &r.Outcome, &r.Owner, &r.Generation, &claimed,
		&exp, &outAt, &r.LastError, &r.TakenFrom, &r.State, &entered, &lease, &r.HandBacks)
	r.ClaimedAt, r.ExpiresAt, r.OutcomeAt, r.StateEnteredAt, r.LeaseExpiresAt = claimed.Time, exp.Time, outAt.Time, entered.Time, lease.Time
	return r, err
}
