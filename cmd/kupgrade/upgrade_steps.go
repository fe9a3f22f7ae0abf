package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/alecthomas/kong"
	"github.com/kupgrade/kupgrade/state"
	"github.com/kupgrade/kupgrade/upgrade"
)

type upgradeStartCmd struct {
	Version     string `arg:"" help:"Target version, v1.30.1 or 1.30.1."`
	FromVersion string `name:"from-version" help:"Current version; read from the controllers over SSH when not given."`
	// IgnoreVersionChecks was --force before StarlingX's habits were learned: there, `system
	// kube-upgrade-start --force` ignores alarms, a different thing, so --force is refused below.
	IgnoreVersionChecks bool        `name:"ignore-version-checks" help:"Allow a downgrade, a jump of more than one minor version, or controllers that disagree."`
	Force               bool        `short:"f" hidden:"" help:"Refused: StarlingX's --force ignores alarms; see --ignore-version-checks."`
	Health              healthFlags `embed:""`
}

func (c *upgradeStartCmd) Run(ctx context.Context, a *app) error {
	if c.Force {
		return errStartForce
	}
	// Bad input before anything is opened: a wrong version must not create a database.
	if err := state.SpellVersions(&c.Version, &c.FromVersion); err != nil {
		return err
	}
	if _, err := c.Health.options(c.FromVersion, c.Version); err != nil {
		return err
	}
	a.mayCreate = true
	w, err := a.workflow(ctx)
	if err != nil {
		return err
	}
	// The database, then the versions, then the checks over SSH: what refuses soonest first.
	nu, err := w.PrepareStart(ctx, c.Version, c.FromVersion, c.IgnoreVersionChecks)
	if err != nil {
		return err
	}
	if err := a.checkHealth(ctx, w, c.Health, nu.FromVersion, nu.ToVersion, a.stderr, false); err != nil {
		return err
	}
	u, err := w.Store.CreateUpgrade(ctx, nu)
	if err != nil {
		return err
	}
	if err := w.RecordSkippedChecks(ctx, c.Health.SkipCheck); err != nil {
		return err
	}
	return a.showUpgrade(ctx, u)
}

func (a *app) showUpgrade(ctx context.Context, u state.Upgrade) error {
	st, err := a.Reader(ctx)
	if err != nil {
		return err
	}
	l, err := st.Lease(ctx, u.Cluster)
	if err != nil {
		return err
	}
	v := newUpgradeView(u, l)
	if err := a.addNext(ctx, st, &v, u); err != nil {
		return err
	}
	if v.EtcdSnapshots, err = upgradeSnapshots(ctx, st, u); err != nil {
		return err
	}
	if a.json() {
		return writeJSON(a.stdout, v)
	}
	writeUpgrade(a.stdout, v, st.Now())
	writeFailureNext(a.stdout, v)
	return nil
}

// stepCmd runs one cluster step: the one stepOf finds for the command's name.
type stepCmd struct{}

func (c *stepCmd) Run(ctx context.Context, a *app, kctx *kong.Context) error {
	step, err := stepOf(kctx.Selected())
	if err != nil {
		return err
	}
	w, err := a.workflow(ctx)
	if err != nil {
		return err
	}
	return a.summarized(ctx, w, "", func() error { return w.Do(ctx, upgrade.Action{Step: step.Name}) })
}

type hostUpgradeCmd struct {
	Host string `arg:"" predictor:"host" help:"Host name as in the inventory, or its id in 'host list'."`
	What string `arg:"" enum:"control-plane,kubelet" help:"control-plane or kubelet."`
	// -f and --force are StarlingX's spelling (kube-host-upgrade -f forces the operation even
	// when the host is already upgraded), the same meaning, so they stay.
	Rerun bool `short:"f" aliases:"force" help:"Run the kubelet upgrade even when the kubelet already reports the target (-f, --force as in StarlingX)."`
}

func (c *hostUpgradeCmd) Run(ctx context.Context, a *app) error {
	if c.Rerun && c.What != "kubelet" {
		return fmt.Errorf("--rerun (-f, --force) applies to the kubelet only; a control plane runs again through its failed state (`kupgrade upgrade failed`, then its retry command): %w", state.ErrBadInput)
	}
	w, err := a.workflow(ctx)
	if err != nil {
		return err
	}
	host, err := a.hostArg(ctx, c.Host)
	if err != nil {
		return err
	}
	act := upgrade.Action{Step: state.StepKubelets, Hosts: []string{host}, Rerun: c.Rerun}
	if c.What == "control-plane" { // first-master or second-master: the state decides
		act.Step = state.StepFirstMaster
	}
	return a.summarized(ctx, w, "", func() error { return w.Do(ctx, act) })
}

// hostStepCmd runs one step on one host (cordon, uncordon): the one stepOf finds for the
// command's name.
type hostStepCmd struct {
	Host string `arg:"" predictor:"host" help:"Host name as in the inventory, or its id in 'host list'."`
}

func (c *hostStepCmd) Run(ctx context.Context, a *app, kctx *kong.Context) error {
	step, err := stepOf(kctx.Selected())
	if err != nil {
		return err
	}
	w, err := a.workflow(ctx)
	if err != nil {
		return err
	}
	host, err := a.hostArg(ctx, c.Host)
	if err != nil {
		return err
	}
	return a.outcome(a.notifyFailure(ctx, w, w.Do(ctx, upgrade.Action{Step: step.Name, Hosts: []string{host}})))
}

// stepOf returns the step of state's step table that command n runs: the one whose command,
// up to its first argument, is n's path, or whose StarlingX alias is n's name. The table is the
// only place a step's command is tied to the step, so the grammar carries no second copy of it
// (TestGrammarRunsEveryStep checks that the two agree).
func stepOf(n *kong.Node) (state.Step, error) {
	var found []state.Step
	for _, st := range state.Steps() {
		if commandPath(st.Command) == n.Path() || st.Alias == n.Path() {
			found = append(found, st)
		}
	}
	if len(found) != 1 {
		return state.Step{}, fmt.Errorf("command %q names %d steps of the step table, want 1", n.Path(), len(found))
	}
	return found[0], nil
}

// commandPath is a step's command as kong spells a command's path: the words after "kupgrade",
// up to the first argument (HOST).
func commandPath(command string) string {
	words := strings.Fields(strings.TrimPrefix(command, "kupgrade "))
	if i := slices.Index(words, "HOST"); i >= 0 {
		words = words[:i]
	}
	return strings.Join(words, " ")
}

type upgradeCompleteCmd struct{}

func (c *upgradeCompleteCmd) Run(ctx context.Context, a *app) error {
	w, err := a.workflow(ctx)
	if err != nil {
		return err
	}
	if err := w.Do(ctx, upgrade.Action{Step: state.StepComplete}); err != nil {
		return err
	}
	u, err := w.Store.Upgrade(ctx, w.Cluster)
	if err != nil {
		return err
	}
	a.notifyCompleted(ctx, w, "", u)
	return a.showUpgrade(ctx, u)
}

type upgradeAbortCmd struct {
	Yes              bool          `short:"y" help:"Do not ask for confirmation on a terminal."`
	Kubelets         bool          `help:"Take back first every kubelet this upgrade moved, one host at a time, workers before controllers: drain the node, install kubelet and kubectl at the version the upgrade started from, put back the kubelet config kubeadm saved, restart, wait for the node Ready at that version, uncordon. Without it abort refuses once a kubelet was upgraded."`
	RestoreEtcd      bool          `name:"restore-etcd" help:"Put etcd back from the snapshot this upgrade took, discarding every API write since it was saved (the question names its time, its revision and etcd's revision now): kupgrade verifies the snapshot's sha256, stops the control plane, restores every etcd member (the controllers' static pods, or the inventory's etcd group) into a new data dir, keeps the old one aside and starts it all again; where it cannot reach or restore a member it refuses before anything changes, printing the commands to run by hand. Without it abort never restores etcd, and refuses where the abort needs it (the upgrade moved etcd to a newer minor)."`
	EtcdRestored     bool          `name:"etcd-restored" help:"You restored etcd from this upgrade's snapshot by hand (the commands --restore-etcd prints): abort goes on with the manifests and records that you did."`
	MaxSnapshotAge   time.Duration `name:"max-snapshot-age" default:"24h" help:"With --restore-etcd: refuse a snapshot saved longer ago than this, whose restore would discard every API write since (a script's -y included), unless --force-old-snapshot."`
	ForceOldSnapshot bool          `name:"force-old-snapshot" help:"With --restore-etcd: restore from the snapshot even when it is older than --max-snapshot-age."`
}

// abortDoes is what abort's question says it does.
func (c *upgradeAbortCmd) abortDoes() string {
	return "upgrade abort rolls the controllers this upgrade touched back to what it found there, from the backups kubeadm made during this upgrade, and verifies their versions" + kubeletsNote(c.Kubelets) + "."
}

func (c *upgradeAbortCmd) Run(ctx context.Context, a *app) error {
	w, err := a.workflow(ctx)
	if err != nil {
		return err
	}
	w.RestoreEtcd, w.EtcdRestored, w.AbortKubelets = c.RestoreEtcd, c.EtcdRestored, c.Kubelets
	w.MaxSnapshotAge, w.ForceOldSnapshot = c.MaxSnapshotAge, c.ForceOldSnapshot
	does := c.abortDoes()
	if lines := abortLines(ctx, w.Store, w.Cluster, c.Kubelets, c.RestoreEtcd); len(lines) > 0 {
		does += "\n  " + strings.Join(lines, "\n  ")
	}
	if c.RestoreEtcd { // asked once the snapshot and the members are read, naming what it discards
		w.ConfirmEtcd = func(what string) error { return a.confirmUpgrade(ctx, w.Store, does+"\n"+what, c.Yes) }
	} else if err := a.confirmUpgrade(ctx, w.Store, does, c.Yes); err != nil {
		return err
	}
	return a.summarized(ctx, w, "", func() error { return w.Abort(ctx) })
}

type upgradeRunCmd struct {
	DryRun      bool       `name:"dry-run" help:"Run nothing, write nothing: print the plan (as upgrade plan)."`
	Recorded    bool       `help:"With --dry-run: use the versions recorded in the database instead of reading the hosts."`
	Until       untilState `predictor:"state" help:"Stop once the upgrade reaches this state."`
	Retries     int        `help:"Retry a failed step this many times before giving up." default:"0"`
	WorkerBatch int        `name:"worker-batch" aliases:"max-unavailable" help:"Upgrade (drain) the workers' kubelets this many at a time; controllers go one at a time." default:"1"`
	Yes         bool       `short:"y" help:"Do not ask for confirmation on a terminal."`
	// The health checks run again before each hop of an upgrade across several minors.
	Health healthFlags `embed:""`
}

func (c *upgradeRunCmd) Run(ctx context.Context, a *app) error {
	if c.DryRun {
		return a.plan(ctx, upgrade.PreviewOptions{Until: state.State(c.Until), WorkerBatch: c.WorkerBatch, Recorded: c.Recorded}, nil)
	}
	ho, err := c.Health.base()
	if err != nil {
		return err
	}
	w, err := a.workflow(ctx)
	if err != nil {
		return err
	}
	if err := a.confirmRun(ctx, w, string(c.Until), c.Yes); err != nil {
		return err
	}
	return a.runUpgrade(ctx, w, upgrade.RunOptions{Until: state.State(c.Until), Retries: c.Retries, WorkerBatch: c.WorkerBatch, HopHealth: &ho})
}

// outcome prints, for a failed operation, what the probe found on the host and the command that
// retries it; the error itself then goes to stderr with its exit status.
func (a *app) outcome(err error) error {
	var se *upgrade.StepError
	if err == nil || !errors.As(err, &se) || a.json() {
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n%s FAILED", se.Step)
	if se.Host != state.WholeCluster {
		fmt.Fprintf(&b, " on %s", se.Host)
	}
	fmt.Fprintf(&b, ": state is now %s\n", se.State)
	if se.Finding != nil {
		fmt.Fprintf(&b, "  found on the host: %s (%s)\n", se.Finding.Summary, se.Finding.Class)
		if se.Finding.Next != "" {
			fmt.Fprintf(&b, "  next: %s\n", a.commands(se.Finding.Next))
		}
	}
	if se.Retry != "" {
		fmt.Fprintf(&b, "  retry with: %s\n", a.command(se.Retry))
	}
	fmt.Fprint(a.stdout, b.String())
	return err
}

// upgradeSnapshots are the etcd snapshots u took, newest first.
func upgradeSnapshots(ctx context.Context, st state.Store, u state.Upgrade) ([]state.EtcdSnapshot, error) {
	all, err := st.Snapshots(ctx, u.Cluster)
	var mine []state.EtcdSnapshot
	for _, s := range all {
		if s.UpgradeUUID == u.UUID {
			mine = append(mine, s)
		}
	}
	return mine, err
}

// kubeletsNote is what --kubelets adds to abort's confirmation.
func kubeletsNote(kubelets bool) string {
	if !kubelets {
		return ""
	}
	return "; first it drains each node whose kubelet this upgrade moved and takes its kubelet back"
}
