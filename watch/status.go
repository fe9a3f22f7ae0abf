package watch

import (
	_ "embed"
	"encoding/json"
	"errors"
	"html/template"
	"net/http"
	"strconv"
	"time"
)

// defaultRefresh is how often the status page asks /status.json again; ?refresh=SECONDS on the
// page's address changes it, up to maxRefresh: a number past it is taken as maxRefresh (a huge
// one overflowed into a negative wait, and browsers run a setTimeout past 2^31 ms at once: a
// tight poll loop on the database either way).
const (
	defaultRefresh = 5 * time.Second
	maxRefresh     = time.Hour
)

// refreshOf is the page's poll interval for the query's value q: whole seconds from 1 to
// maxRefresh's; "", 0, a negative number or not a number is the default.
func refreshOf(q string) time.Duration {
	n, err := strconv.ParseInt(q, 10, 64) // out of range: the bound of q's sign, and ErrRange
	if (err != nil && !errors.Is(err, strconv.ErrRange)) || n <= 0 {
		return defaultRefresh
	}
	return time.Duration(min(n, int64(maxRefresh/time.Second))) * time.Second
}

// StatusHandler serves the status page at / and its data at /status.json. The page is rendered
// in the browser from the same JSON it polls, so it refreshes without a reload and a script
// sees exactly what a person sees.
func (w *Watcher) StatusHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/status.json", func(rw http.ResponseWriter, r *http.Request) {
		st, err := w.Status(r.Context())
		if err != nil {
			http.Error(rw, err.Error(), http.StatusServiceUnavailable)
			return
		}
		rw.Header().Set("Content-Type", "application/json")
		rw.Header().Set("Cache-Control", "no-store")
		if err := json.NewEncoder(rw).Encode(st); err != nil {
			w.log().Error("write /status.json", "err", err)
		}
	})
	mux.HandleFunc("/", func(rw http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(rw, r)
			return
		}
		st, err := w.Status(r.Context())
		if err != nil {
			http.Error(rw, err.Error(), http.StatusServiceUnavailable)
			return
		}
		data, err := json.Marshal(st) // json escapes <, > and &: safe inside the script element
		if err != nil {
			http.Error(rw, "encode the status: "+err.Error(), http.StatusInternalServerError)
			return
		}
		refresh := refreshOf(r.URL.Query().Get("refresh"))
		rw.Header().Set("Content-Type", "text/html; charset=utf-8")
		rw.Header().Set("Cache-Control", "no-store")
		page := map[string]any{"Data": template.JS(data), "RefreshMS": refresh.Milliseconds(),
			"Script": template.JS(statusScript)}
		if err := statusPage.Execute(rw, page); err != nil {
			w.log().Error("render status page", "err", err)
		}
	})
	return mux
}

//go:embed status.js
var statusScript string

var statusPage = template.Must(template.New("status").Parse(`<!doctype html>
<html><head><meta charset="utf-8"><title>kupgrade watch</title>
<style>body{font-family:sans-serif;margin:1.5em}table{border-collapse:collapse;margin-bottom:1.5em}
td,th{border:1px solid #ccc;padding:.25em .6em;text-align:left;vertical-align:top}
.failed{color:#b00}.inflight{color:#a60}.mark{background:#b00;color:#fff;font-weight:bold;padding:0 .4em;border-radius:3px;white-space:nowrap}
code{background:#f4f4f4;padding:0 .3em}#updated{color:#777}
.timeline{margin-bottom:1.2em;max-width:70em}.timeline h3{font-size:1em;margin:.6em 0 .3em}
.tl-row{display:flex;align-items:center;gap:.6em;font-size:.9em;line-height:1.5}
.tl-label{flex:0 0 22em;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.tl-track{flex:1 1 auto;position:relative;height:1em;background:#f2f2f2}
.tl-bar{position:absolute;top:0;bottom:0;border-radius:2px}.tl-bar.done{background:#3a3}
.tl-bar.failed{background:#c22}.tl-bar.running{background:#e90}
.tl-time{flex:0 0 30em}.tl-row.failed .tl-time{color:#b00}</style>
</head><body>
<h1>kupgrade watch</h1>
<p id="summary"></p>
<p id="updated"></p>
<noscript><p>This page renders with JavaScript; the same data is at <a href="/status.json">/status.json</a>.</p></noscript>
<div id="fleets" hidden><h2>Fleets</h2>
<table id="fleet-table"><thead><tr><th>fleet</th><th>clusters</th><th>done</th><th>failed</th><th>pending</th><th>claimed</th><th>progress</th><th>rate</th><th>time left</th><th>runners</th></tr></thead><tbody></tbody></table>
<table id="fleet-attention"><thead><tr><th>fleet</th><th>cluster</th><th>state</th><th>why</th></tr></thead><tbody></tbody></table></div>
<h2 id="clusters-title">Clusters</h2>
<table id="clusters"><thead><tr><th>cluster</th><th>state</th><th>in state for</th><th>to version</th><th>host in flight, or failed</th><th>lease</th><th>last failure</th><th>next</th></tr></thead><tbody></tbody></table>
<p id="more"></p>
<h2>Timelines</h2>
<div id="timelines"></div>
<h2>Audit actions</h2>
<table id="actions"><thead><tr><th>time</th><th>cluster</th><th>host</th><th>from</th><th>to</th><th>outcome</th><th>why</th></tr></thead><tbody></tbody></table>
<h2>Last events</h2>
<table id="events"><thead><tr><th>time</th><th>cluster</th><th>host</th><th>actor</th><th>from</th><th>to</th><th>reason</th></tr></thead><tbody></tbody></table>
<script id="status-data" type="application/json">{{.Data}}</script>
<script>const refreshMS = {{.RefreshMS}};
{{.Script}}</script>
</body></html>
`))
