package fleet

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/kupgrade/kupgrade/health"
	"github.com/kupgrade/kupgrade/state"
	"github.com/kupgrade/kupgrade/upgrade"
)

// Store is what a fleet runner needs of the database: the upgrades and the fleet's claims.
type Store interface {
	upgrade.Store
	state.FleetStore
	// Unavailable reports an error that is the database's (unreachable, a lost connection, an
	// aborted transaction), not the cluster's.
	Unavailable(err error) bool
}

// Options are the flags of `fleet run`.
type Options struct {
	Fleet       string      // the fleet's name (default "default")
	To          string      // the target version
	MaxParallel int         // clusters this runner works on at once (default 10)
	Canary      int         // the first Canary clusters alone, the rest only once they all succeed
	MaxFailures int         // start no new cluster once this many failed (0: no limit)
	Until       state.State // stop each cluster at this state ("" for the end)
	Retries     int         // retries of a failed step, per cluster
	WorkerBatch int         // workers' kubelets this many at a time
	TTL         time.Duration
	Poll        time.Duration   // how often to look for expired claims (default TTL/10)
	Move        bool            // take clusters out of another fleet (else such a run is refused)
	Health      *health.Options // the health checks before each cluster's upgrade starts (nil: none)
}

func (o *Options) defaults() {
	if o.Fleet == "" {
		o.Fleet = "default"
	}
	if o.MaxParallel <= 0 {
		o.MaxParallel = 10
	}
	if o.TTL <= 0 {
		o.TTL = 30 * time.Second
	}
	if o.Poll <= 0 {
		o.Poll = max(o.TTL/10, 10*time.Millisecond)
	}
}

// Runner is one `fleet run` process.
type Runner struct {
	Store Store
	Owner string // this runner's name as a claim and lease holder
	// Open returns the workflow of one cluster and what closes its connections.
	Open func(t Target) (*upgrade.Workflow, func(), error)
	Log  *slog.Logger
	// Report, when set, is told of each cluster this runner ends (from its goroutine).
	Report func(Result)
	// Started, when set, is told of each cluster this runner starts (takenFrom: the runner whose
	// expired claim it took over, "" when none).
	Started func(cluster, takenFrom string)
}

// Result is what became of one cluster this runner worked on.
type Result struct {
	Cluster   string
	Outcome   state.FleetOutcome // state.FleetDone, state.FleetFailed, HandedBack, or Lost (another runner took it over)
	State     state.State        // the upgrade's state afterwards ("" when unknown)
	Err       error
	Took      time.Duration
	TakenFrom string // the runner whose expired claim this one took over
}

// Summary is what one runner did.
type Summary struct {
	Done, Failed, Lost int
	HandedBack         int    // runs the database failed under; their clusters went back to the fleet
	Stopped            string // why it started no more clusters, "" when it ran out of work
}

// ErrStopped marks a run that stopped before the fleet was done (canary failed, --max-failures).
var ErrStopped = errors.New("fleet run stopped")

func (r *Runner) log() *slog.Logger {
	if r.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return r.Log
}

// Run joins the fleet and works on its clusters until none is left to do, any runner's claims
// included (so that it takes over those of a runner that dies), or until it is stopped.
func (r *Runner) Run(ctx context.Context, targets []Target, o Options) (Summary, error) {
	o.defaults()
	if o.Until != "" && !o.Until.Valid() {
		return Summary{}, state.UnknownState("--until", o.Until)
	}
	byName := make(map[string]Target, len(targets))
	members := make([]state.FleetMember, len(targets))
	for i, t := range targets {
		byName[t.Cluster] = t
		members[i] = state.FleetMember{Cluster: t.Cluster, ToVersion: o.To, Until: o.Until, Move: o.Move}
	}
	since, err := r.Store.JoinFleet(ctx, o.Fleet, members)
	if err != nil {
		return Summary{}, err
	}
	l := &loop{r: r, o: o, targets: byName, since: since, done: make(chan Result), foreign: map[string]bool{}}
	return l.run(ctx)
}
