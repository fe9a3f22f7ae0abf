package upgrade

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/kupgrade/kupgrade/inventory"
	"github.com/kupgrade/kupgrade/playbooks"
	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/state"
)

// etcdRestore is abort's restore of etcd from the upgrade's verified snapshot, decided (and
// every member read) before anything is written. Its phases run inside the abort operation,
// under its lease and host fence: stop (pre), the manifests' restore into the aside folder
// (the abort playbook), then restore and start (post).
type etcdRestore struct {
	u           state.Upgrade
	snap        state.EtcdSnapshot
	members     []etcdMember
	controllers []*inventory.Host
}

// needed reports whether anything is left to do: a member not restored from this snapshot, or
// manifests an earlier attempt left aside.
func (r *etcdRestore) needed(aside bool) bool {
	return aside || slices.ContainsFunc(r.members, func(m etcdMember) bool { return !m.restored })
}

// scripts gives each host of the controllers and the external members its script of a phase.
func (r *etcdRestore) scripts(script func(uuid string, controller, unit bool) string) map[string]string {
	out := map[string]string{}
	for _, h := range r.controllers {
		out[h.Name] = script(r.u.UUID, true, false)
	}
	for _, m := range r.members {
		if !m.stacked {
			_, ctl := out[m.host.Name]
			out[m.host.Name] = script(r.u.UUID, ctl, true)
		}
	}
	return out
}

// stop is the restore's first phase: every controller's static pods stopped (their manifests
// aside), and an external etcd's members stopped.
func (w *Workflow) etcdStop(r *etcdRestore) func(context.Context, runner.PlayOptions) error {
	return func(ctx context.Context, po runner.PlayOptions) error {
		_, err := w.etcdPhase(ctx, po, r, "stop", r.scripts(stopScript))
		return err
	}
}

// etcdRestoreStart restores each member not restored yet (the snapshot copied there first),
// records each restore as an event, then starts etcd and puts the manifests back everywhere,
// and only then (a phase of its own: etcd answers once a quorum runs) waits for its health.
func (w *Workflow) etcdRestoreStart(r *etcdRestore) func(context.Context, runner.PlayOptions) error {
	return func(ctx context.Context, po runner.PlayOptions) error {
		scripts := map[string]string{}
		for _, m := range r.members {
			if !m.restored {
				scripts[m.host.Name] = restoreScript(r.u.UUID, r.snap.SHA256, m)
			}
		}
		if len(scripts) > 0 {
			out, err := w.etcdPhase(ctx, po, r, "restore", scripts)
			if err != nil {
				return err
			}
			w.recordRestored(ctx, r, out)
		}
		if _, err := w.etcdPhase(ctx, po, r, "start", r.scripts(startScript)); err != nil {
			return err
		}
		_, err := w.etcdPhase(ctx, po, r, "health", r.scripts(healthScript))
		return err
	}
}

// etcdPhase plays the etcd-restore playbook's phase on the hosts of scripts, each running its
// own, and returns what each printed. A failure names the phase, each host, its task and the
// end of what it printed.
func (w *Workflow) etcdPhase(ctx context.Context, po runner.PlayOptions, r *etcdRestore, phase string, scripts map[string]string) (map[string]string, error) {
	pb, err := playbooks.Embedded("etcd-restore")
	if err != nil {
		return nil, err
	}
	file, err := filepath.Abs(r.snap.Path) // copy reads a relative src from the playbook's folder
	if err != nil {
		return nil, err
	}
	po.Hosts, po.Tags = slices.Sorted(maps.Keys(scripts)), []string{phase}
	po.ExtraVars = w.vars(r.u, map[string]any{playbooks.VarEtcdRestoreScript: scripts,
		playbooks.VarEtcdRestoreFile: file, playbooks.VarEtcdRestoreDest: snapshotOnMember(r.u.UUID)})
	w.log().Info("abort: etcd restore", "phase", phase, "hosts", strings.Join(po.Hosts, ","))
	recap, err := w.Runner.Play(ctx, pb, w.Inventory, po)
	out := map[string]string{}
	if recap != nil {
		for h, reg := range recap.Registered {
			res, _ := reg[playbooks.VarEtcdRestore].(map[string]any)
			out[h], _ = res["stdout"].(string)
		}
	}
	if err == nil {
		return out, nil
	}
	var finds []string
	if recap != nil {
		for _, f := range recap.Failures {
			res := f.TaskResult()
			said := lastWords(res.Stderr, res.Stdout, res.Msg)
			finds = append(finds, fmt.Sprintf("%s: task %q: %s", f.Host, f.Task, said))
		}
	}
	if len(finds) == 0 {
		finds = []string{err.Error()}
	}
	return out, fmt.Errorf("etcd restore from %s, phase %s: %s", r.snap.Path, phase, strings.Join(finds, "; "))
}

// lastWords is the last line of the first of outs that says something.
func lastWords(outs ...string) string {
	for _, s := range outs {
		if l := tail(s, 1); len(l) > 0 {
			return l[0]
		}
	}
	return "(it printed nothing)"
}

// recordRestored writes an event per member restored (or found restored) by the restore phase.
func (w *Workflow) recordRestored(ctx context.Context, r *etcdRestore, out map[string]string) {
	for _, h := range slices.Sorted(maps.Keys(out)) {
		said := strings.Join(tail(out[h], 2), "; ")
		err := w.retryDB(ctx, "record the etcd restore", func(ctx context.Context) error {
			return w.Store.AddEvent(ctx, state.Event{Cluster: w.Cluster, Hostname: h, Actor: state.ActorRunner,
				Reason: fmt.Sprintf("abort: etcd member restored from the snapshot %s (revision %d): %s", r.snap.Path, r.snap.Revision, said)})
		})
		if err != nil {
			w.log().Warn("abort: the etcd restore was not recorded as an event", "host", h, "error", err)
		}
	}
}
