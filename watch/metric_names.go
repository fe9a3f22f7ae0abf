package watch

import (
	"regexp"
	"sort"

	"github.com/prometheus/client_golang/prometheus"
)

// fqName reads a metric's name out of its descriptor: client_golang keeps it unexported and
// prints it only in Desc.String.
var fqName = regexp.MustCompile(`fqName: "([a-zA-Z_:][a-zA-Z0-9_:]*)"`)

// MetricNames are the names of every metric family `kupgrade watch` exports (the pass's, the
// per-cluster and the fleet ones), read from the metrics' own definitions: the Grafana dashboard
// is built from them and the alert rules are checked against them, so neither can name a series
// that no longer exists.
func MetricNames() []string {
	ch := make(chan *prometheus.Desc, 128)
	for _, c := range append(NewMetrics().collectors(), stateCollector{}, fleetCollector{}) {
		c.Describe(ch)
	}
	close(ch)
	var names []string
	for d := range ch {
		if m := fqName.FindStringSubmatch(d.String()); m != nil {
			names = append(names, m[1])
		}
	}
	sort.Strings(names)
	return names
}
