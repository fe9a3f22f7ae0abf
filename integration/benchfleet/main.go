// Command benchfleet measures `kupgrade fleet run` on a simulated fleet (internal/sim): for
// each database and number of clusters, the wall time, kupgrade's CPU per cluster (the fleet
// run's process alone: the simulated hosts run in this one), and the database transactions
// and statements per cluster (counted by kupgrade's store). `make bench-fleet` runs it.
package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	_ "github.com/go-sql-driver/mysql" // to empty the MariaDB database between runs

	"github.com/kupgrade/kupgrade/integration/lab"
	"github.com/kupgrade/kupgrade/internal/sim"
)

type options struct {
	ns       []int
	dbs      []string
	parallel int
	kupgrade string
}

func main() {
	var o options
	var ns, dbs string
	flag.StringVar(&ns, "n", "100,1000", "numbers of clusters (2 controllers + 1 worker each), comma-separated")
	flag.StringVar(&dbs, "db", "sqlite,mariadb", "databases: sqlite, mariadb (a lab container), comma-separated")
	flag.IntVar(&o.parallel, "max-parallel", 20, "fleet run --max-parallel")
	flag.StringVar(&o.kupgrade, "kupgrade", "", "kupgrade binary to measure (default: build ./cmd/kupgrade)")
	flag.Parse()
	var err error
	for _, f := range strings.Split(ns, ",") {
		n, e := strconv.Atoi(strings.TrimSpace(f))
		if e != nil || n < 1 {
			err = fmt.Errorf("-n: %q is not a number of clusters", f)
		}
		o.ns = append(o.ns, n)
	}
	for _, d := range strings.Split(dbs, ",") {
		if d = strings.TrimSpace(d); d != "sqlite" && d != "mariadb" {
			err = fmt.Errorf("-db: %q is neither sqlite nor mariadb", d)
		}
		o.dbs = append(o.dbs, d)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchfleet:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, o, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "benchfleet:", err)
		os.Exit(1)
	}
}

// result is one measured fleet run.
type result struct {
	db        string
	n         int
	wall, cpu time.Duration
	tx, stmts int64
	load      string
	done      int
	failures  []string // the JSON lines of the clusters that failed
}

func run(ctx context.Context, o options, out, log io.Writer) error {
	dir, err := os.MkdirTemp("", "kupgrade-benchfleet-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if o.kupgrade == "" {
		o.kupgrade = filepath.Join(dir, "kupgrade")
		if b, err := exec.Command("go", "build", "-o", o.kupgrade, "./cmd/kupgrade").CombinedOutput(); err != nil {
			return fmt.Errorf("build kupgrade: %w\n%s", err, b)
		}
	}
	var rs []result
	for _, db := range o.dbs {
		dsn, reset, done, err := database(ctx, db, dir, log)
		if err != nil {
			return err
		}
		for _, n := range o.ns {
			if err := reset(); err != nil {
				done()
				return err
			}
			fmt.Fprintf(log, "benchfleet: %s, %d clusters...\n", db, n)
			r, err := measure(ctx, o, db, dsn, n, filepath.Join(dir, fmt.Sprintf("%s-%d", db, n)), log)
			if err != nil {
				done()
				return err
			}
			rs = append(rs, r)
		}
		done()
	}
	report(out, rs)
	return nil
}

// database returns the DSN of an empty database of the kind db, a reset that empties it, and
// what removes it.
func database(ctx context.Context, db, dir string, log io.Writer) (dsn string, reset func() error, done func(), err error) {
	if db == "sqlite" {
		path := filepath.Join(dir, "kupgrade.db")
		return "sqlite:" + path, func() error {
			for _, suf := range []string{"", "-wal", "-shm"} {
				if err := os.Remove(path + suf); err != nil && !errors.Is(err, os.ErrNotExist) {
					return err
				}
			}
			return nil
		}, func() {}, nil
	}
	m, err := lab.UpMariaDB(ctx, time.Hour, log)
	if err != nil {
		return "", nil, nil, err
	}
	done = func() { _ = m.Purge(context.WithoutCancel(ctx)) }
	return m.DSN(), func() error { return emptyMariaDB(ctx, m.DSN()) }, done, nil
}

// emptyMariaDB drops kupgrade's tables: the next run migrates an empty database.
func emptyMariaDB(ctx context.Context, dsn string) error {
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	// kube_upgrade_lease is a view since schema 0008, a table before: the view's drop fails on the
	// table, which DROP TABLE then drops.
	db.ExecContext(ctx, "DROP VIEW IF EXISTS kube_upgrade_lease") //nolint:errcheck // see above
	var drops []string
	for _, t := range []string{"fleet_cluster", "kube_upgrade_event", "upgrade_lease", "kube_upgrade_lease", "kube_host_upgrade", "kube_upgrade", "host", "schema_migrations"} {
		drops = append(drops, "DROP TABLE IF EXISTS "+t)
	}
	for _, q := range drops {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("empty mariadb: %w", err)
		}
	}
	return nil
}

// measure runs one fleet run of n clusters and reads its cost.
func measure(ctx context.Context, o options, db, dsn string, n int, dir string, log io.Writer) (result, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return result{}, err
	}
	f, err := sim.Start(sim.Options{Clusters: n, Controllers: 2, Workers: 1, From: "v1.29.4", To: "v1.30.1", Dir: dir})
	if err != nil {
		return result{}, err
	}
	defer f.Close()
	load, _ := os.ReadFile("/proc/loadavg")
	c := exec.CommandContext(ctx, o.kupgrade, "--db", dsn, "-o", "json", "fleet", "run", "--to", "v1.30.1",
		"--inventories", f.Inventories, "--max-parallel", strconv.Itoa(o.parallel))
	c.Env = append(os.Environ(), "HOME="+dir)
	var stdout, stderr strings.Builder
	c.Stdout, c.Stderr = &stdout, &stderr
	start := time.Now()
	err = c.Run()
	r := result{db: db, n: n, wall: time.Since(start), load: strings.Join(strings.Fields(string(load))[:3], " ")}
	if c.ProcessState == nil {
		return r, fmt.Errorf("fleet run of %d clusters on %s: %w\n%s", n, db, err, tail(stderr.String()))
	}
	r.cpu = c.ProcessState.UserTime() + c.ProcessState.SystemTime()
	var sum struct {
		Event  string `json:"event"`
		Done   int    `json:"done"`
		Failed int    `json:"failed"`
		Tx     int64  `json:"db_transactions"`
		Stmts  int64  `json:"db_statements"`
	}
	for _, line := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		if strings.Contains(line, `"outcome":"failed"`) {
			r.failures = append(r.failures, line) // a failed cluster is reported, not hidden
		}
		if json.Unmarshal([]byte(line), &sum) == nil && sum.Event == "fleet_summary" {
			r.tx, r.stmts, r.done = sum.Tx, sum.Stmts, sum.Done
		}
	}
	if r.done+len(r.failures) != n {
		return r, fmt.Errorf("fleet run of %d clusters on %s: %v, %d done\n%s", n, db, err, r.done, tail(stdout.String()+stderr.String()))
	}
	fmt.Fprintf(log, "benchfleet: %s, %d clusters: %d done in %.1f s\n", db, n, r.done, r.wall.Seconds())
	return r, nil
}

func tail(s string) string { return s[max(0, len(s)-2000):] }

// report prints the table and how the cost per cluster grows from the smallest N to the largest.
func report(w io.Writer, rs []result) {
	fmt.Fprintf(w, "%8s %6s %6s %8s %11s %8s %12s %8s %10s  %s\n", "db", "N", "failed", "wall s", "clusters/s", "CPU s", "CPU ms/clus", "tx/clus", "stmts/clus", "load before")
	for _, r := range rs {
		n := float64(r.n)
		fmt.Fprintf(w, "%8s %6d %6d %8.1f %11.1f %8.1f %12.1f %8.1f %10.1f  %s\n", r.db, r.n, len(r.failures), r.wall.Seconds(), n/r.wall.Seconds(),
			r.cpu.Seconds(), 1000*r.cpu.Seconds()/n, float64(r.tx)/n, float64(r.stmts)/n, r.load)
	}
	for _, r := range rs {
		for _, f := range r.failures {
			fmt.Fprintf(w, "FAILED on %s at N=%d: %s\n", r.db, r.n, f)
		}
	}
	for i := range rs {
		for j := i + 1; j < len(rs); j++ {
			a, b := rs[i], rs[j]
			if a.db != b.db {
				continue
			}
			per := func(r result, x float64) float64 { return x / float64(r.n) }
			fmt.Fprintf(w, "%s, N %d -> %d: CPU per cluster x%.2f, statements per cluster x%.2f, wall per cluster x%.2f\n", a.db, a.n, b.n,
				per(b, b.cpu.Seconds())/per(a, a.cpu.Seconds()), per(b, float64(b.stmts))/per(a, float64(a.stmts)),
				per(b, b.wall.Seconds())/per(a, a.wall.Seconds()))
		}
	}
	for _, r := range rs {
		if r.db == "sqlite" && r.n >= 1000 {
			verdict := "PASS"
			if r.wall > 5*time.Minute {
				verdict = "FAIL"
			}
			fmt.Fprintf(w, "target: %d clusters on SQLite in %.0f s (want < 300 s) %s\n", r.n, r.wall.Seconds(), verdict)
		}
	}
}
