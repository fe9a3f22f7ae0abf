package upgrade

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/kupgrade/kupgrade/internal/fault"
	"github.com/kupgrade/kupgrade/inventory"
	"github.com/kupgrade/kupgrade/kubeadm"
	"github.com/kupgrade/kupgrade/recovery"
	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/state"
)

// hostFailure is why one host failed, with what the runner saw.
type hostFailure struct {
	task   string
	rc     *int
	stdout string
	stderr string
	err    error
}

// finish records the outcome of every host (the cluster op when there are none), the last write
// releasing the lease. The writes get a budget of their own (RecordFor), detached from ctx so that
// Ctrl-C is recorded too, and retry a database that does not answer; the probe after a failure
// runs only once the failure is recorded, so a wedged host cannot eat that budget.
func (o *op) finish(ctx context.Context, failed map[string]*hostFailure, before map[string]*kubeadm.Snapshot) error {
	w := o.w
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), w.recordFor())
	defer cancel()
	var errs []error
	names := []string{state.WholeCluster}
	if o.perHost() {
		names = names[:0]
		for _, h := range o.hosts {
			names = append(names, h.Name)
		}
	}
	for i, name := range names {
		last := i == len(names)-1
		f := failed[name]
		if f == nil {
			if err := o.succeed(dctx, name, last && !o.keep); err != nil {
				errs = append(errs, &StepError{Step: o.step.Name, Host: name, State: o.step.Running, Cause: err, Retry: "kupgrade upgrade show"})
			} else if o.moved != nil {
				o.moved[name] = true
			}
			continue
		}
		errs = append(errs, o.fail(ctx, dctx, name, f, before[name], last))
	}
	return errors.Join(errs...)
}

func (o *op) succeed(ctx context.Context, host string, last bool) error {
	w := o.w
	reason, to := "done "+o.operation(), o.step.Done
	var opts []state.ChangeOption
	if last {
		opts = append(opts, state.ReleaseLease())
	}
	if host != state.WholeCluster {
		opts = append(opts, state.OnHost(host, o.hostTo, o.hostDone))
		reason = fmt.Sprintf("done %s on %s", o.step.Name, host)
		if !last {
			to = o.step.Running // the batch's other hosts still run; the state moves with the last
		}
	}
	c := state.Finish(w.Cluster, state.ActorRunner, o.step.Running, to, w.owner(), append(opts, state.Because(reason))...)
	if err := w.retryDB(ctx, "record success of "+reason, func(ctx context.Context) error {
		_, err := w.Store.Apply(ctx, c)
		return err
	}); err != nil {
		return fmt.Errorf("record success of %s: %w", reason, err)
	}
	if c.To() != c.From() || host != state.WholeCluster {
		w.stateChanged(host, c.From(), c.To(), reason)
	}
	return nil
}

// fail records the failure through the one failing path first, then probes the host again
// (reconnecting if the connection dropped), classifies how far kubeadm got, and adds that as an
// event of its own.
func (o *op) fail(ctx, dctx context.Context, host string, f *hostFailure, before *kubeadm.Snapshot, last bool) error {
	w := o.w
	ev := recovery.Evidence{Step: o.step.Name, Host: host, Task: f.task, ExitStatus: f.rc, Error: f.err.Error(),
		Stdout: tail(f.stdout, 10), Stderr: tail(f.stderr, 10)}
	// A drain or an uncordon: kubeadm did not run, the advice is about the node.
	node, isNode := kubeadm.NodePhaseFinding(o.hostTo, host, f.err.Error())
	if isNode {
		ev.Finding = &node
	}
	req := recovery.Request{Cluster: w.Cluster, Actor: state.ActorRunner, Reason: f.err.Error(), Host: host,
		Expect: o.step.Running, LeaseOwner: w.owner(), KeepLease: !last, Evidence: &ev}
	res, err := w.recordFailure(dctx, req)
	se := &StepError{Step: o.step.Name, Host: host, Cause: f.err, Recorded: err == nil, State: res.ToState}
	if err != nil {
		se.Cause = fmt.Errorf("%w (and recording the failure failed: %v)", f.err, err)
		se.State = o.step.Running
	}
	switch {
	case isNode:
		se.Finding = &node
	case o.kubeadm && host != state.WholeCluster:
		se.Finding = o.probeFailed(ctx, host, f.task, before, se.Recorded)
	}
	if !se.Recorded {
		return se
	}
	hint := host
	if hint == state.WholeCluster && len(o.hosts) == 1 { // cordon, uncordon: the host the step ran on
		hint = o.hosts[0].Name
	}
	se.Retry = state.RetryCommand(res.ToState, hint)
	w.stateChanged(host, res.FromState, res.ToState, "failed: "+f.err.Error())
	return se
}

// probeFailed reads host after a failure, under a budget of its own, and when the failure is
// recorded adds the finding to the event log and the control-plane version to the host row.
// After a failed package install (task), the finding also says which versions of the packages
// are installed and held now.
func (o *op) probeFailed(ctx context.Context, host, task string, before *kubeadm.Snapshot, recorded bool) *kubeadm.Finding {
	w := o.w
	h, ok := w.Inventory.Host(host)
	if !ok {
		return nil
	}
	pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), w.probeFor())
	defer cancel()
	ev := recovery.Evidence{Step: o.step.Name, Host: host}
	finding, err := o.probeAfter(pctx, h, before, o.target)
	if errors.Is(context.Cause(ctx), fault.ErrInterrupted) {
		finding = finding.Interrupted()
	}
	if err != nil {
		ev.ProbeError = err.Error()
	} else {
		if installTask(task) {
			finding.Summary += w.packagesNow(pctx, h)
		}
		ev.Finding = &finding
	}
	if recorded {
		wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), w.recordFor())
		defer cancel()
		if ev.Finding != nil && o.hostTo == state.UpgradingControlPlane {
			w.recordBackups(wctx, host, finding.After)
		}
		o.addEvidence(wctx, host, ev)
		if ev.Finding != nil {
			// host list shows how far kubeadm got, not the version from before the step.
			_ = w.Store.SetVersions(wctx, w.Cluster, host, finding.After.ControlPlaneVersion(), "", w.Store.Now())
		}
	}
	return ev.Finding
}

// addEvidence appends what the probe found after a recorded failure, as an event of its own.
func (o *op) addEvidence(ctx context.Context, host string, ev recovery.Evidence) {
	w := o.w
	raw, err := json.Marshal(ev)
	if err != nil {
		w.log().Warn("encode the probe's evidence", "host", host, "error", err)
		return
	}
	reason := "probe after the failure: " + ev.ProbeError
	if ev.Finding != nil {
		reason = fmt.Sprintf("probe after the failure: %s (%s)", ev.Finding.Summary, ev.Finding.Class)
	}
	err = w.retryDB(ctx, "record the probe's evidence", func(ctx context.Context) error {
		return w.Store.AddEvent(ctx, state.Event{Cluster: w.Cluster, Hostname: host, Actor: state.ActorRunner,
			Reason: reason, Evidence: raw})
	})
	if err != nil {
		w.log().Warn("the probe's evidence was not recorded", "host", host, "error", err)
	}
}

// probeAfter reads the host's kubelet config and manifests after a failure and compares them with
// the snapshot taken before (reconnecting when the failure dropped the connection).
func (o *op) probeAfter(ctx context.Context, h *inventory.Host, before *kubeadm.Snapshot, target string) (kubeadm.Finding, error) {
	w := o.w
	c, err := w.Runner.Conn(ctx, h)
	if err != nil {
		return kubeadm.Finding{}, fmt.Errorf("reconnect to %s to probe: %w", h.Name, err)
	}
	after, err := w.probe(ctx, c)
	if err != nil {
		return kubeadm.Finding{}, fmt.Errorf("probe %s: %w", h.Name, err)
	}
	var b kubeadm.Snapshot
	if before != nil {
		b = *before
	}
	return kubeadm.Classify(b, after, target), nil
}

// hostFailures turns the runner's recap into one failure per host that did not succeed; for a
// step without host statuses, into one failure of the step (state.WholeCluster) when anything
// failed.
func hostFailures(o *op, recap *runner.Recap, playErr error) map[string]*hostFailure {
	if recap == nil {
		recap = &runner.Recap{}
	}
	failed := map[string]*hostFailure{}
	for _, hf := range recap.Failures {
		failed[hf.Host] = failureFrom(hf)
	}
	if playErr != nil && len(recap.Failures) == 0 {
		// The play ended with no task failure of its own (cancelled, bad input): no host can be
		// counted as done.
		for _, h := range o.hosts {
			failed[h.Name] = &hostFailure{err: playErr}
		}
	}
	if playErr != nil {
		for _, h := range o.hosts { // hosts the play never finished (any_errors_fatal stopped it)
			if hr := recap.Hosts[h.Name]; failed[h.Name] == nil && (hr == nil || hr.Failed+hr.Unreachable > 0) {
				failed[h.Name] = &hostFailure{err: playErr}
			}
		}
	}
	if !o.perHost() && (len(failed) > 0 || playErr != nil) {
		err := playErr // the runner's error already joins the hosts' failures
		if err == nil {
			var errs []error
			for _, f := range failed {
				errs = append(errs, f.err)
			}
			err = errors.Join(errs...)
		}
		return map[string]*hostFailure{state.WholeCluster: {err: err}}
	}
	return failed
}

func tail(s string, n int) []string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) == 1 && lines[0] == "" {
		return nil
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return lines
}

// failureFrom reads the runner's evidence for one host: the task, rc and output tails, and a
// one-line reason that names the task, its exit status and the line of its output that says why.
func failureFrom(hf *runner.HostError) *hostFailure {
	res := hf.TaskResult()
	f := &hostFailure{task: hf.Task, rc: res.RC, stdout: res.Stdout, stderr: res.Stderr, err: hf}
	if errors.Is(hf.Err, fault.ErrUnreachable) || errors.Is(hf.Err, context.Canceled) || errors.Is(hf.Err, context.DeadlineExceeded) {
		return f // the runner's own message says it best
	}
	why := kubeadm.FailureLine(f.stderr)
	if why == "" {
		why = kubeadm.FailureLine(f.stdout)
	}
	switch {
	case res.TimedOut:
		f.err = fmt.Errorf("task %q: %s", hf.Task, res.Msg)
	case res.NonZero() && why != "":
		f.err = fmt.Errorf("task %q exited %d: %s", hf.Task, *f.rc, why)
	case res.NonZero():
		f.err = fmt.Errorf("task %q exited %d", hf.Task, *f.rc)
	case res.Msg != "":
		f.err = fmt.Errorf("task %q: %s", hf.Task, res.Msg)
	}
	if hint := sudoHint(f.stderr); hint != "" && f.err != nil {
		f.err = fmt.Errorf("%w%s", f.err, hint)
	}
	return f
}
