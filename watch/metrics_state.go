package watch

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/kupgrade/kupgrade/state"
)

// StateReader is what the per-cluster metrics read at each scrape.
type StateReader interface {
	Upgrades(ctx context.Context) ([]state.Upgrade, error)
	InFlight(ctx context.Context) ([]state.InFlightOp, []state.BadRow, error)
	Hosts(ctx context.Context, cluster string) ([]state.Host, error)
}

// scrapeTimeout bounds the store reads of one scrape, below Prometheus' default 10s timeout.
const scrapeTimeout = 5 * time.Second

var (
	descState = prometheus.NewDesc("kupgrade_upgrade_state",
		"1 for the state each cluster's upgrade is in now (failed states included), read from the database at the scrape.",
		[]string{"cluster", "state"}, nil)
	descEntered = prometheus.NewDesc("kupgrade_upgrade_state_entered_timestamp_seconds",
		"Unix time the cluster's upgrade entered its current state (alert on time() minus it).", []string{"cluster"}, nil)
	descInFlight = prometheus.NewDesc("kupgrade_upgrade_in_flight",
		"1 while an operation of the cluster is in flight (its state, or one of its hosts), else 0.", []string{"cluster"}, nil)
	descLease = prometheus.NewDesc("kupgrade_upgrade_lease_expiry_timestamp_seconds",
		"Unix time the lease on the cluster's operation in flight expires, by owner; absent when nobody holds one.",
		[]string{"cluster", "owner"}, nil)
	descHop = prometheus.NewDesc("kupgrade_upgrade_hop",
		"The hop the cluster's upgrade runs, from 1 (an upgrade across several minors walks one hop per minor).", []string{"cluster"}, nil)
	descHopsLeft = prometheus.NewDesc("kupgrade_upgrade_hops_left",
		"How many hops follow the running one (0 on the last, and for a one-hop upgrade).", []string{"cluster"}, nil)
	descHostsInFlight = prometheus.NewDesc("kupgrade_hosts_in_flight",
		"How many of the cluster's hosts are in each in-flight status (upgrading-control-plane, draining-node, upgrading-kubelet, uncordoning-node); absent for none.",
		[]string{"cluster", "status"}, nil)
	descHostsFailed = prometheus.NewDesc("kupgrade_hosts_failed",
		"How many of the cluster's hosts are left in each failed status (upgrading-kubelet-failed, draining-node-failed, uncordoning-node-failed) while the cluster's state goes on (upgrading-kubelets); absent for none.",
		[]string{"cluster", "status"}, nil)
	descReadOK = prometheus.NewDesc("kupgrade_state_read_ok",
		"1 when the scrape could read the upgrades from the database, 0 when it could not (the per-cluster series are then absent).", nil, nil)
)

// stateCollector reports every cluster's state as the database says it at the scrape: an
// on-call alerts on it whether or not this watcher holds the audit lock.
type stateCollector struct{ st StateReader }

// ReadStates adds the per-cluster state metrics, read from st at each scrape.
func (m *Metrics) ReadStates(st StateReader) {
	m.reg.MustRegister(stateCollector{st})
}

func (c stateCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descState, descEntered, descInFlight, descLease, descHop, descHopsLeft, descHostsInFlight, descHostsFailed, descReadOK} {
		ch <- d
	}
}

func (c stateCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), scrapeTimeout)
	defer cancel()
	ups, err := c.st.Upgrades(ctx)
	if err != nil && !errors.Is(err, state.ErrBadRow) { // a bad row still has its state
		ch <- prometheus.MustNewConstMetric(descReadOK, prometheus.GaugeValue, 0)
		return
	}
	ops, _, err := c.st.InFlight(ctx)
	if err != nil {
		ch <- prometheus.MustNewConstMetric(descReadOK, prometheus.GaugeValue, 0)
		return
	}
	ch <- prometheus.MustNewConstMetric(descReadOK, prometheus.GaugeValue, 1)
	busy := map[string]*state.Lease{}
	for _, op := range ops {
		busy[op.Upgrade.Cluster] = op.Lease
		collectHosts(ch, op)
	}
	for _, u := range ups {
		c.collectFailedHosts(ctx, ch, u)
		ch <- prometheus.MustNewConstMetric(descState, prometheus.GaugeValue, 1, u.Cluster, string(u.State))
		ch <- prometheus.MustNewConstMetric(descHop, prometheus.GaugeValue, float64(u.Hop+1), u.Cluster)
		ch <- prometheus.MustNewConstMetric(descHopsLeft, prometheus.GaugeValue, float64(u.HopsLeft()), u.Cluster)
		if !u.StateEnteredAt.IsZero() {
			ch <- prometheus.MustNewConstMetric(descEntered, prometheus.GaugeValue, unixSeconds(u.StateEnteredAt), u.Cluster)
		}
		l, inFlight := busy[u.Cluster]
		ch <- prometheus.MustNewConstMetric(descInFlight, prometheus.GaugeValue, boolValue(inFlight), u.Cluster)
		if l != nil {
			ch <- prometheus.MustNewConstMetric(descLease, prometheus.GaugeValue, unixSeconds(l.ExpiresAt), u.Cluster, l.Owner)
		}
	}
}

// collectHosts counts op's hosts in flight by status.
func collectHosts(ch chan<- prometheus.Metric, op state.InFlightOp) {
	n := map[state.HostStatus]int{}
	for _, h := range op.Hosts {
		n[h.Status]++
	}
	for _, s := range state.InFlightHostStatuses() {
		if n[s] > 0 {
			ch <- prometheus.MustNewConstMetric(descHostsInFlight, prometheus.GaugeValue, float64(n[s]), op.Upgrade.Cluster, string(s))
		}
	}
}

// collectFailedHosts counts u's hosts left in a failed status, by status; an upgrade that has
// ended has none, and is not read.
func (c stateCollector) collectFailedHosts(ctx context.Context, ch chan<- prometheus.Metric, u state.Upgrade) {
	if !u.State.Failed() && slices.Contains(state.DeletableStates(), u.State) {
		return
	}
	hosts, err := c.st.Hosts(ctx, u.Cluster)
	if err != nil {
		return // kupgrade_state_read_ok says whether the database answers
	}
	n := map[state.HostStatus]int{}
	for _, h := range hosts {
		if h.Status.Failed() {
			n[h.Status]++
		}
	}
	for s, k := range n {
		ch <- prometheus.MustNewConstMetric(descHostsFailed, prometheus.GaugeValue, float64(k), u.Cluster, string(s))
	}
}

func unixSeconds(t time.Time) float64 { return float64(t.UnixMilli()) / 1000 }

func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
