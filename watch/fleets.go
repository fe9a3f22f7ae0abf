package watch

import (
	"context"
	"fmt"
	"time"

	"github.com/kupgrade/kupgrade/fleet"
	"github.com/kupgrade/kupgrade/recovery"
	"github.com/kupgrade/kupgrade/state"
)

// maxFleetList caps the failing and stuck clusters the status page lists per fleet.
const maxFleetList = 20

// allFleetRows reads every fleet row of st.
func allFleetRows(ctx context.Context, st recovery.FleetReader) ([]state.FleetRow, error) {
	rows, err := st.FleetRows(ctx, "")
	if err != nil {
		return nil, fmt.Errorf("read fleets: %w", err)
	}
	return rows, nil
}

// readFleets summarizes every fleet of rows with short lists.
func readFleets(rows []state.FleetRow, now time.Time) []fleet.Overview {
	sums := fleet.Overviews(rows, now)
	for i := range sums {
		sums[i].Failing = sums[i].Failing[:min(len(sums[i].Failing), maxFleetList)]
		sums[i].Stuck = sums[i].Stuck[:min(len(sums[i].Stuck), maxFleetList)]
	}
	return sums
}
