package dashboard

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/grafana/grafana-foundation-sdk/go/cog/plugins"
	gdash "github.com/grafana/grafana-foundation-sdk/go/dashboard"

	"github.com/kupgrade/kupgrade/watch"
)

// The shipped dashboard is one Grafana reads back: the SDK's own decoder takes it, with its
// rows, its panels and the Prometheus data source picked at import.
func TestDashboardDecodes(t *testing.T) {
	b, err := JSON()
	if err != nil {
		t.Fatal(err)
	}
	plugins.RegisterDefaultPlugins()
	var d gdash.Dashboard
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("the dashboard does not decode: %v", err)
	}
	if d.Uid == nil || *d.Uid != UID || len(d.Panels) < 20 {
		t.Errorf("uid %v, %d panels; want %s and every row's panels", d.Uid, len(d.Panels), UID)
	}
	if !strings.Contains(string(b), `"${datasource}"`) || !strings.Contains(string(b), `"type": "datasource"`) {
		t.Error("the panels do not query the data source chosen at import ($datasource)")
	}
}

// Each query names only metrics the watcher exports, and each family it exports has a panel:
// a metric renamed or added in watch/ fails here until the dashboard follows.
func TestDashboardAndMetricsAgree(t *testing.T) {
	b, err := JSON()
	if err != nil {
		t.Fatal(err)
	}
	exported := watch.MetricNames()
	shown := map[string]bool{}
	for _, name := range metricRef.FindAllString(string(b), -1) {
		if !slices.Contains(exported, Family(name)) {
			t.Errorf("the dashboard queries %s, which kupgrade watch does not export", name)
		}
		shown[Family(name)] = true
	}
	for _, name := range exported {
		if !shown[name] {
			t.Errorf("%s is exported but on no panel: add it to internal/dashboard/panels.go", name)
		}
	}
}

// A metric that leaves the watcher fails the build, naming the panel and the file to fix.
func TestBuildRefusesAMetricTheWatcherDropped(t *testing.T) {
	exported := slices.DeleteFunc(watch.MetricNames(), func(n string) bool { return n == "kupgrade_upgrade_hops_left" })
	_, err := Build(exported)
	if err == nil {
		t.Fatal("Build succeeded with kupgrade_upgrade_hops_left gone")
	}
	for _, want := range []string{`panel "Hops" uses kupgrade_upgrade_hops_left`, "internal/dashboard/panels.go"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}

func TestFamily(t *testing.T) {
	for series, want := range map[string]string{
		"kupgrade_audit_pass_duration_seconds_bucket": "kupgrade_audit_pass_duration_seconds",
		"kupgrade_audit_pass_duration_seconds_count":  "kupgrade_audit_pass_duration_seconds",
		"kupgrade_audit_passes_total":                 "kupgrade_audit_passes_total",
		"kupgrade_fleet_outcome_clusters":             "kupgrade_fleet_outcome_clusters",
	} {
		if got := Family(series); got != want {
			t.Errorf("Family(%s) = %s, want %s", series, got, want)
		}
	}
}
