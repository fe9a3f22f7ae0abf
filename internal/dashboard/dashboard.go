package dashboard

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/grafana/grafana-foundation-sdk/go/cog"
	"github.com/grafana/grafana-foundation-sdk/go/common"
	gdash "github.com/grafana/grafana-foundation-sdk/go/dashboard"
	"github.com/grafana/grafana-foundation-sdk/go/prometheus"
	"github.com/grafana/grafana-foundation-sdk/go/stat"
	"github.com/grafana/grafana-foundation-sdk/go/timeseries"

	"github.com/kupgrade/kupgrade/watch"
)

// UID is the dashboard's uid: importing a newer package's dashboard replaces the older one.
const UID = "kupgrade-watch"

// JSON is the dashboard, built from the metrics the watcher exports, as Grafana imports it.
func JSON() ([]byte, error) {
	return Build(watch.MetricNames())
}

// Build makes the dashboard; exported are the metric families its queries may name. A query
// that names another fails the build with the panel's title.
func Build(exported []string) ([]byte, error) {
	if err := check(rows(), exported); err != nil {
		return nil, err
	}
	b := gdash.NewDashboardBuilder("kupgrade").
		Uid(UID).
		Description("Upgrades, fleets and the watcher's audit, from kupgrade watch's /metrics.").
		Tags([]string{"kupgrade", "kubernetes"}).
		Refresh("30s").
		Time("now-6h", "now").
		Timezone(common.TimeZoneBrowser).
		WithVariable(gdash.NewDatasourceVariableBuilder("datasource").Label("Prometheus").Type("prometheus"))
	for _, r := range rows() {
		b.WithRow(gdash.NewRowBuilder(r.title))
		for _, p := range r.panels {
			b.WithPanel(p.builder())
		}
	}
	d, err := b.Build()
	if err != nil {
		return nil, fmt.Errorf("build the Grafana dashboard (internal/dashboard/panels.go): %w", err)
	}
	return json.MarshalIndent(d, "", "  ")
}

// metricRef is a kupgrade series name in a query.
var metricRef = regexp.MustCompile(`\bkupgrade_[a-z_]+\b`)

// check returns an error naming each panel whose queries name a metric family not in exported
// (a histogram's _bucket, _sum and _count series belong to their family).
func check(rs []row, exported []string) error {
	known := map[string]bool{}
	for _, e := range exported {
		known[e] = true
	}
	var unknown []string
	for _, r := range rs {
		for _, p := range r.panels {
			for _, q := range p.queries {
				for _, name := range metricRef.FindAllString(q.expr, -1) {
					if !known[Family(name)] {
						unknown = append(unknown, fmt.Sprintf("panel %q uses %s", p.title, name))
					}
				}
			}
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	return fmt.Errorf("the Grafana dashboard names metrics kupgrade watch does not export (watch/metrics*.go define them): %s; "+
		"fix the queries in internal/dashboard/panels.go", strings.Join(unknown, "; "))
}

// Family is the metric family of a series name: a histogram's _bucket, _sum and _count series
// are its family's.
func Family(series string) string {
	for _, suffix := range []string{"_bucket", "_sum", "_count"} {
		if base, ok := strings.CutSuffix(series, suffix); ok && strings.HasSuffix(base, "_seconds") {
			return base
		}
	}
	return series
}

// row is a titled row of panels.
type row struct {
	title  string
	panels []panel
}

// panel is one graph (a time series) or one number (a stat).
type panel struct {
	title, help, unit string
	stat              bool
	queries           []query
}

type query struct{ expr, legend string }

var datasource = common.DataSourceRef{Type: cog.ToPtr("prometheus"), Uid: cog.ToPtr("${datasource}")}

func (p panel) builder() cog.Builder[gdash.Panel] {
	if p.stat {
		s := stat.NewPanelBuilder().Title(p.title).Description(p.help).Datasource(datasource).Height(4).Span(6)
		if p.unit != "" {
			s.Unit(p.unit)
		}
		for _, q := range p.queries {
			s.WithTarget(q.target())
		}
		return s
	}
	ts := timeseries.NewPanelBuilder().Title(p.title).Description(p.help).Datasource(datasource).Height(8).Span(12)
	if p.unit != "" {
		ts.Unit(p.unit)
	}
	for _, q := range p.queries {
		ts.WithTarget(q.target())
	}
	return ts
}

func (q query) target() *prometheus.DataqueryBuilder {
	t := prometheus.NewDataqueryBuilder().Expr(q.expr)
	if q.legend != "" {
		t.LegendFormat(q.legend)
	}
	return t
}
