package upgrade_test

import (
	"database/sql"
	"fmt"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/state"
	"github.com/kupgrade/kupgrade/upgrade"
)

func stepsOf(p *upgrade.Preview) string {
	var out []string
	for _, s := range p.Steps {
		out = append(out, upgrade.Action{Step: s.Step, Hosts: s.Hosts}.String())
	}
	return strings.Join(out, ", ")
}

// A plan before any upgrade reads the hosts, walks every step from `upgrade start`, and writes
// nothing: no upgrade row, no playbook run.
func TestPreviewBeforeStart(t *testing.T) {
	f := newFixture(t)
	p, err := f.w.Preview(t.Context(), upgrade.PreviewOptions{Version: "1.30.1"})
	if err != nil {
		t.Fatal(err)
	}
	want := "start, download-images, networking, first-master [controller-0], second-master [controller-1], kubelets [controller-0], kubelets [controller-1], kubelets [worker-0], complete"
	if got := stepsOf(p); got != want {
		t.Errorf("steps = %s\nwant %s", got, want)
	}
	if p.From != "v1.29.4" || p.To != "v1.30.1" || !p.Live || p.Refusal != nil || p.Next != "kupgrade upgrade start v1.30.1" {
		t.Errorf("preview = %+v", p)
	}
	if len(p.Versions) != 3 || p.Versions[0].ControlPlane != "v1.29.4" || p.Versions[2].Kubelet != "v1.29.4" {
		t.Errorf("versions = %+v", p.Versions)
	}
	cp := p.Steps[3]
	if cp.Playbook != "control-plane.yml" || len(cp.Tasks) == 0 || len(cp.Checks) != 1 || !cp.Checks[0].OK {
		t.Errorf("first-master step = %+v", cp)
	}
	var cmds []string
	for _, task := range cp.Tasks {
		cmds = append(cmds, task.Name+": "+task.Command)
	}
	if all := strings.Join(cmds, "\n"); !strings.Contains(all, "kubeadm upgrade apply v1.30.1 --yes") || strings.Contains(all, "{{ to_version") {
		t.Errorf("the first master's tasks are not rendered with the target (kubeadm upgrade apply v1.30.1 --yes):\n%s", all)
	}
	if sm := p.Steps[4]; !strings.Contains(fmt.Sprint(sm.Tasks), "kubeadm upgrade node") {
		t.Errorf("the second master's tasks do not run kubeadm upgrade node: %+v", sm.Tasks)
	}
	if us, err := f.st.Upgrades(t.Context()); err != nil || len(us) != 0 {
		t.Errorf("upgrades after a plan = %v, %v; want none", us, err)
	}
	if played := f.c.played(); len(played) != 0 {
		t.Errorf("plays run by a plan: %v", played)
	}
}

// Refusals of `upgrade start` stop the plan at its first step and name the reason.
func TestPreviewStartRefused(t *testing.T) {
	for _, tc := range []struct{ version, want string }{
		{"v1.31.0-rc.1", "pre-release"},
		{"v1.31.0", "skips a minor version"},
		{"v1.29.4", "already at"},
	} {
		f := newFixture(t)
		p, err := f.w.Preview(t.Context(), upgrade.PreviewOptions{Version: tc.version})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(fmt.Sprint(p.Refusal), tc.want) || p.Next != "" || len(p.Steps) != 1 || p.Steps[0].Checks[len(p.Steps[0].Checks)-1].OK {
			t.Errorf("%s: preview = %+v, want a refusal naming %q", tc.version, p, tc.want)
		}
	}
}

// A recorded upgrade resumes where it is: the next command is the next step's own.
func TestPreviewResumes(t *testing.T) {
	f := newFixture(t)
	f.at(t, state.UpgradedFirstMaster)
	plays := len(f.c.played())
	f.c.kubelet["controller-0"] = "v1.30.1" // read over SSH by the plan: its kubelet step is a skip
	p, err := f.w.Preview(t.Context(), upgrade.PreviewOptions{WorkerBatch: 2})
	if err != nil {
		t.Fatal(err)
	}
	want := "second-master [controller-1], kubelets [controller-0], kubelets [controller-1], kubelets [worker-0], complete"
	if got := stepsOf(p); got != want || p.Next != "kupgrade upgrade run" || p.Refusal != nil {
		t.Errorf("steps = %s, next %q, refusal %q\nwant %s", got, p.Next, p.Refusal, want)
	}
	// The plan cannot promise the skip: the run skips only a node the API server reports settled.
	if c := p.Steps[1].Checks[0]; !c.OK || !strings.Contains(c.Note, "once the API server reports the node settled") {
		t.Errorf("controller-0's kubelet check = %+v, want a skip subject to the API server", c)
	}
	if c := p.Steps[2].Checks[0]; !c.OK || c.Note != "" {
		t.Errorf("controller-1's kubelet check = %+v, want a plain pass", c)
	}
	f.wantState(t, state.UpgradedFirstMaster)
	if len(f.c.played()) != plays {
		t.Errorf("a plan ran a playbook: %v", f.c.played()[plays:])
	}
}

// An operation in flight with no live lease is refused and the next command is recover.
func TestPreviewStuck(t *testing.T) {
	f := newFixture(t)
	f.at(t, state.UpgradedFirstMaster)
	db, err := sql.Open("sqlite", f.dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("UPDATE kube_upgrade SET state = 'upgrading-second-master'"); err != nil {
		t.Fatal(err)
	}
	p, err := f.w.Preview(t.Context(), upgrade.PreviewOptions{Recorded: true})
	if err != nil {
		t.Fatal(err)
	}
	if p.Live || len(p.Steps) != 0 || !strings.Contains(fmt.Sprint(p.Refusal), "in flight") || p.Next != "kupgrade recover" {
		t.Errorf("preview = %+v", p)
	}
}
