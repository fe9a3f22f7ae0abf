package fleet

import (
	"sort"
	"time"

	"github.com/kupgrade/kupgrade/recovery"
	"github.com/kupgrade/kupgrade/state"
)

// NotStarted is the state a fleet's cluster is counted in before its upgrade exists.
const NotStarted = "not-started"

// Overview is what `fleet show`, the status page and the metrics say about one fleet.
type Overview struct {
	Fleet    string                     `json:"fleet"`
	Total    int                        `json:"total"`
	States   map[string]int             `json:"states"`   // clusters per upgrade state (NotStarted before one exists)
	Outcomes map[state.FleetOutcome]int `json:"outcomes"` // clusters per fleet outcome: pending, done, failed
	Claimed  int                        `json:"claimed"`  // pending clusters a runner holds a live claim on
	Runners  []string                   `json:"runners"`  // the owners of those claims
	Failing  []OverviewCluster          `json:"failing"`  // failed, or in a failed state
	Stuck    []OverviewCluster          `json:"stuck"`    // in flight with no live lease, or claimed by nobody alive
	// Progress is the share of the fleet done (0 to 1); Rate the clusters done per minute since
	// the first claim; Left the estimate of the time left at that rate (0 when unknown).
	Progress float64       `json:"progress"`
	Rate     float64       `json:"rate_per_minute"`
	Left     time.Duration `json:"-"`
	LeftS    float64       `json:"estimate_left_seconds"`
	Started  time.Time     `json:"started"`
	// FailingCount and StuckCount count every such cluster; Failing and Stuck may list fewer
	// (the status page lists the first 20 of each).
	FailingCount int `json:"failing_count"`
	StuckCount   int `json:"stuck_count"`
}

// OverviewCluster is one cluster of a fleet that needs a look.
type OverviewCluster struct {
	Cluster   string    `json:"cluster"`
	State     string    `json:"state"`
	Since     time.Time `json:"since"`
	Why       string    `json:"why"`
	LastError string    `json:"last_error,omitempty"`
	// Next is the command that goes on with it: Next's answer, which for a member of a fleet
	// is the fleet's own run (recovery.FleetRun), as the status page and `upgrade show` print it.
	Next string `json:"next,omitempty"`
}

// Overviews groups rows by fleet and summarizes each, in fleet order.
func Overviews(rows []state.FleetRow, now time.Time) []Overview {
	var out []Overview
	for i := 0; i < len(rows); {
		j := i
		for j < len(rows) && rows[j].Fleet == rows[i].Fleet {
			j++
		}
		out = append(out, OverviewOf(rows[i:j], now))
		i = j
	}
	return out
}

// OverviewOf counts one fleet's rows and estimates the time left.
func OverviewOf(rows []state.FleetRow, now time.Time) Overview {
	s := Overview{States: map[string]int{}, Outcomes: map[state.FleetOutcome]int{}, Total: len(rows),
		Runners: []string{}, Failing: []OverviewCluster{}, Stuck: []OverviewCluster{}}
	runners := map[string]bool{}
	for _, r := range rows {
		s.Fleet = r.Fleet
		st := string(r.State)
		if st == "" {
			st = NotStarted
		}
		s.States[st]++
		s.Outcomes[r.Outcome]++
		live := r.Outcome == state.FleetPending && r.Owner != "" && now.Before(r.ExpiresAt)
		if live {
			s.Claimed++
			runners[r.Owner] = true
		}
		if !r.ClaimedAt.IsZero() && (s.Started.IsZero() || r.ClaimedAt.Before(s.Started)) {
			s.Started = r.ClaimedAt
		}
		s.look(r, st, live, now)
	}
	for o := range runners {
		s.Runners = append(s.Runners, o)
	}
	sort.Strings(s.Runners)
	s.FailingCount, s.StuckCount = len(s.Failing), len(s.Stuck)
	s.estimate(now)
	return s
}

// look files r under failing or stuck when it needs a person.
func (s *Overview) look(r state.FleetRow, st string, live bool, now time.Time) {
	c := OverviewCluster{Cluster: r.Cluster, State: st, Since: r.StateEnteredAt, LastError: r.LastError}
	cmd, _ := recovery.Next(recovery.NextIn{State: r.State, InFlight: r.State.InFlight()})
	c.Next = recovery.Where{}.Command(cmd, r.Cluster, &r)
	switch {
	case r.Outcome == state.FleetFailed:
		c.Why = "failed in the fleet run; the next `fleet run` retries it"
		s.Failing = append(s.Failing, c)
	case r.State.Failed():
		c.Why = "in a failed state; a runner retries it"
		s.Failing = append(s.Failing, c)
	case r.State.InFlight() && !now.Before(r.LeaseExpiresAt):
		c.Why = "in flight with no live lease: its runner died; a runner (or `kupgrade recover`) fails it"
		s.Stuck = append(s.Stuck, c)
	case r.Outcome == state.FleetPending && r.Owner != "" && !live:
		c.Why = "claimed by " + r.Owner + ", whose claim expired: another runner takes it over"
		s.Stuck = append(s.Stuck, c)
	}
}

func (s *Overview) estimate(now time.Time) {
	if s.Total == 0 {
		return
	}
	done := s.Outcomes[state.FleetDone]
	s.Progress = float64(done) / float64(s.Total)
	if s.Started.IsZero() || done == 0 {
		return
	}
	el := now.Sub(s.Started)
	if el <= 0 {
		return
	}
	s.Rate = float64(done) / el.Minutes()
	left := s.Total - done - s.Outcomes[state.FleetFailed]
	s.Left = time.Duration(float64(left) / float64(done) * float64(el)).Round(time.Second)
	s.LeftS = s.Left.Seconds()
}
