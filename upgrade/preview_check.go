package upgrade

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kupgrade/kupgrade/playbooks"
	"github.com/kupgrade/kupgrade/state"
)

// check runs, on ps, the pure pre-checks (state/check*.go) the step's command runs before it
// writes anything, and records each verdict; the error is the first refusal.
func (ps *PlannedStep) check(step state.Step, u state.Upgrade, hosts []state.Host, lease *state.Lease, now time.Time) error {
	add := func(name, host string, err error, note string) error {
		c := Check{Name: name, Host: host, OK: err == nil, Note: note}
		if err != nil {
			c.Note = err.Error()
		}
		ps.Checks = append(ps.Checks, c)
		return err
	}
	switch step.Scope {
	case state.ScopeControlPlane:
		h := ps.Hosts[0]
		_, redo, err := state.CheckControlPlane(u, hosts, h, lease, now)
		note := ""
		if redo {
			note = fmt.Sprintf("redo: the control plane already reports %s (kubeadm skips identical manifests)", u.ToVersion)
		}
		return add("control-plane pre-check (state, lease, host status)", h, err, note)
	case state.ScopeKubeletBatch:
		for _, h := range ps.Hosts {
			skip, err := state.CheckKubelet(u, hosts, h, lease, now)
			note := ""
			if skip {
				note = fmt.Sprintf("the kubelet already reports %s: marked upgraded-kubelet, nothing run", u.ToVersion)
			}
			if err := add("kubelet pre-check (state, lease, controllers first)", h, err, note); err != nil {
				return err
			}
		}
		return nil
	case state.ScopeStoreOnly:
		if err := add("lease free", "", state.CheckLease(u, lease, now), ""); err != nil {
			return err
		}
		return add("every kubelet upgraded", "", state.CheckComplete(u, hosts), "")
	}
	if err := add("lease free", "", state.CheckLease(u, lease, now), ""); err != nil {
		return err
	}
	return add(fmt.Sprintf("state %s allows %s", u.State, step.Name), "", state.CheckStep(u, step), "")
}

// simulate returns u and hosts as if act had succeeded: what the store would record.
func simulate(act Action, u state.Upgrade, hosts []state.Host) (state.Upgrade, []state.Host) {
	step, _ := state.StepNamed(act.Step)
	hosts = slices.Clone(hosts)
	u.State = step.Done
	for i := range hosts {
		h := &hosts[i]
		switch {
		case step.Scope == state.ScopeStoreOnly:
			h.Status = state.HostIdle
		case !slices.Contains(act.Hosts, h.Hostname):
		case step.Scope == state.ScopeControlPlane:
			h.TargetVersion, h.ControlPlaneVersion, h.Status = u.ToVersion, u.ToVersion, state.HostIdle
		case step.Scope == state.ScopeKubeletBatch:
			h.TargetVersion, h.KubeletVersion, h.Status = u.ToVersion, u.ToVersion, state.UpgradedKubelet
		}
	}
	return u, hosts
}

// tasksOf lists the tasks of pb in the order they run, blocks flattened, with the command of
// each task that runs one.
func tasksOf(pb *playbooks.Playbook) []PlannedTask {
	var out []PlannedTask
	var add func(ts []*playbooks.Task)
	add = func(ts []*playbooks.Task) {
		for _, t := range ts {
			if t.IsBlock() {
				add(t.Block)
				add(t.Rescue)
				add(t.Always)
				continue
			}
			out = append(out, PlannedTask{Name: t.Label(), Module: t.Module, Command: commandOf(t)})
		}
	}
	for _, play := range pb.Plays {
		add(play.Tasks)
	}
	return out
}

// commandOf is the command line a command, shell or raw task runs, as written; "" for others.
func commandOf(t *playbooks.Task) string {
	switch t.Module {
	case "command", "shell", "raw":
	default:
		return ""
	}
	for _, k := range []string{"_raw_params", "cmd"} {
		if s, ok := t.Args[k].(string); ok && s != "" {
			return s
		}
	}
	if argv, ok := t.Args["argv"].([]any); ok {
		parts := make([]string, len(argv))
		for i, a := range argv {
			parts[i] = fmt.Sprint(a)
		}
		return strings.Join(parts, " ")
	}
	return ""
}
