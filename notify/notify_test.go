package notify

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func fast() Options {
	return Options{Timeout: 2 * time.Second, Attempts: 3, Backoff: time.Millisecond}
}

func TestPayloadNamesClusterStateHostFindingNext(t *testing.T) {
	got := make(chan map[string]any, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m map[string]any
		if r.Header.Get("Content-Type") != "application/json" || json.NewDecoder(r.Body).Decode(&m) != nil {
			t.Errorf("not a JSON POST: %s", r.Header.Get("Content-Type"))
		}
		got <- m
	}))
	defer srv.Close()
	n, err := New(srv.URL, fast())
	if err != nil {
		t.Fatal(err)
	}
	n.Send(Event{Kind: Failed, Cluster: "edge-1", State: "upgrading-first-master-failed", Host: "cp-0",
		Finding: "etcd unhealthy", Next: "kupgrade host upgrade cp-0 --control-plane", Message: "m"})
	if err := n.Close(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	m := <-got
	want := map[string]string{"event": "failed", "cluster": "edge-1", "state": "upgrading-first-master-failed",
		"host": "cp-0", "finding": "etcd unhealthy", "next": "kupgrade host upgrade cp-0 --control-plane"}
	for k, v := range want {
		if m[k] != v {
			t.Errorf("%s = %v, want %q", k, m[k], v)
		}
	}
	if _, ok := m["time"]; !ok {
		t.Error("no time")
	}
}

func TestRetriesOn500ThenDelivers(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) < 3 {
			w.WriteHeader(http.StatusInternalServerError)
		}
	}))
	defer srv.Close()
	n, _ := New(srv.URL, fast())
	n.Send(Event{Kind: Completed, Cluster: "c"})
	if err := n.Close(5 * time.Second); err != nil {
		t.Fatalf("third POST succeeded, yet: %v", err)
	}
	if c := calls.Load(); c != 3 {
		t.Fatalf("%d POSTs, want 3", c)
	}
}

func TestGivesUpAfterAttempts(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.WriteHeader(http.StatusBadGateway)
	}))
	defer srv.Close()
	o := fast()
	o.Attempts = 4
	n, _ := New(srv.URL+"/hook?token=secret", o)
	n.Send(Event{Kind: Failed, Cluster: "c"})
	err := n.Close(5 * time.Second)
	if err == nil || !strings.Contains(err.Error(), "1 of 1 events not delivered") {
		t.Fatalf("err = %v, want the event counted as not delivered", err)
	}
	if strings.Contains(err.Error(), "secret") {
		t.Fatalf("the error shows the URL's token: %v", err)
	}
	if c := calls.Load(); c != 4 {
		t.Fatalf("%d POSTs, want 4 then give up", c)
	}
}

// A webhook that never answers must hold neither Send nor Close beyond the drain deadline.
func TestHangingWebhookDoesNotDelayBeyondDeadline(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	o := fast()
	o.Timeout, o.Queue = time.Hour, 2
	n, _ := New(srv.URL, o)
	sent := make(chan struct{})
	go func() {
		for i := 0; i < 100; i++ { // more than the queue holds: the rest are dropped, not waited on
			n.Send(Event{Kind: Failed, Cluster: "c"})
		}
		close(sent)
	}()
	select {
	case <-sent:
	case <-time.After(time.Minute):
		t.Fatal("Send blocked on a hanging webhook")
	}
	closed := make(chan error)
	go func() { closed <- n.Close(50 * time.Millisecond) }()
	select {
	case err := <-closed:
		if err == nil {
			t.Fatal("nothing was delivered, yet Close reports no loss")
		}
	case <-time.After(time.Minute):
		t.Fatal("Close waited on the hanging webhook past its deadline")
	}
}

func TestBadURLRefusedEmptyIsOff(t *testing.T) {
	if _, err := New("ftp://x/y", Options{}); err == nil || !strings.Contains(err.Error(), "--notify-url") {
		t.Fatalf("err = %v", err)
	}
	n, err := New("", Options{})
	if n != nil || err != nil {
		t.Fatalf("empty URL: %v %v", n, err)
	}
	n.Send(Event{}) // a nil Notifier does nothing
	if n.Close(time.Second) != nil {
		t.Fatal("nil Close")
	}
}

// Slack, Discord and Teams keep the webhook's secret in its path: a loss report, whatever the
// cause (an error answer, a refused connection), and a refused URL show scheme and host only.
func TestLossReportShowsSchemeAndHostOnly(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadGateway)
	}))
	defer srv.Close()
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	const secretPart = "/services/T0001/B0002/XXXXsecretXXXX?token=qsecret"
	for _, base := range []string{srv.URL, closed.URL} {
		n, err := New(strings.Replace(base, "://", "://user:pwsecret@", 1)+secretPart, fast())
		if err != nil {
			t.Fatal(err)
		}
		n.Send(Event{Kind: Failed, Cluster: "c"})
		err = n.Close(5 * time.Second)
		if err == nil || !strings.Contains(err.Error(), "not delivered to "+base) {
			t.Fatalf("err = %v, want the loss reported with %s", err, base)
		}
		if strings.Contains(err.Error(), "secret") || strings.Contains(err.Error(), "/services") {
			t.Fatalf("the loss report shows more than scheme and host: %v", err)
		}
	}
	if _, err := New("ftp://hooks.example"+secretPart, Options{}); err == nil || strings.Contains(err.Error(), "secret") {
		t.Fatalf("a refused URL: %v, want an error that does not quote it", err)
	}
}

// A webhook that redirects (to another host, from https to http) gets the payload once and
// no one else does: the redirect is refused, not retried, and reported naming where it pointed.
func TestRedirectRefusedAndReported(t *testing.T) {
	var elsewhere atomic.Int32
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { elsewhere.Add(1) }))
	defer target.Close()
	var calls atomic.Int32
	redirect := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		http.Redirect(w, r, target.URL+"/collect/secret", http.StatusPermanentRedirect)
	})
	plain, tls := httptest.NewServer(redirect), httptest.NewTLSServer(redirect)
	defer plain.Close()
	defer tls.Close()
	for _, origin := range []*httptest.Server{plain, tls} {
		calls.Store(0)
		o := fast()
		o.Client = origin.Client()
		n, _ := New(origin.URL+"/hook", o)
		n.Send(Event{Kind: Failed, Cluster: "c"})
		err := n.Close(5 * time.Second)
		if err == nil || !strings.Contains(err.Error(), "redirect to "+target.URL+": redirects are refused") {
			t.Fatalf("%s: err = %v, want the refused redirect to %s reported", origin.URL, err, target.URL)
		}
		if strings.Contains(err.Error(), "secret") {
			t.Fatalf("the report shows the redirect's path: %v", err)
		}
		if c := calls.Load(); c != 1 {
			t.Errorf("%s: %d POSTs, want 1 (a redirect is not retried)", origin.URL, c)
		}
	}
	if c := elsewhere.Load(); c != 0 {
		t.Fatalf("the payload followed the redirect %d times", c)
	}
}
