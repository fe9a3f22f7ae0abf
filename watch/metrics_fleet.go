package watch

import (
	"context"
	"github.com/kupgrade/kupgrade/fleet"
	"github.com/kupgrade/kupgrade/recovery"
	"github.com/kupgrade/kupgrade/state"

	"github.com/prometheus/client_golang/prometheus"
)

var (
	descFleetState = prometheus.NewDesc("kupgrade_fleet_clusters",
		"Clusters of the fleet per upgrade state (not-started before the upgrade exists), read from the database at the scrape.",
		[]string{"fleet", "state"}, nil)
	descFleetOutcome = prometheus.NewDesc("kupgrade_fleet_outcome_clusters",
		"Clusters of the fleet per outcome of `fleet run`: pending, done, failed.", []string{"fleet", "outcome"}, nil)
	descFleetClaimed = prometheus.NewDesc("kupgrade_fleet_claimed_clusters",
		"Pending clusters of the fleet a live runner holds a claim on.", []string{"fleet"}, nil)
	descFleetStuck = prometheus.NewDesc("kupgrade_fleet_stuck_clusters",
		"Clusters of the fleet in flight with no live lease, or claimed by a runner whose claim expired.", []string{"fleet"}, nil)
	descFleetFailing = prometheus.NewDesc("kupgrade_fleet_failing_clusters",
		"Clusters of the fleet that failed, or sit in a failed state.", []string{"fleet"}, nil)
	descFleetProgress = prometheus.NewDesc("kupgrade_fleet_progress_ratio",
		"Share of the fleet's clusters done, 0 to 1.", []string{"fleet"}, nil)
	descFleetLeft = prometheus.NewDesc("kupgrade_fleet_estimated_seconds_left",
		"Estimate of the time the fleet needs to finish, at the rate since its first claim; absent while unknown.", []string{"fleet"}, nil)
)

// fleetCollector reports the fleets of `kupgrade fleet run` as the database says at the scrape.
type fleetCollector struct{ st recovery.FleetReader }

// ReadFleets adds the fleet metrics, read from st at each scrape.
func (m *Metrics) ReadFleets(st recovery.FleetReader) {
	m.reg.MustRegister(fleetCollector{st})
}

func (c fleetCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descFleetState, descFleetOutcome, descFleetClaimed, descFleetStuck, descFleetFailing, descFleetProgress, descFleetLeft} {
		ch <- d
	}
}

func (c fleetCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), scrapeTimeout)
	defer cancel()
	rows, err := c.st.FleetRows(ctx, "")
	if err != nil {
		return // kupgrade_state_read_ok says whether the database answers
	}
	now := c.st.Now()
	for _, s := range fleet.Overviews(rows, now) {
		for st, n := range s.States {
			ch <- prometheus.MustNewConstMetric(descFleetState, prometheus.GaugeValue, float64(n), s.Fleet, st)
		}
		for _, o := range []state.FleetOutcome{state.FleetPending, state.FleetDone, state.FleetFailed} {
			ch <- prometheus.MustNewConstMetric(descFleetOutcome, prometheus.GaugeValue, float64(s.Outcomes[o]), s.Fleet, string(o))
		}
		ch <- prometheus.MustNewConstMetric(descFleetClaimed, prometheus.GaugeValue, float64(s.Claimed), s.Fleet)
		ch <- prometheus.MustNewConstMetric(descFleetStuck, prometheus.GaugeValue, float64(s.StuckCount), s.Fleet)
		ch <- prometheus.MustNewConstMetric(descFleetFailing, prometheus.GaugeValue, float64(s.FailingCount), s.Fleet)
		ch <- prometheus.MustNewConstMetric(descFleetProgress, prometheus.GaugeValue, s.Progress, s.Fleet)
		if s.Left > 0 {
			ch <- prometheus.MustNewConstMetric(descFleetLeft, prometheus.GaugeValue, s.Left.Seconds(), s.Fleet)
		}
	}
}
