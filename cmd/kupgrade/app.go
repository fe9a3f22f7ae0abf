package main

import (
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/kupgrade/kupgrade/internal/termsafe"
	"github.com/kupgrade/kupgrade/inventory"
	"github.com/kupgrade/kupgrade/notify"
	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/state"
	"golang.org/x/term"
)

// Globals are the global flags of docs/cli.md.
type Globals struct {
	DB                string        `name:"db" env:"KUPGRADE_DB" help:"State store: sqlite:PATH or mysql://user:pass@host:port/db (a Galera cluster: mysql://user:pass@db1,db2,db3/db). Default: sqlite:/var/lib/kupgrade/kupgrade.db as root, else sqlite:$XDG_STATE_HOME/kupgrade/kupgrade.db (~/.local/state/kupgrade/kupgrade.db)."`
	DBFile            string        `name:"db-file" type:"path" help:"Read the DSN from this file (keeps a password off the command line)."`
	Inventory         []string      `short:"i" env:"KUPGRADE_INVENTORY" default:"inventory.yml" type:"path" sep:"none" help:"Ansible inventory: a YAML or INI file, or a folder of them; repeat -i to merge several, later ones winning."`
	Cluster           string        `env:"KUPGRADE_CLUSTER" help:"Cluster name (default: kupgrade_cluster of the inventory, else 'default')."`
	KnownHosts        string        `name:"known-hosts" env:"KUPGRADE_KNOWN_HOSTS" type:"path" help:"known_hosts to verify host keys against (default: kupgrade_known_hosts, else ssh_config's UserKnownHostsFile, else ~/.ssh/known_hosts); a host's -o UserKnownHostsFile wins."`
	AcceptNewHostKeys bool          `name:"accept-new-host-keys" help:"Trust and record keys of hosts not yet known; a changed key is still refused."`
	Output            string        `short:"o" enum:"table,json" default:"table" help:"Output: table or json."`
	LogLevel          string        `name:"log-level" enum:"debug,info,warn,error" default:"info" help:"Diagnostics level (stderr)."`
	LogFormat         string        `name:"log-format" enum:"auto,text,json" default:"auto" help:"Diagnostics format (stderr): auto is json under -o json (every line a tool reads is JSON), else text."`
	ClockOffset       time.Duration `name:"clock-offset" env:"KUPGRADE_CLOCK_OFFSET" hidden:"" help:"Shift this machine's clock as kupgrade reads it (fault tests: leases must not depend on it)."`
	LeaseTTL          time.Duration `name:"lease-ttl" env:"KUPGRADE_LEASE_TTL" default:"30s" help:"Lease time-to-live of an operation; a dead kupgrade is noticed after about this long."`
	KubeadmTimeout    time.Duration `name:"kubeadm-timeout" default:"15m" help:"Time one kubeadm command may take before it is stopped and the step failed."`
	DrainTimeout      time.Duration `name:"drain-timeout" default:"5m" help:"Time the drain of one node may wait on evictions (a PodDisruptionBudget that blocks) before the kubelet step fails, naming the pods and budgets."`
	VerifyTimeout     time.Duration `name:"verify-timeout" default:"2m" help:"Time complete waits for the API server to report every node Ready at the target kubelet and the control-plane pods at the target (abort: the control-plane pods Ready at the starting version) before the step fails, naming what they report."`
	NotifyURL         string        `name:"notify-url" env:"KUPGRADE_NOTIFY_URL" help:"POST a JSON document to this webhook when an upgrade fails, is stuck (watch) or completes: cluster, state, host, finding, next command; retried, never blocking the run."`
	Vault             `embed:""`
	SnapshotDir       string        `name:"snapshot-dir" env:"KUPGRADE_SNAPSHOT_DIR" type:"path" help:"Folder on this machine for the etcd snapshot each upgrade takes before its control plane moves (a folder per cluster under it). Default: etcd-snapshots beside the default database (/var/lib/kupgrade/etcd-snapshots as root)."`
	KeepSnapshots     int           `name:"keep-snapshots" default:"3" help:"How many upgrades' etcd snapshots to keep per cluster; older ones are removed after a new one is saved."`
	FenceWait         time.Duration `name:"fence-wait" env:"KUPGRADE_FENCE_WAIT" default:"2m" help:"Time a step's command waits on a host for another kupgrade's command to end before the step fails."`
}

// app holds what commands share: flags, writers, and the store and inventory, opened on first use.
type app struct {
	g              *Globals
	stdin          io.Reader
	stdout, stderr io.Writer
	rawStdout      io.Writer // stdout unescaped: the text reporter's, which escapes itself and draws its bar
	log            *slog.Logger
	db             state.DSN // parsed once, by dsn
	dbErr          error
	parsed         bool
	defaulted      bool  // the database is defaultDB's: no --db, --db-file or KUPGRADE_DB
	mayCreate      bool  // this command may create the database: upgrade start, fleet run
	store          store // for writing (Store)
	reader         store // for reading only (Reader), when no writer is open
	inv            *inventory.Inventory
	run            *runner.Runner
	rep            runner.Reporter
	secrets        []string
	given          map[string]bool  // hintFlags typed on the command line (see command)
	cmdName        string           // the command as kong names it ("upgrade run", "play <playbook>")
	runLog         *runLog          // this run's log, once a command runs tasks (startRunLog)
	notifier       *notify.Notifier // --notify-url's webhook; nil when none
	live           bool             // the reporter draws a live line on a terminal (diag.go)
	errTTY         bool             // stderr is a terminal: diagnostics would mix with the live line
}

func newApp(g *Globals, stdin io.Reader, stdout, stderr io.Writer) *app {
	level := map[string]slog.Level{"debug": slog.LevelDebug, "info": slog.LevelInfo, "warn": slog.LevelWarn, "error": slog.LevelError}[g.LogLevel]
	opts := &slog.HandlerOptions{Level: level}
	a := &app{g: g, stdin: stdin, stdout: stdout, stderr: stderr, rawStdout: stdout}
	if f, ok := stderr.(*os.File); ok {
		a.errTTY = term.IsTerminal(int(f.Fd()))
	}
	handler := func(w io.Writer) slog.Handler {
		if g.LogFormat == "json" || g.LogFormat != "text" && g.Output == "json" {
			o := *opts
			o.ReplaceAttr = durationString
			return slog.NewJSONHandler(w, &o)
		}
		return slog.NewTextHandler(w, opts)
	}
	a.log = slog.New(split{low: handler(diagOut{a, false}), high: handler(diagOut{a, true})})
	if g.Output != "json" {
		// Text and tables print what hosts sent (output, errors, reasons read back from the
		// database): no terminal escape of theirs reaches the operator's terminal. JSON escapes
		// them itself.
		a.stdout, a.stderr = termsafe.NewWriter(stdout), termsafe.NewWriter(stderr)
	}
	return a
}

// durationString writes a duration in a JSON log as Go's duration string ("1m30s"), not as
// slog's default nanoseconds.
func durationString(_ []string, at slog.Attr) slog.Attr {
	if at.Value.Kind() == slog.KindDuration {
		at.Value = slog.StringValue(at.Value.Duration().String())
	}
	return at
}

func (a *app) close() {
	a.closeNotifier()
	if a.run != nil {
		a.run.Close()
	}
	for _, st := range []store{a.store, a.reader} {
		if st != nil {
			st.Close()
		}
	}
}

func (a *app) json() bool { return a.g.Output == "json" }

// Inventory loads the inventory, once.
func (a *app) Inventory() (*inventory.Inventory, error) {
	if a.inv != nil {
		return a.inv, nil
	}
	inv, err := inventory.LoadAll(a.g.Inventory...)
	if err != nil {
		return nil, err
	}
	for _, w := range inv.Warnings {
		a.log.Warn(w)
	}
	a.inv = inv
	return inv, nil
}

// cluster is --cluster, else the inventory's kupgrade_cluster (when the inventory loads), else
// "default".
func (a *app) cluster() string {
	if a.g.Cluster != "" {
		return a.g.Cluster
	}
	inv, err := a.Inventory()
	switch {
	case err == nil && inv.Cluster() != "":
		return inv.Cluster()
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		// Commands that only read the database still work, but say why the cluster may be wrong.
		a.log.Warn("inventory unreadable, using cluster \"default\" (pass --cluster)", "err", err)
	}
	return "default"
}

// redact removes secrets (whatever may be a DSN's password) from text meant for people.
func (a *app) redact(s string) string { return redactWith(s, a.secrets) }

func redactWith(s string, secrets []string) string {
	for _, sec := range secrets {
		if sec != "" {
			s = strings.ReplaceAll(s, sec, "*****")
		}
	}
	return s
}

// redactArgs removes from a command-line error whatever may be a DSN's password in args (kong
// may quote an argument it did not expect) or in KUPGRADE_DB: no DSN is parsed yet then.
func redactArgs(msg string, args []string) string {
	var secrets []string
	for _, arg := range append(args, os.Getenv("KUPGRADE_DB")) {
		secrets = append(secrets, state.DSNSecrets(arg)...)
		if _, v, ok := strings.Cut(arg, "="); ok { // --db=DSN
			secrets = append(secrets, state.DSNSecrets(v)...)
		}
	}
	return redactWith(msg, secrets)
}

// explicitInventory loads the inventory the operator named (-i or KUPGRADE_INVENTORY) before any
// command runs: one that cannot be read is bad input for every command, even one that needs it
// only for the cluster's name, instead of a silent fall-back to cluster "default".
//
// Commands that can do without an inventory take one only typed with -i: an exported
// KUPGRADE_INVENTORY left over from another cluster does not stop watch (it audits every
// cluster, and says it probes no host) nor fleet run (its fleet is --inventories or -i).
func (a *app) explicitInventory(command string) error {
	if command == "version" || strings.HasPrefix(command, "fleet ") || (!a.given["inventory"] && os.Getenv("KUPGRADE_INVENTORY") == "") {
		return nil
	}
	if command == "watch" && !a.given["inventory"] {
		return nil
	}
	_, err := a.Inventory()
	return err
}
