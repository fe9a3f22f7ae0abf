package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/kupgrade/kupgrade/internal/shellword"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/kupgrade/kupgrade/recovery"
	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/state"
	"github.com/kupgrade/kupgrade/watch"
)

type watchCmd struct {
	Interval   time.Duration `default:"1m" help:"Time between audit passes (and between tries to take the audit lock)."`
	StaleAfter time.Duration `name:"stale-after" default:"1h" help:"Fail an in-flight state with no lease once it is older than this."`
	Once       bool          `help:"Run one pass and exit (exit 4 when another watcher holds the audit lock)."`
	CreateDB   bool          `name:"create-db" help:"Create the database when it does not exist yet, rather than refuse (kupgrade-watch.service does: a new install has none until the first upgrade starts)."`
	serveFlags
}

func (c *watchCmd) Run(ctx context.Context, a *app) error {
	if c.Interval <= 0 || c.StaleAfter <= 0 {
		return fmt.Errorf("--interval and --stale-after must be positive: %w", state.ErrBadInput)
	}
	a.mayCreate = c.CreateDB
	st, err := a.Store(ctx)
	if err != nil {
		return err
	}
	w := &watch.Watcher{Store: st, Interval: c.Interval, Log: a.log, CommandFlags: a.commandFlags(), InventoryCluster: a.inventoryCluster(),
		Options: recovery.AuditOptions{StaleAfter: c.StaleAfter, Probers: a.watchProbers(), Emit: newAuditEmitter(a.stdout, a.json()).emit}}
	if a.notifier != nil {
		w.OnPass = (&stuckNotifier{a: a, store: st}).onPass
	}
	if c.Listen == "" && c.MetricsListen == "" {
		return w.Run(ctx, c.Once)
	}
	w.Metrics = watch.NewMetrics()
	w.Metrics.SetBuildInfo(version, commit)
	w.Metrics.ReadStates(st)
	w.Metrics.ReadFleets(st)
	stop, err := c.serve(a, w)
	if err != nil {
		return err
	}
	err = w.Run(ctx, c.Once)
	return errors.Join(err, stop())
}

// commandFlags are the global flags the status page keeps in the commands it prints: the
// database (the --db-file that holds it, or the DSN without its password) and the inventory,
// as absolute paths, since the command is pasted wherever the operator's shell is.
func (a *app) commandFlags() []string {
	var flags []string
	if a.g.DBFile != "" {
		flags = append(flags, "--db-file", shellword.Quote(absPath(a.g.DBFile)))
	} else if d, err := a.dsn(); err == nil {
		if d.Driver == "sqlite" {
			d.Path = absPath(d.Path)
		}
		flags = append(flags, "--db", shellword.Quote(d.Redacted()))
	}
	for _, i := range a.g.Inventory {
		if _, err := os.Stat(i); err == nil {
			flags = append(flags, "-i", shellword.Quote(absPath(i)))
		}
	}
	return flags
}

// inventoryCluster is the kupgrade_cluster of the inventory, "" when it names none or cannot be
// read.
func (a *app) inventoryCluster() string {
	if inv, err := a.Inventory(); err == nil {
		return inv.Cluster()
	}
	return ""
}

func absPath(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
}

// watchProbers lets the audit probe the hosts of the inventory's cluster over SSH. The watcher
// audits every cluster of the database and needs no inventory: without one it probes nothing
// and the evidence says so.
func (a *app) watchProbers() func(string) recovery.Prober {
	inv, err := a.Inventory()
	if err != nil {
		if os.Getenv("KUPGRADE_INVENTORY") != "" {
			a.log.Warn("KUPGRADE_INVENTORY cannot be read: the audit will probe no host (unset it, or pass -i FILE)", "err", err)
		} else {
			a.log.Debug("no inventory: the audit will not probe hosts", "err", err)
		}
		return nil
	}
	cluster, p := a.cluster(), &sshProber{a: a, inv: inv}
	return func(c string) recovery.Prober {
		if c != cluster {
			return nil
		}
		return p
	}
}

// auditEmitter prints one line per audit action: for people, or a JSON Lines `audit` event.
type auditEmitter struct {
	mu   sync.Mutex
	w    io.Writer
	json bool
}

func newAuditEmitter(w io.Writer, asJSON bool) *auditEmitter {
	return &auditEmitter{w: w, json: asJSON}
}

// auditEvent is the JSON Lines form (docs/cli.md: time, event, host, task, then the audit's keys).
type auditEvent struct {
	Time           string           `json:"time"`
	Event          runner.EventKind `json:"event"`
	Host           string           `json:"host"`
	Task           string           `json:"task"`
	Cluster        string           `json:"cluster"`
	FromState      string           `json:"from_state"`
	ToState        *string          `json:"to_state"`
	HostStatus     *string          `json:"host_status"`
	Why            string           `json:"why"`
	Outcome        string           `json:"outcome"`
	Msg            string           `json:"msg"`
	Error          *string          `json:"error,omitempty"`
	FindingClass   *string          `json:"finding_class,omitempty"`
	FindingSummary *string          `json:"finding_summary,omitempty"`
	ProbeError     *string          `json:"probe_error,omitempty"`
	Unreachable    bool             `json:"unreachable,omitempty"`
}

func (e *auditEmitter) emit(a recovery.Action) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.json {
		ev := auditEvent{Time: rfc3339(a.Time), Event: runner.EventAudit, Host: a.Host, Cluster: a.Cluster,
			FromState: string(a.FromState), ToState: nullable(string(a.ToState)), HostStatus: nullable(string(a.HostStatus)),
			Why: a.Why, Outcome: a.Outcome, Msg: a.Msg, Error: nullable(a.Error)}
		if p := a.Probe; p != nil {
			ev.ProbeError, ev.Unreachable = nullable(p.Error), p.Unreachable
			if p.Finding != nil {
				ev.FindingClass, ev.FindingSummary = nullable(string(p.Finding.Class)), nullable(p.Finding.Summary)
			}
		}
		b, _ := json.Marshal(ev)
		fmt.Fprintf(e.w, "%s\n", b)
		return
	}
	line := fmt.Sprintf("%s audit %s: %s", rfc3339(a.Time), a.Cluster, a.FromState)
	switch a.Outcome {
	case recovery.OutcomeFailed:
		line += " -> " + string(a.ToState)
		if a.Host != state.WholeCluster {
			line += fmt.Sprintf(", host %s %s cleared", a.Host, a.HostStatus)
		}
	case recovery.OutcomeMovedOn:
		line += " moved on before the audit wrote: left alone"
	case recovery.OutcomeSkipped:
		line += " SKIPPED: " + a.Error
	default:
		line += " NOT failed: " + a.Error
	}
	line += " (" + a.Msg + ")"
	if p := a.Probe; p != nil && p.Finding != nil {
		line += "\n    found: " + p.Finding.Summary
	} else if p != nil && p.Error != "" {
		line += "\n    probe: " + p.Error
	}
	fmt.Fprintln(e.w, line)
}
