package state

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"
)

// Upgrade is a kube_upgrade row.
type Upgrade struct {
	ID          int64  `json:"-"`
	UUID        string `json:"uuid"`
	Cluster     string `json:"cluster"`
	FromVersion string `json:"from_version"`
	ToVersion   string `json:"to_version"`
	// Hops are the versions the upgrade walks, in order, ToVersion last; nil for one hop. Hop is
	// the index of the running one (see Target).
	Hops             []string  `json:"hops,omitempty"`
	Hop              int       `json:"hop"`
	State            State     `json:"state"`
	StateEnteredAt   time.Time `json:"state_entered_at"`
	RecoveryAttempts int       `json:"recovery_attempts"`
	// Generation is kube_upgrade.lease_generation, the generation of the newest lease taken:
	// every operation's start takes the next one, so a change read at Generation g that passes
	// AtGeneration(g) is refused once any operation started since it was read.
	Generation int64     `json:"-"`
	CreatedAt  time.Time `json:"created_at"`
	UpdatedAt  time.Time `json:"updated_at"`
}

// Host is a host row joined with its kube_host_upgrade row (when an upgrade exists).
type Host struct {
	ID                  int64       `json:"id"`
	Cluster             string      `json:"-"`
	Hostname            string      `json:"hostname"`
	Personality         Personality `json:"personality"`
	TargetVersion       string      `json:"target_version"`
	ControlPlaneVersion string      `json:"control_plane_version"`
	KubeletVersion      string      `json:"kubelet_version"`
	VersionsReadAt      *time.Time  `json:"-"`
	Status              HostStatus  `json:"status"`
	// LastFailure is the reason of the newest event that failed an operation on this host, "" if
	// none since the upgrade started.
	LastFailure string `json:"last_failure"`
	// UpdatedAt is kube_host_upgrade.updated_at: when this host's own row was last written (its
	// status set), which no write about another host or the cluster moves. Zero without a row.
	UpdatedAt time.Time `json:"-"`
	// Backups is what the first control-plane step of this upgrade found on the host and the
	// backup folders kubeadm made since (not recorded: no control-plane step ran there).
	Backups Backups `json:"-"`
}

// Lease is the upgrade_lease row of a cluster: who is running the in-flight operation.
type Lease struct {
	Cluster   string `json:"-"`
	Owner     string `json:"owner"`
	Operation string `json:"operation"`
	// Generation is the lease's fencing token: it grows with every acquisition or takeover of the
	// cluster's lease, and a host refuses a command of an older generation than it has run.
	Generation  int64     `json:"generation"`
	AcquiredAt  time.Time `json:"-"`
	HeartbeatAt time.Time `json:"heartbeat_at"`
	ExpiresAt   time.Time `json:"expires_at"`
}

// Live reports whether the lease has not expired at now.
func (l *Lease) Live(now time.Time) bool { return l != nil && now.Before(l.ExpiresAt) }

// Holder says, for people, who holds the lease, for what and until when: every refusal on a live
// lease names it the same way.
func (l *Lease) Holder(now time.Time) string {
	return fmt.Sprintf("%s holds a live lease for %s until %s (in %s)", l.Owner, l.Operation,
		l.ExpiresAt.UTC().Format(time.RFC3339), l.ExpiresAt.Sub(now).Round(time.Second))
}

// Event is a kube_upgrade_event row: the append-only history.
type Event struct {
	ID             int64           `json:"id"`
	Cluster        string          `json:"cluster"`
	UpgradeUUID    string          `json:"upgrade_uuid"`
	Hostname       string          `json:"hostname,omitempty"` // WholeCluster for a cluster-wide change
	Actor          Actor           `json:"actor"`
	FromState      State           `json:"from_state"`
	ToState        State           `json:"to_state"`
	FromHostStatus HostStatus      `json:"from_host_status,omitempty"`
	ToHostStatus   HostStatus      `json:"to_host_status,omitempty"`
	Reason         string          `json:"reason"`
	Evidence       json.RawMessage `json:"evidence,omitempty"`
	CreatedAt      time.Time       `json:"created_at"`
	// Hop is the hop of an upgrade with hops the event belongs to, as Upgrade.HopLabel spells it
	// ("hop 2 of 3 (v1.31.14)"): the hop running once the change is made; "" for a one-hop
	// upgrade. The store fills it in.
	Hop string `json:"hop,omitempty"`
}

// NewUpgrade is what `upgrade start` creates: the kube_upgrade row in upgrade-started, the host
// rows (inserted or updated by hostname), and one kube_host_upgrade row per host.
type NewUpgrade struct {
	Cluster     string
	FromVersion string
	ToVersion   string
	Hops        []string // the hops, ToVersion last; nil for one hop
	Hosts       []NewHost
	Actor       Actor
	Reason      string
}

// NewHost is one inventory host recorded at `upgrade start`.
type NewHost struct {
	Hostname            string
	Personality         Personality
	ControlPlaneVersion string // "" when not read
	KubeletVersion      string // "" when not read
}

// InFlightOp is one cluster whose state is in flight, or in upgrading-kubelets with a host
// upgrading-kubelet: what the audit looks at.
type InFlightOp struct {
	Upgrade Upgrade
	Lease   *Lease // nil when no lease row
	Hosts   []Host // hosts whose status is in flight
}

// BadRow is a cluster InFlight could not read wholly: a time of its upgrade, lease or in-flight
// host rows does not parse, or its state is not a state. The audit reports it and leaves it
// alone; `kupgrade upgrade failed --force` can still fail it.
type BadRow struct {
	Cluster string
	State   State // as stored, which may not be a state
	Err     error // one *RowError, or several joined
}

// AuditHold is the single-auditor lock, held. Lost is closed when the lock goes without Release
// (its lease could not be renewed in time, and another process may hold it now): the holder
// must stop auditing. A lock that cannot be lost while the process lives (SQLite's lock file)
// has a Lost that is never closed.
type AuditHold struct {
	Lost    <-chan struct{}
	release func()
	once    sync.Once
}

// NewAuditHold is the hold a store returns: release gives the lock back, lost is closed when it
// is lost (nil for never).
func NewAuditHold(release func(), lost <-chan struct{}) *AuditHold {
	return &AuditHold{Lost: lost, release: release}
}

// Release gives the lock back; releasing twice is harmless.
func (h *AuditHold) Release() { h.once.Do(h.release) }

// Store persists upgrades. Implementations: state/sqlite, state/mysql. All methods are safe for
// concurrent use by many goroutines and many processes sharing the database.
type Store interface {
	// CreateUpgrade creates the upgrade of nu.Cluster. ErrRefused when one exists already.
	CreateUpgrade(ctx context.Context, nu NewUpgrade) (Upgrade, error)
	// Upgrade returns the upgrade of cluster; ErrNotFound when there is none. Upgrade, Hosts and
	// Lease return a row with a column that cannot be read (a time that does not parse) with that
	// column zero, and an error wrapping ErrBadRow (a *RowError) that says which.
	Upgrade(ctx context.Context, cluster string) (Upgrade, error)
	// Hosts returns the hosts of cluster (with their kube_host_upgrade columns when an upgrade
	// exists), ordered by id.
	Hosts(ctx context.Context, cluster string) ([]Host, error)
	// Apply applies c in one transaction (see Change) and returns the upgrade as written.
	Apply(ctx context.Context, c Change) (Upgrade, error)
	// DeleteUpgrade deletes the upgrade and its host rows' kube_host_upgrade rows if its state is
	// still from (compare-and-set); the event log keeps its history.
	DeleteUpgrade(ctx context.Context, cluster string, from State, actor Actor, reason string) error
	// SetVersions records versions read over SSH (empty strings leave a column unchanged).
	SetVersions(ctx context.Context, cluster, hostname, controlPlane, kubelet string, at time.Time) error
	// AddBackups appends the backup folders kubeadm made during this upgrade (oldest first;
	// folders there before the host's first control-plane step, or recorded already, are left
	// out) to hostname's Backups, with compare-and-set; a host without a record is
	// left alone. It returns the record as stored.
	AddBackups(ctx context.Context, cluster, hostname string, dirs, kubeletDirs []string) (Backups, error)
	// AddSnapshot records an etcd snapshot and its event in one transaction, with
	// compare-and-set on the upgrade (its uuid and hop, in upgrading-first-master): ErrConflict
	// when it moved on. It returns the snapshot as stored (its id and time).
	AddSnapshot(ctx context.Context, snap EtcdSnapshot, actor Actor) (EtcdSnapshot, error)
	// Snapshots returns the etcd snapshots recorded for cluster, newest first.
	Snapshots(ctx context.Context, cluster string) ([]EtcdSnapshot, error)

	// Lease returns the cluster's lease row, or nil when there is none (expired ones included).
	Lease(ctx context.Context, cluster string) (*Lease, error)
	// RenewLease extends the lease held by owner by ttl from now; ErrConflict when the lease is
	// gone or held by another owner (the caller must stop: someone failed its operation).
	RenewLease(ctx context.Context, cluster, owner string, ttl time.Duration) (Lease, error)

	// InFlight returns every in-flight operation of every cluster (for the audit): in-flight
	// states, and any upgrade with a host whose status is in flight, whatever its state. A cluster
	// whose rows cannot be read (or whose state is not a state) is returned in bad instead, so
	// that one hand edit gone wrong never hides every other cluster; err is for the database.
	InFlight(ctx context.Context) (ops []InFlightOp, bad []BadRow, err error)
	// Upgrades returns the upgrades of every cluster, ordered by cluster. A row with a column that
	// cannot be read is returned with that column zero, and the error (ErrBadRow) says which.
	Upgrades(ctx context.Context) ([]Upgrade, error)
	// AddEvent appends an event that changes no state (evidence found after the outcome it
	// belongs to was recorded); the store fills in the upgrade, its current state and the time.
	AddEvent(ctx context.Context, e Event) error
	// Events returns the newest limit events of cluster (AllClusters for every cluster), newest
	// first.
	Events(ctx context.Context, cluster string, limit int) ([]Event, error)
	// Entered reports whether the upgrade upgradeUUID of cluster ever entered state s, from its
	// whole event log (not from its newest events).
	Entered(ctx context.Context, cluster, upgradeUUID string, s State) (bool, error)

	// AuditLock takes the single-auditor lock without waiting: nil (and no error) when another
	// process holds it. (MySQL and MariaDB, Galera included: a row of kupgrade_lock with a lease
	// on the database's clock, renewed while held and taken over once it expires; SQLite: an
	// exclusive lock file beside the database.)
	AuditLock(ctx context.Context) (*AuditHold, error)

	// Now is the store's clock (UTC); tests replace it.
	Now() time.Time
	Close() error
}
