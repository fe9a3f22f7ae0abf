package recovery

import (
	"errors"
	"html/template"
	"net/http"
	"time"

	"github.com/kupgrade/kupgrade/state"
)

// maxStatusClusters caps the table of the status page: one database may hold thousands of
// clusters, and the in-flight ones are listed first.
const maxStatusClusters = 500

var statusPage = template.Must(template.New("status").Funcs(template.FuncMap{
	"utc": func(t time.Time) string {
		if t.IsZero() {
			return "-"
		}
		return t.UTC().Format(time.RFC3339)
	},
}).Parse(`<!doctype html>
<html><head><meta charset="utf-8"><title>kupgrade watch</title>
<style>body{font-family:sans-serif;margin:1.5em}table{border-collapse:collapse;margin-bottom:1.5em}
td,th{border:1px solid #ccc;padding:.25em .6em;text-align:left}.failed{color:#b00}.inflight{color:#a60}</style>
</head><body>
<h1>kupgrade watch</h1>
<p>{{if .Holding}}Auditing: this watcher holds the audit lock.{{else}}Waiting: another watcher holds the audit lock.{{end}}
{{with .Last}}Last pass at {{utc .Now}}, took {{.Duration}}, {{len .InFlight}} in flight, {{len .Actions}} actions.{{else}}No pass yet.{{end}}
{{with .LastErr}}<span class="failed">Last pass error: {{.}}</span>{{end}}</p>
<h2>Clusters ({{.Total}})</h2>
<table><tr><th>cluster</th><th>state</th><th>since</th><th>to version</th><th>lease</th><th>error</th></tr>
{{range .Clusters}}<tr><td>{{.Cluster}}</td><td class="{{.Class}}">{{.State}}</td><td>{{utc .Since}}</td><td>{{.To}}</td><td>{{.Lease}}</td><td class="failed">{{.Error}}</td></tr>
{{end}}</table>
{{if .More}}<p>and {{.More}} more clusters.</p>{{end}}
<h2>Audit actions</h2>
<table><tr><th>time</th><th>cluster</th><th>host</th><th>from</th><th>to</th><th>outcome</th><th>why</th></tr>
{{range .Recent}}<tr><td>{{utc .Time}}</td><td>{{.Cluster}}</td><td>{{.Host}}</td><td>{{.FromState}}</td><td>{{.ToState}}</td><td>{{.Outcome}}</td><td>{{.Msg}}</td></tr>
{{end}}</table>
<h2>Last events</h2>
<table><tr><th>time</th><th>cluster</th><th>host</th><th>actor</th><th>from</th><th>to</th><th>reason</th></tr>
{{range .Events}}<tr><td>{{utc .CreatedAt}}</td><td>{{.Cluster}}</td><td>{{.Hostname}}</td><td>{{.Actor}}</td><td>{{.FromState}}</td><td>{{.ToState}}</td><td>{{.Reason}}</td></tr>
{{end}}</table>
</body></html>
`))

type clusterRow struct {
	Cluster, State, Class, To, Lease string
	Error                            string // why its rows cannot be read, and the fix
	Since                            time.Time
}

// StatusHandler serves a plain HTML page of the clusters, their states and leases (as of the
// last pass), the watcher's last actions and the newest events of the database.
func (w *Watcher) StatusHandler() http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(rw, r)
			return
		}
		ups, err := w.Store.Upgrades(r.Context())
		if err != nil && !errors.Is(err, state.ErrBadRow) { // a bad row is shown, not fatal
			http.Error(rw, "read upgrades: "+err.Error(), http.StatusServiceUnavailable)
			return
		}
		s := w.snapshot()
		unreadable := unreadableClusters(err, s.Last)
		evs, err := w.Store.Events(r.Context(), state.AllClusters, 20)
		if err != nil {
			http.Error(rw, "read events: "+err.Error(), http.StatusServiceUnavailable)
			return
		}
		rows, more := clusterRows(ups, s.Last, unreadable, w.Store.Now())
		data := map[string]any{"Holding": s.Holding, "Last": s.Last, "LastErr": s.LastErr, "Recent": s.Recent,
			"Events": evs, "Clusters": rows, "More": more, "Total": len(ups)}
		rw.Header().Set("Content-Type", "text/html; charset=utf-8")
		if err := statusPage.Execute(rw, data); err != nil {
			w.log().Error("render status page", "err", err)
		}
	})
}

// unreadableClusters maps each cluster with a row that cannot be read to what is wrong with it:
// from the list just read (upgrade rows), and from the last pass (lease and host rows too).
func unreadableClusters(listErr error, last *AuditReport) map[string]string {
	m := map[string]string{}
	for _, re := range state.RowErrors(listErr) {
		m[re.Cluster] = re.Error()
	}
	if last != nil {
		for _, b := range last.Bad {
			m[b.Cluster] = b.Err.Error() + "; " + BadRowFix(b)
		}
	}
	return m
}

// clusterRows lists unreadable, in-flight and failed clusters first, then the others, up to
// the cap.
func clusterRows(ups []state.Upgrade, last *AuditReport, unreadable map[string]string, now time.Time) ([]clusterRow, int) {
	leases := map[string]*state.Lease{}
	if last != nil {
		for _, op := range last.InFlight {
			leases[op.Upgrade.Cluster] = op.Lease
		}
	}
	var first, rest []clusterRow
	for _, u := range ups {
		r := clusterRow{Cluster: u.Cluster, State: string(u.State), To: u.ToVersion, Since: u.StateEnteredAt, Lease: "-"}
		if l := leases[u.Cluster]; l != nil {
			r.Lease = l.Owner + " (" + l.Operation + ", expires " + l.ExpiresAt.UTC().Format(time.RFC3339) + ")"
			if !l.Live(now) {
				r.Lease += " EXPIRED"
			}
		}
		r.Error = unreadable[u.Cluster]
		switch {
		case r.Error != "" || u.State.Failed():
			r.Class = "failed"
			first = append(first, r)
		case u.State.InFlight() || leases[u.Cluster] != nil:
			r.Class = "inflight"
			first = append(first, r)
		default:
			rest = append(rest, r)
		}
	}
	rows := append(first, rest...)
	if len(rows) > maxStatusClusters {
		return rows[:maxStatusClusters], len(rows) - maxStatusClusters
	}
	return rows, 0
}
