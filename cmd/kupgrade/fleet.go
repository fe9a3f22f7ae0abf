package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/kupgrade/kupgrade/fleet"
	"github.com/kupgrade/kupgrade/kubeadm"
	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/runner/sshconn"
	"github.com/kupgrade/kupgrade/state"
	"github.com/kupgrade/kupgrade/state/sqlstore"
	"github.com/kupgrade/kupgrade/upgrade"
)

type fleetCmd struct {
	Run  fleetRunCmd  `cmd:"" help:"Upgrade every cluster of the fleet (one inventory each); several runners share the work through the database."`
	Show fleetShowCmd `cmd:"" help:"The fleet's clusters per state, those failing or stuck, progress and an estimate of the time left."`
}

type fleetRunCmd struct {
	To          string        `required:"" help:"Target version of every cluster, v1.30.1 or 1.30.1."`
	Inventories string        `type:"path" help:"A folder holding one inventory (file or folder) per cluster; -i INVENTORY (repeatable) names them one by one."`
	Fleet       string        `default:"default" help:"The fleet's name in the database: runners of one fleet share its clusters."`
	MaxParallel int           `name:"max-parallel" default:"10" help:"Clusters this runner upgrades at once."`
	Canary      int           `help:"Upgrade the first N clusters alone; start the rest only if they all succeed."`
	MaxFailures int           `name:"max-failures" help:"Start no new cluster once this many have failed (0: no limit)."`
	Until       untilState    `predictor:"state" help:"Stop each cluster once its upgrade reaches this state."`
	Retries     int           `help:"Retry a failed step of a cluster this many times before giving up on it." default:"0"`
	WorkerBatch int           `name:"worker-batch" help:"Upgrade each cluster's workers' kubelets this many at a time." default:"1"`
	Poll        time.Duration `hidden:"" help:"How often to look for clusters whose runner died (default a tenth of --lease-ttl)."`
	Yes         bool          `short:"y" help:"Do not ask for confirmation on a terminal."`
	Move        bool          `help:"Move clusters that another fleet holds into this one (without it, such a run is refused)."`
	Progress    time.Duration `default:"30s" help:"Print the fleet's progress (done/total, failed, running, elapsed, time left) this often; 0: never."`
	Health      healthFlags   `embed:""`
}

func (c *fleetRunCmd) Run(ctx context.Context, a *app) error {
	to, err := state.ParseVersion(c.To)
	if err != nil {
		return err
	}
	if c.Until != "" && !state.State(c.Until).Valid() {
		return state.UnknownState("--until", state.State(c.Until))
	}
	ho, err := c.Health.options("", to.String())
	if err != nil {
		return err
	}
	targets, err := fleet.Load(a.fleetInventories(c.Inventories != ""), c.Inventories)
	if err != nil {
		return err
	}
	if err := a.confirm(fmt.Sprintf("fleet run: upgrade %d cluster(s) to %s as fleet %q, %d at once, kubeadm included.", len(targets), to, c.Fleet, c.MaxParallel), c.Yes); err != nil {
		return err
	}
	a.mayCreate = true
	st, err := a.fleetStore(ctx)
	if err != nil {
		return err
	}
	a.startRunLog()
	r := &fleet.Runner{Store: st, Owner: upgrade.Owner(), Open: a.fleetOpener(st), Log: a.fleetLog(), Report: func(res fleet.Result) { a.fleetReport(res); a.notifyFleet(ctx, st, res) }, Started: a.fleetStarted}
	start := time.Now()
	stop := a.fleetProgress(ctx, st, c.Fleet, c.Progress)
	sum, err := r.Run(ctx, targets, fleet.Options{Fleet: c.Fleet, To: to.String(), MaxParallel: c.MaxParallel,
		Canary: c.Canary, MaxFailures: c.MaxFailures, Until: state.State(c.Until), Retries: c.Retries,
		WorkerBatch: c.WorkerBatch, TTL: a.g.LeaseTTL, Poll: c.Poll, Move: c.Move, Health: &ho})
	stop()
	a.fleetSummary(ctx, st, c.Fleet, sum, time.Since(start))
	return err
}

// fleetInventories are the -i inventories of a fleet run: those typed; without --inventories,
// KUPGRADE_INVENTORY's or the default inventory.yml. An exported KUPGRADE_INVENTORY does not join
// a fleet that --inventories names: it is a single cluster's, perhaps long gone.
func (a *app) fleetInventories(haveDir bool) []string {
	if a.given["inventory"] || !haveDir {
		return a.g.Inventory
	}
	return nil
}

// fleetStore opens the store with the fleet's tables.
func (a *app) fleetStore(ctx context.Context) (fleet.Store, error) {
	st, err := a.Store(ctx)
	if err != nil {
		return nil, err
	}
	return st, nil
}

// fleetOpener builds each cluster's workflow: its own runner (connections closed when the
// cluster is done), over one SSH dialer per known_hosts file.
func (a *app) fleetOpener(st upgrade.Store) func(fleet.Target) (*upgrade.Workflow, func(), error) {
	dialers := map[string]*sshconn.Dialer{}
	var mu sync.Mutex
	return func(t fleet.Target) (*upgrade.Workflow, func(), error) {
		kh := a.knownHosts(t.Inventory)
		mu.Lock()
		d, ok := dialers[kh]
		if !ok {
			d = &sshconn.Dialer{KnownHosts: kh, AcceptNew: a.g.AcceptNewHostKeys, Agent: true, Passphrase: sshconn.PromptPassphrase, Log: a.log}
			dialers[kh] = d
		}
		mu.Unlock()
		rep := a.clusterLogged(t.Cluster)
		run := runner.New(dialer{d}, runner.Options{Modules: kubeadm.Modules(), Reporter: rep})
		w := &upgrade.Workflow{Store: st, Runner: run, Inventory: t.Inventory, Cluster: t.Cluster, Reporter: rep,
			KubeadmTimeout: a.g.KubeadmTimeout, DrainTimeout: a.g.DrainTimeout, VerifyTimeout: a.g.VerifyTimeout, FenceWait: a.g.FenceWait, Snapshots: a.snapshots(), Database: a.dbIdentity(), Log: a.fleetLog().With("cluster", t.Cluster),
			Deleted: a.removeUpgradeLogs}
		return w, func() { run.Close() }, nil
	}
}

// fleetStarted prints a line as this runner starts a cluster, so that a long run shows it moving.
func (a *app) fleetStarted(cluster, takenFrom string) {
	if a.json() {
		_ = writeJSONLine(a.stdout, map[string]any{"event": "fleet_cluster_start", "cluster": cluster, "taken_from": takenFrom})
		return
	}
	line := fmt.Sprintf("%-24s START", cluster)
	if takenFrom != "" {
		line += "  (taking over from " + takenFrom + ")"
	}
	fmt.Fprintln(a.stdout, line)
}

// fleetReport prints one line per cluster this runner ended.
func (a *app) fleetReport(res fleet.Result) {
	if a.json() {
		v := map[string]any{"event": "fleet_cluster", "cluster": res.Cluster, "outcome": res.Outcome,
			"state": res.State, "seconds": res.Took.Seconds(), "taken_from": res.TakenFrom, "error": nil}
		if res.Err != nil {
			v["error"] = a.redact(res.Err.Error())
		}
		_ = writeJSONLine(a.stdout, v)
		return
	}
	line := fmt.Sprintf("%-24s %-6s %-32s %6.1fs", res.Cluster, strings.ToUpper(string(res.Outcome)), res.State, res.Took.Seconds())
	if res.TakenFrom != "" {
		line += "  (taken over from " + res.TakenFrom + ")"
	}
	if res.Err != nil {
		line += "\n    " + a.redact(res.Err.Error())
		if f := findingOf(res.Err); f != "" {
			line += "\n    found on the host: " + f
		}
	}
	fmt.Fprintln(a.stdout, line)
}

func findingOf(err error) string {
	var se *upgrade.StepError
	if !errors.As(err, &se) || se.Finding == nil {
		return ""
	}
	return fmt.Sprintf("%s (%s)", se.Finding.Summary, se.Finding.Class)
}

// fleetSummary prints what this runner did and where the whole fleet stands.
func (a *app) fleetSummary(ctx context.Context, st fleet.Store, name string, sum fleet.Summary, took time.Duration) {
	db := storeCounts(st)
	if a.json() {
		_ = writeJSONLine(a.stdout, map[string]any{"event": "fleet_summary", "done": sum.Done, "failed": sum.Failed,
			"lost": sum.Lost, "handed_back": sum.HandedBack, "stopped": sum.Stopped, "seconds": took.Seconds(),
			"db_transactions": db.Transactions, "db_statements": db.Statements})
		return
	}
	back := ""
	if sum.HandedBack > 0 {
		back = fmt.Sprintf(", %d handed back (the database failed under them)", sum.HandedBack)
	}
	fmt.Fprintf(a.stdout, "this runner: %d done, %d failed, %d handed over%s, in %s\n", sum.Done, sum.Failed, sum.Lost, back, took.Round(time.Millisecond))
	if n := sum.Done + sum.Failed + sum.Lost; n > 0 {
		fmt.Fprintf(a.stdout, "database: %d transactions, %d statements (%.1f and %.1f per cluster)\n",
			db.Transactions, db.Statements, float64(db.Transactions)/float64(n), float64(db.Statements)/float64(n))
	}
	if rows, err := st.FleetRows(ctx, name); err == nil && len(rows) > 0 {
		s := fleet.OverviewOf(rows, st.Now())
		fmt.Fprintf(a.stdout, "fleet %s: %d/%d done, %d failed, %d pending\n", name, s.Outcomes[state.FleetDone], s.Total,
			s.Outcomes[state.FleetFailed], s.Outcomes[state.FleetPending])
	}
	if sum.Stopped != "" {
		fmt.Fprintf(a.stdout, "stopped: %s\n", sum.Stopped)
	}
}

// writeJSONLine writes v as one line of JSON Lines.
func writeJSONLine(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// fleetLog is the log of the clusters' workflows: each step's line is for --log-level debug,
// since a thousand clusters of fifteen steps each would bury what matters.
func (a *app) fleetLog() *slog.Logger {
	if a.g.LogLevel != "info" {
		return a.log
	}
	return slog.New(quieter{a.log.Handler()})
}

// quieter drops info records.
type quieter struct{ slog.Handler }

func (q quieter) Enabled(ctx context.Context, l slog.Level) bool {
	return l > slog.LevelInfo && q.Handler.Enabled(ctx, l)
}

func (q quieter) WithAttrs(as []slog.Attr) slog.Handler { return quieter{q.Handler.WithAttrs(as)} }

func (q quieter) WithGroup(g string) slog.Handler { return quieter{q.Handler.WithGroup(g)} }

// storeCounts is the database work of the store st, when it counts it (the SQL stores do).
func storeCounts(st fleet.Store) sqlstore.Counts {
	if c, ok := st.(interface{ Counts() sqlstore.Counts }); ok {
		return c.Counts()
	}
	return sqlstore.Counts{}
}
