package main

import (
	"context"
	"fmt"
	"github.com/kupgrade/kupgrade/state"
	"io"
	"time"

	"github.com/kupgrade/kupgrade/inventory"
	"github.com/kupgrade/kupgrade/kubeadm"
	"github.com/kupgrade/kupgrade/recovery"
	"github.com/kupgrade/kupgrade/upgrade"
)

type recoverCmd struct {
	DryRun  bool `name:"dry-run" help:"Print what would be done (with the probe's result) and change nothing."`
	Force   bool `help:"Fail the operation even though a live lease is held (its process is known to be gone)."`
	NoProbe bool `name:"no-probe" help:"Do not look at the host's kubelet config over SSH."`
}

func (c *recoverCmd) Run(ctx context.Context, a *app) error {
	open := a.Store
	if c.DryRun {
		open = a.Reader
	}
	st, err := open(ctx)
	if err != nil {
		return err
	}
	opts := recovery.RecoverOptions{Cluster: a.cluster(), DryRun: c.DryRun, Force: c.Force}
	if !c.NoProbe {
		opts.Prober = &sshProber{a: a}
	}
	rec, err := recovery.Recover(ctx, st, opts)
	if err != nil {
		return err
	}
	v := newRecoverView(rec)
	if v.Retry != nil {
		v.Retry = nullable(a.clusterCommand(ctx, st, *v.Retry))
	}
	if !v.Stuck && rec.Upgrade != nil && rec.Before.Failed() { // nothing to recover: the retry is what is next
		uv := newUpgradeView(*rec.Upgrade, nil)
		if err := a.addNext(ctx, st, &uv, *rec.Upgrade); err != nil {
			return err
		}
		v.Retry = uv.Next
	}
	if a.json() {
		return writeJSON(a.stdout, v)
	}
	writeRecover(a.stdout, v, rec)
	return nil
}

// sshProber probes a host of the inventory over the runner's pooled SSH connection; a recover
// after a crash has no snapshot from before, so Classify compares against the target only.
type sshProber struct {
	a   *app
	inv *inventory.Inventory
}

func (p *sshProber) Probe(ctx context.Context, host, target string) (kubeadm.Finding, error) {
	if p.inv == nil {
		inv, err := p.a.Inventory()
		if err != nil {
			return kubeadm.Finding{}, fmt.Errorf("load the inventory to reach %s: %w", host, err)
		}
		p.inv = inv
	}
	h, ok := p.inv.Host(host)
	if !ok {
		return kubeadm.Finding{}, fmt.Errorf("host %s is not in the inventory %s", host, p.inv.Path)
	}
	conn, err := p.a.Runner(p.inv, 0).Conn(ctx, h)
	if err != nil {
		return kubeadm.Finding{}, err
	}
	after, err := upgrade.ProbeHost(ctx, conn)
	if err != nil {
		return kubeadm.Finding{}, err
	}
	return kubeadm.Classify(kubeadm.Snapshot{}, after, target), nil
}

// recoverView is `recover -o json`: one object.
type recoverView struct {
	Cluster     string           `json:"cluster"`
	Stuck       bool             `json:"stuck"`
	DryRun      bool             `json:"dry_run"`
	Forced      bool             `json:"forced"`
	StateBefore *string          `json:"state_before"`
	StateAfter  *string          `json:"state_after"`
	Lease       *leaseView       `json:"lease"`
	LeaseLive   bool             `json:"lease_live"`
	Hosts       []recoverHostRow `json:"hosts"`
	Retry       *string          `json:"retry"`
}

type recoverHostRow struct {
	Host        string  `json:"host"`
	Status      string  `json:"status"`
	Cleared     bool    `json:"cleared"`
	Class       *string `json:"finding_class"`
	Summary     *string `json:"finding_summary"`
	Next        *string `json:"next"`
	ProbeError  *string `json:"probe_error"`
	Unreachable bool    `json:"unreachable"`
}

func newRecoverView(rec recovery.Recovery) recoverView {
	v := recoverView{Cluster: rec.Cluster, Stuck: rec.Stuck, DryRun: rec.DryRun, Forced: rec.Forced,
		StateBefore: nullable(string(rec.Before)), StateAfter: nullable(string(rec.After)),
		LeaseLive: rec.LeaseLive, Hosts: []recoverHostRow{}}
	if l := rec.Lease; l != nil {
		v.Lease = &leaseView{Owner: l.Owner, Operation: l.Operation, HeartbeatAt: rfc3339(l.HeartbeatAt), ExpiresAt: rfc3339(l.ExpiresAt)}
	}
	host := ""
	for _, h := range rec.Hosts {
		row := recoverHostRow{Host: h.Host, Status: string(h.Status), Cleared: h.Cleared}
		if p := h.Probe; p != nil {
			row.ProbeError, row.Unreachable = nullable(p.Error), p.Unreachable
			if f := p.Finding; f != nil {
				row.Class, row.Summary, row.Next = nullable(string(f.Class)), nullable(f.Summary), nullable(f.Next)
			}
		}
		v.Hosts = append(v.Hosts, row)
		host = h.Host
	}
	if rec.Stuck {
		v.Retry = nullable(state.RetryCommand(rec.After, host))
	}
	return v
}

// writeRecover prints for a person what was found, what was (or would be) done, and the retry.
func writeRecover(w io.Writer, v recoverView, rec recovery.Recovery) {
	if !v.Stuck {
		if rec.Upgrade == nil {
			fmt.Fprintf(w, "cluster %s has no upgrade: nothing is stuck\n", v.Cluster)
			return
		}
		fmt.Fprintf(w, "cluster %s: state %s, no operation in flight: nothing is stuck\n", v.Cluster, rec.Before)
		if v.Retry != nil {
			fmt.Fprintf(w, "  the step failed and was recorded; retry with: %s\n", *v.Retry)
		}
		return
	}
	verb, would := "", ""
	if v.DryRun {
		verb, would = "DRY RUN, nothing written: ", "would be "
	}
	fmt.Fprintf(w, "%scluster %s: %s entered at %s (%s ago)\n", verb, v.Cluster, rec.Before,
		rfc3339(rec.Upgrade.StateEnteredAt), time.Since(rec.Upgrade.StateEnteredAt).Round(time.Second))
	if l := rec.Lease; l != nil {
		what := "expired"
		if rec.LeaseLive {
			what = "LIVE, overridden by --force"
		}
		fmt.Fprintf(w, "  lease: %s for %s, expires %s (%s)\n", l.Owner, l.Operation, rfc3339(l.ExpiresAt), what)
	} else {
		fmt.Fprintln(w, "  lease: none")
	}
	for i, h := range v.Hosts {
		fmt.Fprintf(w, "  host %s: status %s %scleared\n", h.Host, h.Status, would)
		writeProbe(w, rec.Hosts[i].Probe)
	}
	fmt.Fprintf(w, "  state: %s -> %s%s\n", rec.Before, would, rec.After)
	if v.Retry != nil {
		fmt.Fprintf(w, "  retry with: %s\n", *v.Retry)
	}
}

func writeProbe(w io.Writer, p *recovery.ProbeResult) {
	switch {
	case p == nil:
		fmt.Fprintln(w, "    not probed (--no-probe)")
	case p.Error != "" && p.Unreachable:
		fmt.Fprintf(w, "    UNREACHABLE, not probed: %s\n", p.Error)
	case p.Error != "":
		fmt.Fprintf(w, "    probe failed: %s\n", p.Error)
	case p.Finding != nil:
		fmt.Fprintf(w, "    found: %s (%s)\n", p.Finding.Summary, p.Finding.Class)
		if p.Finding.Next != "" {
			fmt.Fprintf(w, "    next: %s\n", p.Finding.Next)
		}
	}
}
