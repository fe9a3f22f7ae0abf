package main

import (
	"context"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/runner/runnertest"
	"github.com/kupgrade/kupgrade/state/sqlite"
)

// watch --listen serves /healthz and /metrics while it audits, and a cancelled context (SIGTERM)
// ends it cleanly: the server closes and Run returns nil (exit 0).
func TestWatchListenServesAndShutsDownGracefully(t *testing.T) {
	g := &Globals{DB: "sqlite:" + emptyDB(t), Inventory: []string{filepath.Join(t.TempDir(), "none.yml")},
		Output: "table", LogLevel: "info", LogFormat: "text"}
	addr, cancel, done := startWatch(t, g)
	for path, want := range map[string]string{"/healthz": "ok", "/metrics": "kupgrade_build_info", "/": "<h1>kupgrade watch</h1>",
		"/status.json": `"holding_audit_lock":`} {
		resp, err := http.Get("http://" + addr + path)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), want) {
			t.Errorf("GET %s: %s, body lacks %q:\n%s", path, resp.Status, want, b)
		}
	}

	cancel()
	if err := <-done; err != nil {
		t.Fatalf("watch after SIGTERM: %v, want nil (exit 0)", err)
	}
	if _, err := http.Get("http://" + addr + "/healthz"); err == nil {
		t.Error("the status server still answers after shutdown")
	}
}

// startWatch runs `watch --listen 127.0.0.1:0` on g's database and returns where it listens, the
// cancel that stops it (SIGTERM) and where its Run returns.
func startWatch(t *testing.T, g *Globals) (string, context.CancelFunc, chan error) {
	t.Helper()
	w := startWatchWith(t, g, serveFlags{Listen: "127.0.0.1:0"})
	return w.addr(t, "the status page"), w.cancel, w.done
}

// runningWatch is a `watch` started by startWatchWith.
type runningWatch struct {
	stderr *runnertest.Buffer
	cancel context.CancelFunc
	done   chan error
}

// startWatchWith runs `watch` with the serve flags f on g's database.
func startWatchWith(t *testing.T, g *Globals, f serveFlags) *runningWatch {
	t.Helper()
	var stdout runnertest.Buffer
	w := &runningWatch{stderr: &runnertest.Buffer{}, done: make(chan error, 1)}
	a := newApp(g, nil, &stdout, w.stderr)
	t.Cleanup(a.close)
	ctx, cancel := context.WithCancel(t.Context())
	t.Cleanup(cancel)
	w.cancel = cancel
	go func() {
		w.done <- (&watchCmd{Interval: 20 * time.Millisecond, StaleAfter: time.Hour, serveFlags: f}).Run(ctx, a)
	}()
	return w
}

// addr is the address where the watch says it serves what ("the status page", "/metrics").
func (w *runningWatch) addr(t *testing.T, what string) string {
	t.Helper()
	addrRe := regexp.MustCompile(`msg="serving ` + regexp.QuoteMeta(what) + `" addr=([^ ]+)`)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if m := addrRe.FindStringSubmatch(w.stderr.String()); m != nil {
			return m[1]
		}
		select {
		case err := <-w.done:
			t.Fatalf("watch ended: %v; stderr:\n%s", err, w.stderr.String())
		default:
		}
	}
	t.Fatalf("the server never said where it serves %s; stderr:\n%s", what, w.stderr.String())
	return ""
}

// get returns the body of GET http://addr/path.
func get(t *testing.T, addr, path string) string {
	t.Helper()
	resp, err := http.Get("http://" + addr + path)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s\n%s", path, resp.Status, b)
	}
	return string(b)
}

// emptyDB is a new, empty database (watch creates none).
func emptyDB(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kupgrade.db")
	st, err := sqlite.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	return path
}
