package runner_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/internal/fault"
	"github.com/kupgrade/kupgrade/inventory"
	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/runner/sshconn"
	"github.com/kupgrade/kupgrade/runner/sshconn/sshtest"
)

// sshDialer is cmd's two-line adapter from *sshconn.Dialer to runner.Dialer.
type sshDialer struct{ d *sshconn.Dialer }

func (s sshDialer) Dial(ctx context.Context, h *inventory.Host) (runner.Conn, error) {
	c, err := s.d.Dial(ctx, h)
	if err != nil {
		return nil, err
	}
	return c, nil
}

// sshInventory is an inventory of one host per server.
func sshInventory(servers ...*sshtest.Server) string {
	var b strings.Builder
	b.WriteString("all:\n  hosts:\n")
	for i, s := range servers {
		fmt.Fprintf(&b, "    n%d:\n      ansible_host: 127.0.0.1\n      ansible_port: %d\n      ansible_user: %s\n      ansible_ssh_private_key_file: %s\n",
			i, s.Port, s.User, s.KeyFile)
	}
	return b.String()
}

func TestPlayOverSSH(t *testing.T) {
	s1 := sshtest.NewServer(t)
	s2 := sshtest.NewServer(t, sshtest.WithClientKey(s1.KeyFile), sshtest.WithKnownHosts(s1.KnownHosts))
	dir := t.TempDir()
	pidfile := filepath.Join(dir, "pid")
	out := t.TempDir()
	recap, err, rec := run(t, sshDialer{s1.Dialer()}, sshInventory(s1, s2), `- hosts: all
  gather_facts: true
  tasks:
    - name: hello
      command: echo hello {{ inventory_hostname }}
      register: hello
    - name: copy
      copy: {content: "payload\n", dest: "`+dir+`/{{ inventory_hostname }}.txt", mode: "0640"}
    - name: copy again
      copy: {content: "payload\n", dest: "`+dir+`/{{ inventory_hostname }}.txt", mode: "0640"}
    - name: stat
      stat: {path: "`+dir+`/{{ inventory_hostname }}.txt"}
      register: st
    - name: fetch
      fetch: {src: "`+dir+`/{{ inventory_hostname }}.txt", dest: `+out+`}
    - name: slow
      shell: "echo $$ > `+pidfile+`; exec sleep 60"
      timeout: 1
      when: inventory_hostname == 'n1'
    - name: after
      command: "true"
`, runner.PlayOptions{})
	if err == nil || !strings.Contains(err.Error(), "timed out after 1s") {
		t.Fatalf("err = %v, want n1's timeout", err)
	}
	if got := joined(rec.results("n0")); !strings.Contains(got, "task_changed copy\ntask_ok copy again") || !strings.HasSuffix(got, "task_changed after") {
		t.Errorf("n0 results:\n%s", got)
	}
	if got := recap.Registered["n0"]["hello"].(map[string]any)["stdout"]; got != "hello n0" {
		t.Errorf("stdout = %v", got)
	}
	if m := recap.Registered["n1"]["st"].(map[string]any)["stat"].(map[string]any); m["mode"] != "0640" || m["size"] != int64(8) {
		t.Errorf("stat = %v", m)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "n1", dir, "n1.txt")); string(b) != "payload\n" {
		t.Errorf("fetched %q", b)
	}
	if recap.Hosts["n1"].Failed != 1 || recap.Hosts["n0"].Failed != 0 {
		t.Errorf("recap %+v %+v", recap.Hosts["n0"], recap.Hosts["n1"])
	}
	waitGone(t, pidfile)
	if s1.Connections() != 1 || s2.Connections() != 1 {
		t.Errorf("connections: %d and %d, want one per host for the whole play", s1.Connections(), s2.Connections())
	}
}

func TestDroppedSSHConnectionRedials(t *testing.T) {
	s := sshtest.NewServer(t)
	i, p := setup(t, sshInventory(s), `- hosts: all
  gather_facts: false
  tasks:
    - name: first
      command: "true"
`)
	r := runner.New(sshDialer{s.Dialer()}, runner.Options{})
	defer r.Close()
	if _, err := r.Play(t.Context(), p, i, runner.PlayOptions{}); err != nil {
		t.Fatal(err)
	}
	s.Drop()
	recap, err := r.Play(t.Context(), p, i, runner.PlayOptions{})
	if !errors.Is(err, fault.ErrUnreachable) || recap.Hosts["n0"].Unreachable != 1 {
		t.Fatalf("after a drop: err %v recap %+v, want n0 unreachable", err, recap.Hosts["n0"])
	}
	if _, err := r.Play(t.Context(), p, i, runner.PlayOptions{}); err != nil {
		t.Fatalf("the next play must redial: %v", err)
	}
	if s.Connections() != 2 {
		t.Errorf("connections = %d, want 2 (one redial)", s.Connections())
	}
}
