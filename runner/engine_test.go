package runner_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/internal/fault"
	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/runner/runnertest"
)

func TestFailedHostLeavesThePlayOthersGoOn(t *testing.T) {
	recap, err, rec := run(t, &runnertest.LocalDialer{}, threeHosts, `- hosts: all
  gather_facts: false
  tasks:
    - name: break h2
      command: "false"
      when: inventory_hostname == 'h2'
    - name: after
      command: "true"
`, runner.PlayOptions{})
	if err == nil || !strings.Contains(err.Error(), "h2") {
		t.Fatalf("err = %v, want h2's failure", err)
	}
	if got := rec.results("h2"); joined(got) != "task_failed break h2" {
		t.Errorf("h2 results = %q, want only the failure", got)
	}
	for _, h := range []string{"h1", "h3"} {
		if got := rec.results(h); !contains(got, "task_changed after") {
			t.Errorf("%s did not go on: %q", h, got)
		}
	}
	if r := recap.Hosts["h2"]; r.Failed != 1 || r.OK != 0 {
		t.Errorf("h2 recap = %+v", r)
	}
	if r := recap.Hosts["h1"]; r.Skipped != 1 || r.Changed != 1 || r.Failed != 0 {
		t.Errorf("h1 recap = %+v", r)
	}
	if len(recap.Failures) != 1 || recap.Failures[0].Host != "h2" || recap.Failures[0].Task != "break h2" {
		t.Errorf("failures = %+v", recap.Failures)
	}
	if rc := recap.Failures[0].Result["rc"]; rc != 1 {
		t.Errorf("failure rc = %v, want 1", rc)
	}
}

func TestHandlersRunOnceAtTheEndOnNotifiedHosts(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "log")
	_, err, rec := run(t, &runnertest.LocalDialer{}, threeHosts, `- hosts: all
  gather_facts: false
  vars:
    log: `+log+`
  tasks:
    - name: change
      command: "true"
      changed_when: inventory_hostname != 'h3'
      notify: [restart]
    - name: change again
      command: "true"
      notify: restart
    - name: last task
      shell: echo "task {{ inventory_hostname }}" >> {{ log }}
  handlers:
    - name: restart
      shell: echo "handler {{ inventory_hostname }}" >> {{ log }}
    - name: never notified
      shell: echo "unexpected" >> {{ log }}
`, runner.PlayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(log)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 6 || !strings.HasPrefix(lines[3], "handler") || strings.Contains(string(b), "unexpected") {
		t.Errorf("log =\n%s\nwant 3 task lines then 3 handler lines (each host once), no other handler", b)
	}
	if got := rec.results("h1"); got[len(got)-1] != "task_changed restart" {
		t.Errorf("h1 results = %q", got)
	}
}

func TestBlockRescueAlways(t *testing.T) {
	recap, err, rec := run(t, &runnertest.LocalDialer{}, threeHosts, `- hosts: all
  gather_facts: false
  tasks:
    - name: guarded
      block:
        - name: may fail
          command: "false"
          when: inventory_hostname != 'h3'
        - name: rest of block
          command: "true"
      rescue:
        - name: rescue
          debug:
            msg: "rescued {{ ansible_failed_task.name }}"
          when: inventory_hostname == 'h1'
        - name: rescue fails on h2
          fail:
            msg: no way
          when: inventory_hostname == 'h2'
      always:
        - name: always
          command: "true"
    - name: after
      command: "true"
`, runner.PlayOptions{})
	if err == nil {
		t.Fatal("want h2's failure")
	}
	want := map[string][]string{
		"h1": {"task_failed may fail", "task_ok rescue", "task_skipped rescue fails on h2", "task_changed always", "task_changed after"},
		"h2": {"task_failed may fail", "task_skipped rescue", "task_failed rescue fails on h2", "task_changed always"},
		"h3": {"task_skipped may fail", "task_changed rest of block", "task_changed always", "task_changed after"},
	}
	for h, w := range want {
		if got := rec.results(h); joined(got) != joined(w) {
			t.Errorf("%s results:\n%s\nwant:\n%s", h, joined(got), joined(w))
		}
	}
	if recap.Hosts["h1"].Rescued != 1 || recap.Hosts["h2"].Failed != 1 || recap.Hosts["h1"].Failed != 0 {
		t.Errorf("recap h1 %+v h2 %+v", recap.Hosts["h1"], recap.Hosts["h2"])
	}
	if e, _ := rec.find("h1", "rescue"); e.Msg != "rescued may fail" {
		t.Errorf("rescue msg = %q", e.Msg)
	}
}

func TestAlwaysRunsAndFailureStandsWithoutRescue(t *testing.T) {
	recap, err, rec := run(t, &runnertest.LocalDialer{}, "all:\n  hosts:\n    h1:\n", `- hosts: all
  gather_facts: false
  tasks:
    - block:
        - name: boom
          command: "false"
      always:
        - name: cleanup
          command: "true"
    - name: never reached
      command: "true"
`, runner.PlayOptions{})
	if err == nil || recap.Hosts["h1"].Failed != 1 {
		t.Fatalf("err = %v, recap %+v: the failure must stand", err, recap.Hosts["h1"])
	}
	if got := joined(rec.results("h1")); got != "task_failed boom\ntask_changed cleanup" {
		t.Errorf("results:\n%s", got)
	}
}

func TestConditionsRetriesAndIgnoreErrors(t *testing.T) {
	dir := t.TempDir()
	counter := filepath.Join(dir, "n")
	recap, err, rec := run(t, &runnertest.LocalDialer{}, "all:\n  hosts:\n    h1:\n", `- hosts: all
  gather_facts: false
  tasks:
    - name: count
      shell: echo x >> `+counter+`; wc -l < `+counter+`
      register: n
      until: n.stdout | int >= 3
      retries: 5
      delay: 0
    - name: failed_when on output
      shell: echo all good; exit 3
      register: out
      failed_when: "'bad' in stdout"
      changed_when: rc == 3
    - name: ignored
      command: "false"
      ignore_errors: true
    - name: retries run out
      command: "true"
      register: never
      until: never.rc == 1
      retries: 1
      delay: "0s"
      ignore_errors: yes
    - name: until met on a failed command
      command: "false"
      register: met
      until: met.rc == 1
      retries: 3
      delay: 0
      ignore_errors: true
    - name: report
      debug:
        msg: "{{ n.attempts }} {{ out.rc }} {{ out.failed }} {{ never.attempts }} {{ met.attempts }} {{ met.failed }}"
`, runner.PlayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if e, _ := rec.find("h1", "report"); e.Msg != "3 3 False 1 1 True" {
		t.Errorf("report = %q, want attempts 3, rc 3 not failed, attempts 1 once retries: 1 ran out (Ansible reports retries), and a failed command whose until is met failed after 1 attempt", e.Msg)
	}
	if e, _ := rec.find("h1", "failed_when on output"); e.Event != runner.EventTaskChanged {
		t.Errorf("changed_when rc == 3 gave %s", e.Event)
	}
	if recap.Hosts["h1"].Ignored != 3 {
		t.Errorf("ignored = %d, want 3", recap.Hosts["h1"].Ignored)
	}
}

func TestTimeoutKillsTheCommand(t *testing.T) {
	dir := t.TempDir()
	pidfile := filepath.Join(dir, "pid")
	recap, err, rec := run(t, &runnertest.LocalDialer{}, "all:\n  hosts:\n    h1:\n", `- hosts: all
  gather_facts: false
  vars:
    limit: 1
  tasks:
    - name: slow
      shell: echo $$ > `+pidfile+`; exec sleep 60
      timeout: "{{ limit }}"
`, runner.PlayOptions{})
	if err == nil {
		t.Fatal("want a timeout failure")
	}
	if e, _ := rec.find("h1", "slow"); e.Event != runner.EventTaskFailed || e.Msg != "timed out after 1s" {
		t.Errorf("event = %s %q", e.Event, e.Msg)
	}
	if recap.Hosts["h1"].Unreachable != 0 {
		t.Error("a timeout is a failure, not an unreachable host")
	}
	assertGone(t, pidfile)
}

func TestUnreachableHost(t *testing.T) {
	d := &runnertest.FakeDialer{Unreachable: map[string]error{"h2": errors.New("connection refused")}}
	recap, err, rec := run(t, d, threeHosts, `- hosts: all
  gather_facts: false
  tasks:
    - command: "true"
`, runner.PlayOptions{})
	if !errors.Is(err, fault.ErrUnreachable) {
		t.Fatalf("err = %v, want an unreachable one", err)
	}
	if recap.Hosts["h2"].Unreachable != 1 || recap.Hosts["h1"].Changed != 1 {
		t.Errorf("recap h1 %+v h2 %+v", recap.Hosts["h1"], recap.Hosts["h2"])
	}
	if got := rec.results("h2"); joined(got) != "host_unreachable " {
		t.Errorf("h2 events = %q", got)
	}
}

func TestDroppedConnectionIsRedialed(t *testing.T) {
	d := &runnertest.FakeDialer{Results: map[string]runnertest.Result{"kubeadm": {Drop: true}}}
	i, p := setup(t, "all:\n  hosts:\n    h1:\n", `- hosts: all
  gather_facts: false
  tasks:
    - name: kubeadm
      command: kubeadm upgrade node
    - command: "true"
`)
	rec := &recorder{}
	r := runner.New(d, runner.Options{Reporter: rec})
	defer r.Close()
	recap, err := r.Play(t.Context(), p, i, runner.PlayOptions{})
	if !errors.Is(err, fault.ErrUnreachable) || recap.Hosts["h1"].Unreachable != 1 {
		t.Fatalf("err = %v recap %+v, want h1 unreachable", err, recap.Hosts["h1"])
	}
	if got := rec.results("h1"); joined(got) != "host_unreachable kubeadm" {
		t.Errorf("events = %q", got)
	}
	first := d.Conns("h1")[0]
	if !first.Closed() {
		t.Error("the broken connection was not closed")
	}
	h, _ := i.Host("h1")
	c, err := r.Conn(t.Context(), h)
	if err != nil || c == runner.Conn(first) || len(d.Conns("h1")) != 2 {
		t.Errorf("Conn after a drop: err %v, dials %d: want a fresh connection", err, len(d.Conns("h1")))
	}
}

func TestConnectionsAreReusedAcrossPlays(t *testing.T) {
	d := &runnertest.LocalDialer{}
	i, p := setup(t, threeHosts, `- hosts: all
  gather_facts: false
  tasks:
    - command: "true"
    - command: "true"
- hosts: controllers
  gather_facts: false
  tasks:
    - command: "true"
`)
	r := runner.New(d, runner.Options{Forks: 2})
	defer r.Close()
	for range 2 {
		if _, err := r.Play(t.Context(), p, i, runner.PlayOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, h := range []string{"h1", "h2", "h3"} {
		if n := d.Dials(h); n != 1 {
			t.Errorf("%s dialed %d times, want 1", h, n)
		}
	}
}

func TestCancelStopsThePlayAndTheCommand(t *testing.T) {
	dir := t.TempDir()
	pidfile := filepath.Join(dir, "pid")
	i, p := setup(t, "all:\n  hosts:\n    h1:\n", `- hosts: all
  gather_facts: false
  tasks:
    - name: slow
      shell: echo $$ > `+pidfile+`; exec sleep 60
    - name: never
      command: "true"
`)
	ctx, cancel := context.WithCancel(t.Context())
	rec := &recorder{}
	r := runner.New(&runnertest.LocalDialer{}, runner.Options{Reporter: rec})
	defer r.Close()
	go func() {
		for {
			if b, _ := os.ReadFile(pidfile); strings.HasSuffix(string(b), "\n") {
				cancel()
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	_, err := r.Play(ctx, p, i, runner.PlayOptions{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled in the chain (exit 130)", err)
	}
	if _, ran := rec.find("h1", "never"); ran {
		t.Error("the play went on after cancellation")
	}
	assertGone(t, pidfile)
}

func TestGatherFacts(t *testing.T) {
	recap, err, _ := run(t, &runnertest.LocalDialer{}, "all:\n  hosts:\n    h1:\n", `- hosts: all
  gather_facts: true
  tasks:
    - name: show
      set_fact:
        summary: "{{ ansible_kernel != '' and ansible_architecture != '' and ansible_hostname != '' and ansible_facts.os_family == ansible_os_family }}"
`, runner.PlayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := recap.Registered["h1"]["summary"]; got != true {
		t.Errorf("facts incomplete: summary = %v, registered %v", got, recap.Registered["h1"])
	}
}

// TestLazyPlayVarsAndOmit: play vars use each other in any order (rendered when read, as in
// Ansible), a self-reference fails clearly, and an argument rendering to omit is left out.
func TestLazyPlayVarsAndOmit(t *testing.T) {
	for range 5 { // map order varies from run to run
		recap, err, rec := run(t, &runnertest.LocalDialer{}, "all:\n  hosts:\n    h1:\n      ip: 10.0.0.1\n", `- hosts: all
  gather_facts: false
  vars:
    url: "{{ scheme }}://{{ endpoint }}"
    endpoint: "{{ ip }}:{{ port }}"
    scheme: https
    port: 6443
    self_a: "{{ self_b }}"
    self_b: "{{ self_a }}"
  tasks:
    - name: show
      debug: {msg: "{{ url }}"}
    - name: facts
      set_fact:
        kept: "{{ port }}"
        dropped: "{{ nothing | default(omit) }}"
    - name: loop
      debug: {msg: "{{ self_a }}"}
      ignore_errors: true
`, runner.PlayOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if e, _ := rec.find("h1", "show"); e.Msg != "https://10.0.0.1:6443" {
			t.Fatalf("url = %q", e.Msg)
		}
		facts := recap.Registered["h1"]
		if _, ok := facts["dropped"]; ok || facts["kept"] != 6443 {
			t.Errorf("set_fact with omit registered %v", facts)
		}
		if e, _ := rec.find("h1", "loop"); !strings.Contains(e.Msg, "recursive loop detected in template: self_a -> self_b -> self_a") {
			t.Errorf("self-reference: %q", e.Msg)
		}
	}
}

// TestUndefinedNamesVariableAndTask: an undefined variable fails the task with Ansible's
// message and the task's file:line.
func TestUndefinedNamesVariableAndTask(t *testing.T) {
	_, _, rec := run(t, &runnertest.LocalDialer{}, "all:\n  hosts:\n    h1:\n", `- hosts: all
  gather_facts: false
  tasks:
    - name: cond
      debug: {msg: hi}
      when: kube_version is version('1.29', '>=')
      ignore_errors: true
    - name: arg
      debug: {msg: "{{ missing_thing.sub }}"}
      ignore_errors: true
    - name: soft
      debug: {msg: "{{ missing_thing.sub | default('fine') }}"}
`, runner.PlayOptions{})
	for task, want := range map[string]string{
		"cond": `site.yml:4:7: when "kube_version is version('1.29', '>=')": 'kube_version' is undefined`,
		"arg":  `site.yml:8:7: arguments: 'missing_thing' is undefined`,
		"soft": "fine",
	} {
		if e, _ := rec.find("h1", task); !strings.HasSuffix(e.Msg, want) {
			t.Errorf("%s: %q, want it to end with %q", task, e.Msg, want)
		}
	}
}
