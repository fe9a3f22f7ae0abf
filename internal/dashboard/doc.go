// Package dashboard builds the Grafana dashboard of `kupgrade watch`'s metrics with Grafana's
// foundation SDK. Its queries name metrics only through the names the watcher's own definitions
// export (watch.MetricNames): a metric renamed or removed there makes Build fail, naming the
// panel, instead of shipping a panel that stays empty. `make package` puts the JSON in the
// .deb and .rpm as /usr/share/kupgrade/grafana/kupgrade-dashboard.json.
package dashboard
