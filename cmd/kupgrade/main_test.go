package main

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/health"
	"github.com/rogpeppe/go-internal/testscript"
	_ "modernc.org/sqlite"
)

func TestMain(m *testing.M) {
	var tm testscript.TestingM = m
	base := filepath.Base(os.Args[0])
	asCommand := base == "kupgrade" || base == "kupgrade-user" // testscript runs this binary as them
	if os.Getenv("KUPGRADE_LOG_DIR") == "" && !asCommand {     // the tests' run logs, never the machine's, gone after them
		dir, err := os.MkdirTemp("", "kupgrade-test-runs-")
		if err != nil {
			panic(err)
		}
		os.Setenv("KUPGRADE_LOG_DIR", dir)
		tm = removeAfter{m, dir}
	}
	testscript.Main(tm, map[string]func(){
		"kupgrade": func() { os.Exit(Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
		// kupgrade-user: kupgrade as a user who is not root, whoever runs the tests.
		"kupgrade-user": func() {
			asRoot = func() bool { return false }
			os.Exit(Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
		},
	})
}

// removeAfter runs the tests, then removes dir: an upgrade's run logs are kept until the upgrade
// is deleted, and the tests' upgrades are in temporary databases.
type removeAfter struct {
	m   *testing.M
	dir string
}

func (r removeAfter) Run() int {
	code := r.m.Run()
	os.RemoveAll(r.dir)
	return code
}

// TestScripts runs the CLI scenarios in testdata/*.txtar: the commands as a person types them,
// their output and exit status.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata",
		Setup: func(env *testscript.Env) error {
			env.Setenv("KUPGRADE_DB", "sqlite:"+filepath.Join(env.WorkDir, "kupgrade.db"))
			env.Setenv("HOME", env.WorkDir)
			env.Setenv("KUPGRADE_LOG_DIR", filepath.Join(env.WorkDir, "runs"))
			env.Values[heldLockKey{}] = &heldLock{}
			// The scripts' hosts cannot be reached, so no health check can run, and a check
			// that cannot run refuses the start: they skip every check, by name.
			env.Setenv("SKIP_EVERY_CHECK", "--skip-check="+strings.Join(health.Names, ","))
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			// sql DBFILE STATEMENT: an operator's hand edit, as in StarlingX's test plan.
			"sql": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) != 2 {
					ts.Fatalf("usage: sql DBFILE STATEMENT")
				}
				db, err := sql.Open("sqlite", ts.MkAbs(args[0]))
				ts.Check(err)
				defer db.Close()
				_, err = db.Exec(args[1])
				if neg {
					if err == nil {
						ts.Fatalf("sql succeeded unexpectedly")
					}
					return
				}
				ts.Check(err)
			},
			// lockdb DBFILE: an operator's sqlite3 shell in a hand edit (BEGIN EXCLUSIVE and an
			// UPDATE) holds the write lock until unlockdb or the end of the script.
			"lockdb": lockDB,
			"unlockdb": func(ts *testscript.TestScript, neg bool, args []string) {
				ts.Value(heldLockKey{}).(*heldLock).release(ts)
			},
			// status N CMD ARGS...: runs CMD like exec and requires exit status N (docs/cli.md's codes).
			"status": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) < 2 {
					ts.Fatalf("usage: status N CMD ARGS...")
				}
				want, err := strconv.Atoi(args[0])
				ts.Check(err)
				err = ts.Exec(args[1], args[2:]...)
				got := 0
				var ee *exec.ExitError
				if errors.As(err, &ee) {
					got = ee.ExitCode()
				} else if err != nil {
					ts.Fatalf("%v", err)
				}
				if got != want {
					ts.Fatalf("exit status %d, want %d", got, want)
				}
			},
			// sqlq DBFILE QUERY: prints the rows of a query, tab-separated, to stdout.
			"sqlq": func(ts *testscript.TestScript, neg bool, args []string) {
				db, err := sql.Open("sqlite", ts.MkAbs(args[0]))
				ts.Check(err)
				defer db.Close()
				rows, err := db.Query(args[1])
				ts.Check(err)
				defer rows.Close()
				cols, _ := rows.Columns()
				for rows.Next() {
					vals := make([]sql.NullString, len(cols))
					ptrs := make([]any, len(cols))
					for i := range vals {
						ptrs[i] = &vals[i]
					}
					ts.Check(rows.Scan(ptrs...))
					out := make([]string, len(vals))
					for i, v := range vals {
						out[i] = "NULL"
						if v.Valid {
							out[i] = v.String
						}
					}
					ts.Stdout().Write([]byte(strings.Join(out, "\t") + "\n"))
				}
			},
		},
	})
}

type heldLockKey struct{}

// heldLock is the connection of lockdb, open with its transaction until released.
type heldLock struct {
	db   *sql.DB
	conn *sql.Conn
}

func lockDB(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: lockdb DBFILE")
	}
	h := ts.Value(heldLockKey{}).(*heldLock)
	db, err := sql.Open("sqlite", ts.MkAbs(args[0]))
	ts.Check(err)
	conn, err := db.Conn(context.Background())
	ts.Check(err)
	h.db, h.conn = db, conn
	ts.Defer(func() { h.release(ts) })
	for _, q := range []string{"BEGIN EXCLUSIVE", "UPDATE host SET personality = personality"} {
		_, err := conn.ExecContext(context.Background(), q)
		ts.Check(err)
	}
}

func (h *heldLock) release(ts *testscript.TestScript) {
	if h.conn == nil {
		return
	}
	_, err := h.conn.ExecContext(context.Background(), "ROLLBACK")
	h.conn.Close()
	h.db.Close()
	h.conn, h.db = nil, nil
	ts.Check(err)
}
