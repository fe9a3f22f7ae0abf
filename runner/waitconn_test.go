package runner_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/kupgrade/kupgrade/inventory"
	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/runner/runnertest"
	"github.com/kupgrade/kupgrade/runner/sshconn/sshtest"
)

// downDialer refuses the dials of a host from its second on: all of them (forever), or the
// next `down` of them (a host that comes back).
type downDialer struct {
	runnertest.LocalDialer
	mu      sync.Mutex
	dials   map[string]int
	down    int
	forever map[string]bool
}

func (d *downDialer) Dial(ctx context.Context, h *inventory.Host) (runner.Conn, error) {
	d.mu.Lock()
	d.dials[h.Name]++
	n := d.dials[h.Name]
	d.mu.Unlock()
	if n > 1 && (d.forever[h.Name] || n <= 1+d.down) {
		return nil, fmt.Errorf("connection refused")
	}
	return d.LocalDialer.Dial(ctx, h)
}

// wait_for_connection dials the host again until a ping answers: a host that refuses two dials
// and then answers is waited for, and the play goes on over the new connection; one that never
// answers fails the task after timeout with Ansible's message.
func TestWaitForConnection(t *testing.T) {
	d := &downDialer{dials: map[string]int{}, down: 2, forever: map[string]bool{"h2": true}}
	recap, _, rec := run(t, d, "all:\n  hosts:\n    h1:\n    h2:\n", `- hosts: all
  gather_facts: false
  tasks:
    - {name: first, command: "true"}
    - {name: back, wait_for_connection: {sleep: 0, timeout: 2}, register: back}
    - {name: after, command: echo after, register: after}
`, runner.PlayOptions{})
	if got := regField(t, recap, "h1", "after", "stdout"); got != "after" {
		t.Errorf("h1 after the wait ran %v, want after", got)
	}
	d.mu.Lock()
	dials := d.dials["h1"]
	d.mu.Unlock()
	if dials != 4 {
		t.Errorf("h1 was dialled %d times, want 4 (the play's, two refused, the one that answered)", dials)
	}
	if _, ok := regField(t, recap, "h1", "back", "elapsed").(int); !ok {
		t.Errorf("h1's result has no elapsed seconds: %v", recap.Registered["h1"]["back"])
	}
	if m := fmt.Sprint(regField(t, recap, "h2", "back", "msg")); !strings.HasPrefix(m, "timed out waiting for ping module test: ") || !strings.Contains(m, "refused") {
		t.Errorf("h2 says %q, want Ansible's timed out message", m)
	}
	if got := joined(rec.results("h2")); strings.Contains(got, "after") {
		t.Errorf("h2 ran on after its wait failed:\n%s", got)
	}
	if rc := recap.Hosts["h2"]; rc.Failed != 1 || rc.Unreachable != 0 {
		t.Errorf("h2 recap = %+v, want failed=1 unreachable=0", *rc)
	}
}

// Over SSH: a pooled connection whose server dropped it is no obstacle to wait_for_connection,
// which dials again; the task after it runs over the new connection.
func TestWaitForConnectionOverSSH(t *testing.T) {
	s := sshtest.NewServer(t)
	i, first := setup(t, sshInventory(s), "- hosts: all\n  gather_facts: false\n  tasks:\n    - command: \"true\"\n")
	r := runner.New(sshDialer{s.Dialer()}, runner.Options{})
	defer r.Close()
	if _, err := r.Play(t.Context(), first, i, runner.PlayOptions{}); err != nil {
		t.Fatal(err)
	}
	s.Drop()
	_, p := setup(t, sshInventory(s), `- hosts: all
  gather_facts: false
  tasks:
    - wait_for_connection: {sleep: 1, timeout: 20, connect_timeout: 5}
    - command: "true"
`)
	recap, err := r.Play(t.Context(), p, i, runner.PlayOptions{})
	if err != nil {
		t.Fatalf("after a drop, wait_for_connection then a command: %v", err)
	}
	if rc := recap.Hosts["n0"]; rc.OK != 2 || rc.Unreachable != 0 {
		t.Errorf("recap %+v, want ok=2", *rc)
	}
	if s.Connections() != 2 {
		t.Errorf("connections = %d, want 2 (wait_for_connection dialled again)", s.Connections())
	}
}
