package watch

import (
	"github.com/kupgrade/kupgrade/recovery"
	"net/http"
	"runtime"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/kupgrade/kupgrade/state"
)

// Metrics are the watcher's Prometheus metrics, in a registry of their own (no global state, so
// tests and several watchers in one process do not collide).
type Metrics struct {
	reg        *prometheus.Registry
	passes     prometheus.Counter
	passErrors prometheus.Counter
	failed     *prometheus.CounterVec
	movedOn    prometheus.Counter
	lastPass   prometheus.Gauge
	passTime   prometheus.Histogram
	holding    prometheus.Gauge
	inFlight   prometheus.Gauge
	opAge      *prometheus.GaugeVec
	leaseAge   *prometheus.GaugeVec
	unreadable *prometheus.GaugeVec
	errors     *prometheus.CounterVec
	buildInfo  *prometheus.GaugeVec
}

// NewMetrics registers the watcher's metrics in a new registry.
func NewMetrics() *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		passes: prometheus.NewCounter(prometheus.CounterOpts{Name: "kupgrade_audit_passes_total",
			Help: "Audit passes run by this watcher."}),
		passErrors: prometheus.NewCounter(prometheus.CounterOpts{Name: "kupgrade_audit_pass_errors_total",
			Help: "Audit passes that met an error (database unreachable, a write that failed)."}),
		failed: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "kupgrade_audit_failed_operations_total",
			Help: "Operations failed by the audit, by the in-flight state they were in."}, []string{"state"}),
		movedOn: prometheus.NewCounter(prometheus.CounterOpts{Name: "kupgrade_audit_moved_on_total",
			Help: "Operations the audit was about to fail that moved on first (compare-and-set lost)."}),
		lastPass: prometheus.NewGauge(prometheus.GaugeOpts{Name: "kupgrade_audit_last_pass_timestamp_seconds",
			Help: "Unix time of the end of the last audit pass."}),
		passTime: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "kupgrade_audit_pass_duration_seconds",
			Help: "Time one audit pass took.", Buckets: prometheus.ExponentialBuckets(0.001, 4, 10)}),
		holding: prometheus.NewGauge(prometheus.GaugeOpts{Name: "kupgrade_audit_lock_held",
			Help: "1 while this watcher holds the single-auditor lock, 0 while it waits."}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{Name: "kupgrade_inflight_operations",
			Help: "In-flight operations left after the last pass, every cluster."}),
		opAge: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "kupgrade_inflight_operation_age_seconds",
			Help: "Seconds since the in-flight operation began (its state was entered, or, for a host in flight in upgrading-kubelets, that host's row was written), by cluster."}, []string{"cluster", "state"}),
		leaseAge: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "kupgrade_lease_age_seconds",
			Help: "Seconds since the in-flight operation's lease was last renewed, by cluster."}, []string{"cluster", "owner"}),
		unreadable: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "kupgrade_audit_unreadable_columns",
			Help: "Columns the last pass could not read (a hand edit gone wrong), by cluster: the audit leaves such a cluster alone until it is fixed."}, []string{"cluster"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "kupgrade_audit_errors_total",
			Help: "Operations the audit judged stuck but could not fail (a write that failed for another reason than a race), by cluster."}, []string{"cluster"}),
		buildInfo: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "kupgrade_build_info",
			Help: "1, labelled with the version, commit and Go version of this kupgrade."}, []string{"version", "commit", "goversion"}),
	}
	m.reg.MustRegister(m.collectors()...)
	m.SetBuildInfo("dev", "none")
	return m
}

// collectors are the metrics of the pass, as NewMetrics registers them.
func (m *Metrics) collectors() []prometheus.Collector {
	return []prometheus.Collector{m.passes, m.passErrors, m.failed, m.movedOn, m.lastPass, m.passTime,
		m.holding, m.inFlight, m.opAge, m.leaseAge, m.unreadable, m.errors, m.buildInfo}
}

// SetBuildInfo labels kupgrade_build_info with this binary's version and commit.
func (m *Metrics) SetBuildInfo(version, commit string) {
	m.buildInfo.Reset()
	m.buildInfo.WithLabelValues(version, commit, runtime.Version()).Set(1)
}

// Handler serves the metrics in the Prometheus exposition format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// Observe records one pass. The per-cluster gauges are rebuilt from the pass, so a cluster that
// finished or was failed disappears from them.
func (m *Metrics) Observe(rep recovery.AuditReport, err error) {
	m.passes.Inc()
	if err != nil {
		m.passErrors.Inc()
	}
	for _, a := range rep.Actions {
		switch a.Outcome {
		case recovery.OutcomeFailed:
			m.failed.WithLabelValues(string(a.FromState)).Inc()
		case recovery.OutcomeMovedOn:
			m.movedOn.Inc()
		case recovery.OutcomeError:
			m.errors.WithLabelValues(a.Cluster).Inc()
		}
	}
	m.passTime.Observe(rep.Duration.Seconds())
	m.lastPass.Set(float64(rep.Now.Add(rep.Duration).Unix()))
	m.opAge.Reset()
	m.leaseAge.Reset()
	m.unreadable.Reset()
	for _, b := range rep.Bad {
		m.unreadable.WithLabelValues(b.Cluster).Set(float64(max(1, len(state.RowErrors(b.Err)))))
	}
	left := 0
	for _, op := range rep.InFlight {
		if _, gone := rep.Failed[op.Upgrade.Cluster]; gone {
			continue
		}
		left++
		u := op.Upgrade
		m.opAge.WithLabelValues(u.Cluster, string(u.State)).Set(rep.Now.Sub(recovery.InFlightSince(op)).Seconds())
		if l := op.Lease; l != nil {
			m.leaseAge.WithLabelValues(u.Cluster, l.Owner).Set(rep.Now.Sub(l.HeartbeatAt).Seconds())
		}
	}
	m.inFlight.Set(float64(left))
}

func (m *Metrics) setHolding(h bool) { m.holding.Set(boolValue(h)) }
