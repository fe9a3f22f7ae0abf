package runner_test

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/kupgrade/kupgrade/inventory"
	"github.com/kupgrade/kupgrade/playbooks"
	"github.com/kupgrade/kupgrade/runner"
)

// threeHosts is an inventory of three hosts, two of them controllers.
const threeHosts = `all:
  vars:
    color: blue
  hosts:
    h1:
    h2:
    h3:
  children:
    controllers:
      hosts:
        h1:
        h2:
`

// setup writes an inventory and a playbook into a temporary folder and loads both.
func setup(t *testing.T, inv, pb string) (*inventory.Inventory, *playbooks.Playbook) {
	return setupB(t, inv, pb)
}

func setupB(t testing.TB, inv, pb string) (*inventory.Inventory, *playbooks.Playbook) {
	t.Helper()
	dir := t.TempDir()
	ip := filepath.Join(dir, "inventory.yml")
	pp := filepath.Join(dir, "site.yml")
	if err := os.WriteFile(ip, []byte(inv), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pp, []byte(pb), 0o644); err != nil {
		t.Fatal(err)
	}
	i, err := inventory.Load(ip)
	if err != nil {
		t.Fatalf("load inventory: %v", err)
	}
	p, err := playbooks.Load(pp)
	if err != nil {
		t.Fatalf("load playbook: %v", err)
	}
	return i, p
}

// recorder keeps every event.
type recorder struct {
	mu     sync.Mutex
	events []runner.Event
}

func (r *recorder) Report(e runner.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
}

// results lists "event task" for host's task results, in order.
func (r *recorder) results(host string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, e := range r.events {
		if e.Host == host && e.Event != runner.EventTaskStart {
			out = append(out, string(e.Event)+" "+e.Task)
		}
	}
	return out
}

func (r *recorder) find(host, task string) (runner.Event, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range r.events {
		if e.Host == host && e.Task == task && e.Event != runner.EventTaskStart {
			return e, true
		}
	}
	return runner.Event{}, false
}

// run plays pb on inv through d and returns the recap, the error and the events.
func run(t *testing.T, d runner.Dialer, inv, pb string, po runner.PlayOptions) (*runner.Recap, error, *recorder) {
	t.Helper()
	i, p := setup(t, inv, pb)
	rec := &recorder{}
	r := runner.New(d, runner.Options{Reporter: rec})
	t.Cleanup(func() { r.Close() })
	recap, err := r.Play(t.Context(), p, i, po)
	if recap == nil {
		t.Fatalf("Play returned no recap (err %v)", err)
	}
	return recap, err, rec
}

func contains(ss []string, s string) bool { return slices.Contains(ss, s) }

func joined(ss []string) string { return strings.Join(ss, "\n") }

func fmtInt(n int) string { return strconv.Itoa(n) }
