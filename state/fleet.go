package state

import (
	"context"
	"time"
)

// A fleet is a set of clusters upgraded together by one or more `kupgrade fleet run` processes,
// which share the work through the database alone: each cluster has one fleet row (table
// fleet_cluster) that says which fleet it is in, its place in it, whether it is still to do, and
// who holds its claim. A claim is a lease on the whole of one cluster's upgrade run: taken with
// compare-and-set, renewed by its owner, judged on the database's clock, and stamped with a
// generation that grows with every claim or takeover, as the operation leases are.

// FleetOutcome is where a cluster stands in its fleet, as fleet_cluster.outcome spells it.
type FleetOutcome string

// Fleet outcomes: a cluster is still to do, done (it reached the fleet's goal) or failed.
const (
	FleetPending FleetOutcome = "pending"
	FleetDone    FleetOutcome = "done"
	FleetFailed  FleetOutcome = "failed"
)

// FleetMember is one cluster a fleet run was given.
type FleetMember struct {
	Cluster   string
	ToVersion string
	Until     State // the state the run stops the cluster at ("" for the end)
	// Move: the cluster may be taken out of another fleet it is recorded in (fleet run --move);
	// otherwise JoinFleet refuses, and joins nothing.
	Move bool
}

// FleetRow is a fleet_cluster row joined with the cluster's upgrade and operation lease.
type FleetRow struct {
	Fleet      string       `json:"fleet"`
	Cluster    string       `json:"cluster"`
	Position   int          `json:"position"`
	ToVersion  string       `json:"to_version"`
	Outcome    FleetOutcome `json:"outcome"`
	Owner      string       `json:"owner"` // the claim's owner, "" if never claimed
	Generation int64        `json:"generation"`
	ClaimedAt  time.Time    `json:"claimed_at"`
	ExpiresAt  time.Time    `json:"expires_at"`
	OutcomeAt  time.Time    `json:"outcome_at"`
	LastError  string       `json:"last_error"`
	TakenFrom  string       `json:"taken_from"` // the owner whose expired claim this one took over
	HandBacks  int          `json:"hand_backs"` // runs begun that did not end in done or failed
	// From the cluster's upgrade ("" / zero without one) and operation lease (zero without one).
	State          State     `json:"state"`
	StateEnteredAt time.Time `json:"state_entered_at"`
	LeaseExpiresAt time.Time `json:"lease_expires_at"`
}

// Claim is a claim a fleet runner holds on one cluster.
type Claim struct {
	Cluster    string
	Position   int
	ToVersion  string
	Owner      string
	Generation int64
	ExpiresAt  time.Time
	// TakenFrom is the owner of the expired claim this one replaced ("" when the cluster was free:
	// never claimed, or released by its owner).
	TakenFrom string
}

// ClaimQuery says which clusters a runner may claim now.
type ClaimQuery struct {
	Fleet string
	Owner string
	TTL   time.Duration
	Max   int // claim at most this many
	// Below, when > 0, restricts the claims to positions below it (the canary clusters).
	Below int
}

// FleetStore is what a fleet run keeps in the database, besides the upgrades themselves.
// Implementations: state/sqlstore (SQLite, MySQL).
type FleetStore interface {
	// JoinFleet records members in fleet (positions in the given order) and returns the time
	// of the database at which this run joined. A cluster new to the table is added as pending;
	// one that is done for another version or another --until, or failed before now, is made
	// pending again.
	JoinFleet(ctx context.Context, fleet string, members []FleetMember) (time.Time, error)
	// ClaimClusters claims up to q.Max pending clusters whose claim is free or expired, in
	// position order; a claim lost to another runner at the same moment is skipped.
	ClaimClusters(ctx context.Context, q ClaimQuery) ([]Claim, error)
	// RenewClaim extends owner's claim on cluster by ttl; ErrConflict when it is no longer owner's.
	RenewClaim(ctx context.Context, cluster, owner string, ttl time.Duration) (Lease, error)
	// FinishClaim records the outcome (FleetDone, FleetFailed, or FleetPending to hand the
	// cluster back) and frees the claim, if owner still holds generation; else ErrConflict. Done
	// and failed reset the cluster's hand-back count; a hand-back leaves this run counted.
	FinishClaim(ctx context.Context, cluster, owner string, generation int64, outcome FleetOutcome, lastError string) error
	// BeginClaim marks the start of owner's run of cluster under claim generation (else
	// ErrConflict) and returns the cluster's hand-back count before it: the runs that began
	// and did not end in done or failed, whichever runner ran them. This run counts from now on
	// until FinishClaim records done or failed, or ReleaseClaim gives it back uncounted.
	BeginClaim(ctx context.Context, cluster, owner string, generation int64) (int, error)
	// ReleaseClaim hands the cluster back without counting this run (an interrupted runner):
	// still pending, claim freed, if owner still holds generation; else ErrConflict.
	ReleaseClaim(ctx context.Context, cluster, owner string, generation int64, why string) error
	// FleetPending returns up to limit clusters of fleet still to do, in position order.
	FleetPending(ctx context.Context, fleet string, limit int) ([]string, error)
	// FleetFailures counts fleet's clusters that failed at or after since.
	FleetFailures(ctx context.Context, fleet string, since time.Time) (int, error)
	// FleetCanary counts outcomes among fleet's first n clusters.
	FleetCanary(ctx context.Context, fleet string, n int) (map[FleetOutcome]int, error)
	// FleetRows lists fleet's clusters (every fleet's when fleet is ""), in fleet and position
	// order, for `fleet show`, the status page and the metrics.
	FleetRows(ctx context.Context, fleet string) ([]FleetRow, error)
}
