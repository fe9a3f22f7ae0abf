package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/notify"
	"github.com/kupgrade/kupgrade/recovery"
	"github.com/kupgrade/kupgrade/state"
)

// webhook is an httptest receiver of notifications on 127.0.0.1.
type webhook struct {
	mu     sync.Mutex
	events []notify.Event
	srv    *httptest.Server
}

func newWebhook(t *testing.T) *webhook {
	h := &webhook{}
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var e notify.Event
		if err := json.NewDecoder(r.Body).Decode(&e); err != nil {
			t.Errorf("webhook body: %v", err)
		}
		h.mu.Lock()
		h.events = append(h.events, e)
		h.mu.Unlock()
	}))
	t.Cleanup(h.srv.Close)
	return h
}

func (h *webhook) of(kind, cluster string) []notify.Event {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []notify.Event
	for _, e := range h.events {
		if e.Kind == kind && e.Cluster == cluster {
			out = append(out, e)
		}
	}
	return out
}

// A fleet run posts each cluster it failed (state, host, the probe's finding, the next command)
// and each it completed.
func TestNotifyFleetFailedAndCompleted(t *testing.T) {
	f := startFleet(t, 2, every(2))
	h := newWebhook(t)
	db := "sqlite:" + filepath.Join(t.TempDir(), "k.db")
	code, out, _ := kupgrade(t, "--db", db, "--notify-url", h.srv.URL, "fleet", "run", "--to", "v1.30.1", "--inventories", f.Inventories)
	if code != 1 {
		t.Fatalf("fleet run with a late failure: exit %d, want 1\n%s", code, out)
	}
	failed, done := f.Clusters[1].Name, f.Clusters[0].Name
	fe := h.of(notify.Failed, failed)
	if len(fe) != 1 || fe[0].State != string(state.UpgradingSecondMaster)+"-failed" || fe[0].Host == "" ||
		!strings.Contains(fe[0].Finding, "kubelet-config-rewritten") || !strings.HasPrefix(fe[0].Next, "kupgrade ") {
		t.Errorf("failed notifications of %s: %+v", failed, fe)
	}
	ce := h.of(notify.Completed, done)
	if len(ce) != 1 || ce[0].State != string(state.UpgradeComplete) || !strings.HasPrefix(ce[0].Next, "kupgrade upgrade delete") {
		t.Errorf("completed notifications of %s: %+v", done, ce)
	}
	if n := len(h.of(notify.Completed, failed)); n != 0 {
		t.Errorf("the failed cluster was notified complete %d times", n)
	}
}

// `upgrade run` posts its completion; KUPGRADE_NOTIFY_URL is --notify-url's variable.
func TestNotifyUpgradeRunCompleted(t *testing.T) {
	f := startFleet(t, 1, nil)
	h := newWebhook(t)
	t.Setenv("KUPGRADE_NOTIFY_URL", h.srv.URL)
	c := f.Clusters[0].Name
	base := []string{"--db", "sqlite:" + filepath.Join(t.TempDir(), "k.db"), "-i", filepath.Join(f.Inventories, c+".yml")}
	for _, args := range [][]string{{"upgrade", "start", "v1.30.1"}, {"upgrade", "run", "-y"}} {
		if code, out, errs := kupgrade(t, append(base, args...)...); code != 0 {
			t.Fatalf("%v: exit %d\n%s%s", args, code, out, errs)
		}
	}
	if ce := h.of(notify.Completed, c); len(ce) != 1 || !strings.Contains(ce[0].Message, "v1.29.4 to v1.30.1") {
		t.Errorf("completed notifications: %+v", h.events)
	}
}

// A webhook that never answers changes neither the run's outcome nor its output.
func TestNotifyHangingWebhookDoesNotFailTheRun(t *testing.T) {
	f := startFleet(t, 1, nil)
	release := make(chan struct{})
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer hang.Close()
	defer close(release)
	c := f.Clusters[0].Name
	base := []string{"--db", "sqlite:" + filepath.Join(t.TempDir(), "k.db"), "-i", filepath.Join(f.Inventories, c+".yml"), "--notify-url", hang.URL}
	kupgrade(t, append(base, "upgrade", "start", "v1.30.1")...)
	code, out, errs := kupgrade(t, append(base, "upgrade", "run", "-y")...)
	if code != 0 || !strings.Contains(out, "now upgrade-complete") || !strings.Contains(errs, "webhook notifications lost") {
		t.Fatalf("upgrade run with a hanging webhook: exit %d\n%s%s", code, out, errs)
	}
}

func TestNotifyURLBadInput(t *testing.T) {
	code, _, errs := kupgrade(t, "--notify-url", "hooks.example/services/T01/B02/XXsecretXX", "version")
	if code != exitBadInput || !strings.Contains(errs, "--notify-url") {
		t.Fatalf("exit %d, want %d naming --notify-url:\n%s", code, exitBadInput, errs)
	}
	if strings.Contains(errs, "secret") {
		t.Fatalf("the refusal shows the webhook's token:\n%s", errs)
	}
}

// The watch notifies a stuck operation once however many polls see it, and again when a new
// episode starts after one pass without it.
func TestNotifyStuckOncePerEpisode(t *testing.T) {
	h := newWebhook(t)
	a := newApp(&Globals{NotifyURL: h.srv.URL, Output: "table", LogLevel: "info", LogFormat: "text"}, nil, &strings.Builder{}, &strings.Builder{})
	if err := a.openNotifier(); err != nil {
		t.Fatal(err)
	}
	s := &stuckNotifier{a: a, store: nil}
	stuck := recovery.AuditReport{Now: time.Now(), Actions: []recovery.Action{{Cluster: "edge", Host: "controller-1",
		FromState: state.UpgradingSecondMaster, Why: recovery.WhyLeaseExpired, Msg: "lease expired", Outcome: recovery.OutcomeError}}}
	for _, rep := range []recovery.AuditReport{stuck, stuck, stuck, {}, stuck} {
		s.onPass(rep)
	}
	a.close()
	se := h.of(notify.Stuck, "edge")
	if len(se) != 2 || se[0].Host != "controller-1" || se[0].State != string(state.UpgradingSecondMaster) || se[0].Finding != recovery.WhyLeaseExpired {
		t.Fatalf("stuck notifications: %+v, want 2 (two episodes)", se)
	}
}

// `watch` posts an operation whose lease expired (its holder died), with the next command.
func TestNotifyWatchStuck(t *testing.T) {
	h := newWebhook(t)
	db, inv, _ := handEdited(t, t.TempDir(), "controller-0: {ansible_host: 127.0.0.1, ansible_port: 1}\n        controller-1: {ansible_host: 127.0.0.1, ansible_port: 1}",
		`UPDATE kube_upgrade SET state = 'upgrading-second-master'`,
		`UPDATE kube_host_upgrade SET status = 'upgrading-control-plane', target_version = 'v1.30.1' WHERE host_id = (SELECT id FROM host WHERE hostname = 'controller-1')`,
		`INSERT INTO upgrade_lease (cluster, owner, operation, acquired_at, heartbeat_at, expires_at) VALUES ('default', 'host-b:7:cd', 'control-plane@controller-1', datetime('now', '-2 hour'), datetime('now', '-2 hour'), datetime('now', '-1 hour'))`)
	if code, out, errs := kupgrade(t, "--db", db, "-i", inv, "--notify-url", h.srv.URL, "watch", "--once"); code != 0 {
		t.Fatalf("watch --once: exit %d\n%s%s", code, out, errs)
	}
	se := h.of(notify.Stuck, "default")
	if len(se) != 1 || se[0].State != string(state.UpgradingSecondMaster) || se[0].Finding == "" || !strings.HasPrefix(se[0].Next, "kupgrade ") {
		t.Fatalf("stuck notifications: %+v", se)
	}
}
