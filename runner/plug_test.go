package runner_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/modules"
	"github.com/kupgrade/kupgrade/playbooks"
	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/runner/runnertest"
)

// echoModule is a caller's module: it prints its say argument through an environment variable
// and exits 1 when fail is set; it registers what the host printed.
func echoModule(ctx context.Context, task *modules.Task, args map[string]any) (modules.Result, error) {
	exec := task.Exec()
	env := map[string]string{"GREETING": fmt.Sprint(args["say"])}
	if args["fail"] == true {
		env["FAIL"] = "1"
	}
	rc, stdout, stderr, err := exec(ctx, `printf %s "$GREETING"; [ -z "$FAIL" ] || { echo refused >&2; exit 1; }`, env)
	if err != nil {
		return nil, err
	}
	if rc != 0 {
		return nil, fmt.Errorf("echo: exit %d: %s", rc, strings.TrimSpace(stderr))
	}
	return map[string]any{"changed": false, "said": stdout}, nil
}

func echoPlay(tasks ...*playbooks.Task) *playbooks.Playbook {
	return &playbooks.Playbook{File: "/nonexistent/p.yml", Plays: []*playbooks.Play{{Name: "plug", Hosts: "all", Tasks: tasks}}}
}

func TestPluggedModule(t *testing.T) {
	i, _ := setup(t, "all:\n  hosts:\n    h1:\n", "- hosts: all\n  tasks: []\n")
	pb := echoPlay(
		&playbooks.Task{Name: "say", Module: "echo", Args: map[string]any{"say": "{{ word }}"}, Register: "said"},
		&playbooks.Task{Name: "debug stays built in", Module: "debug", Args: map[string]any{"msg": "built-in"}, Register: "dbg"},
		&playbooks.Task{Name: "refuse", Module: "echo", Args: map[string]any{"say": "x", "fail": true}},
	)
	mods := modules.Builtins()
	if err := mods.Add("echo", echoModule); err != nil {
		t.Fatal(err)
	}
	if err := mods.Add("debug", echoModule); err == nil || err.Error() != `add module "debug": the name is taken` {
		t.Errorf("adding debug: %v, want a refusal: a caller's module must not replace a built-in one", err)
	}
	r := runner.New(&runnertest.LocalDialer{}, runner.Options{Modules: mods})
	defer r.Close()
	recap, err := r.Play(t.Context(), pb, i, runner.PlayOptions{ExtraVars: map[string]any{"word": "it's me"}})
	if err == nil || len(recap.Failures) != 1 {
		t.Fatalf("err = %v, failures %v: the refuse task must fail the host", err, recap.Failures)
	}
	if got := recap.Registered["h1"]["said"].(map[string]any)["said"]; got != "it's me" {
		t.Errorf("the plugged module registered %q, want the templated argument as the host printed it", got)
	}
	if got := recap.Registered["h1"]["dbg"].(map[string]any)["msg"]; got != "built-in" {
		t.Errorf("debug registered %v: a plugged module must not replace a built-in one", recap.Registered["h1"]["dbg"])
	}
	if f := recap.Failures[0]; f.Task != "refuse" || f.Result["msg"] != "echo: exit 1: refused" {
		t.Errorf("failure = %s %v, want the module's error as msg", f.Task, f.Result["msg"])
	}
}

func TestPluggedModuleRunsUnderBecome(t *testing.T) {
	i, _ := setup(t, "all:\n  hosts:\n    h1:\n", "- hosts: all\n  tasks: []\n")
	yes := true
	d := &runnertest.FakeDialer{}
	mods := modules.Builtins()
	if err := mods.Add("echo", echoModule); err != nil {
		t.Fatal(err)
	}
	r := runner.New(d, runner.Options{Modules: mods})
	defer r.Close()
	pb := echoPlay(&playbooks.Task{Name: "say", Module: "echo", Become: &yes, BecomeUser: "kube", Args: map[string]any{"say": "hi"}})
	if _, err := r.Play(t.Context(), pb, i, runner.PlayOptions{Check: true}); err != nil {
		t.Fatal(err)
	}
	calls := d.Conns("h1")[0].Calls()
	if len(calls) != 1 || !strings.HasPrefix(calls[0], "exec sudo -n -u root -- sh -c ") || !strings.Contains(calls[0], "exec env GREETING=hi sh -c") {
		t.Errorf("calls = %q, want one command as root under the task's become, in check mode too, with the env inside sudo", calls)
	}
}

func TestUnpluggedModuleIsUnknown(t *testing.T) {
	i, _ := setup(t, "all:\n  hosts:\n    h1:\n", "- hosts: all\n  tasks: []\n")
	r := runner.New(&runnertest.FakeDialer{}, runner.Options{})
	defer r.Close()
	recap, _ := r.Play(t.Context(), echoPlay(&playbooks.Task{Name: "say", Module: "kubelet_config"}), i, runner.PlayOptions{})
	if len(recap.Failures) != 1 || recap.Failures[0].Result["msg"] != `unknown module "kubelet_config"` {
		t.Errorf("failures = %v: the runner has no kubelet_config of its own", recap.Failures)
	}
}

func TestExecOn(t *testing.T) {
	rc, stdout, stderr, err := runner.ExecOn(&runnertest.LocalConn{}, false)(t.Context(), `echo "$A"; echo oops >&2; exit 3`, map[string]string{"A": "a b"})
	if err != nil || rc != 3 || stdout != "a b\n" || stderr != "oops\n" {
		t.Errorf("ExecOn = %d %q %q %v", rc, stdout, stderr, err)
	}
}

// TestCopyUnderBecomeInstalls checks the commands: compare first, upload to a temporary file,
// then one `sudo install` with mode and owner.
func TestCopyUnderBecomeInstalls(t *testing.T) {
	d := &runnertest.FakeDialer{}
	_, err, _ := run(t, d, "all:\n  hosts:\n    h1:\n", `- hosts: all
  gather_facts: false
  become: true
  tasks:
    - copy:
        content: "root only\n"
        dest: /etc/kubernetes/admin.conf
        mode: "0600"
        owner: root
`, runner.PlayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	calls := d.Conns("h1")[0].Calls()
	if len(calls) != 3 {
		t.Fatalf("calls = %q, want stat, upload, install", calls)
	}
	if !strings.HasPrefix(calls[0], "exec sudo -n -u root -- sh -c ") || !strings.Contains(calls[0], "sha256sum") {
		t.Errorf("first call = %s", calls[0])
	}
	if !strings.HasPrefix(calls[1], "upload /tmp/.kupgrade-") {
		t.Errorf("second call = %s", calls[1])
	}
	tmpName := strings.TrimPrefix(calls[1], "upload ")
	if want := "install -m 0600 -o root " + tmpName + " /etc/kubernetes/admin.conf"; !strings.HasPrefix(calls[2], "exec sudo -n -u root -- sh -c ") ||
		!strings.Contains(calls[2], want) {
		t.Errorf("third call = %s\nwant %s", calls[2], want)
	}
	if b, _ := d.Conns("h1")[0].File(tmpName); string(b) != "root only\n" {
		t.Errorf("uploaded %q", b)
	}
}
