package sqlstore

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/kupgrade/kupgrade/state"
)

// BeginClaim counts owner's run of cluster in the row's hand_backs and returns the count
// before it; see state.FleetStore.
func (s *Store) BeginClaim(ctx context.Context, cluster, owner string, generation int64) (int, error) {
	var prior int
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE fleet_cluster SET hand_backs = hand_backs + 1
			WHERE cluster = ? AND owner = ? AND generation = ? AND outcome = ?`, cluster, owner, generation, state.FleetPending)
		if err := one(res, err, cluster, "fleet claim of "+owner); err != nil {
			return err
		}
		return tx.QueryRowContext(ctx, "SELECT hand_backs - 1 FROM fleet_cluster WHERE cluster = ?", cluster).Scan(&prior)
	})
	if err != nil {
		return 0, fmt.Errorf("begin the run of fleet cluster %s: %w", cluster, err)
	}
	return prior, nil
}

// ReleaseClaim frees owner's claim on cluster, still pending, and takes back the count of its
// run; see state.FleetStore.
func (s *Store) ReleaseClaim(ctx context.Context, cluster, owner string, generation int64, why string) error {
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE fleet_cluster SET expires_at = ?, owner = '', last_error = ?,
			hand_backs = CASE WHEN hand_backs > 0 THEN hand_backs - 1 ELSE 0 END
			WHERE cluster = ? AND owner = ? AND generation = ? AND outcome = ?`,
			fmtTime(freeSince), nullable(storedText(why, maxText)), cluster, owner, generation, state.FleetPending)
		return one(res, err, cluster, "fleet claim of "+owner)
	})
	if err != nil {
		return fmt.Errorf("release fleet claim: %w", err)
	}
	return nil
}
