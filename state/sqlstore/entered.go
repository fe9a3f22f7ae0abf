package sqlstore

import (
	"context"
	"fmt"

	"github.com/kupgrade/kupgrade/state"
)

// Entered reports whether the upgrade upgradeUUID of cluster ever entered state s: one row of
// its event log says so, however many events came after.
func (s *Store) Entered(ctx context.Context, cluster, upgradeUUID string, st state.State) (bool, error) {
	return again(ctx, s, func() (bool, error) {
		var n int
		err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM kube_upgrade_event
			WHERE cluster = ? AND upgrade_uuid = ? AND to_state = ?`, cluster, upgradeUUID, string(st)).Scan(&n)
		if err != nil {
			return false, fmt.Errorf("read the event log of cluster %q: %w", cluster, err)
		}
		return n > 0, nil
	})
}
