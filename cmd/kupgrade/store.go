package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/kupgrade/kupgrade/state"
	"github.com/kupgrade/kupgrade/state/mysql"
	"github.com/kupgrade/kupgrade/state/sqlite"
	"github.com/kupgrade/kupgrade/state/sqlstore"
)

// store is what every implementation cmd opens keeps: the upgrades and the fleets, and the
// judgement of which errors mean the database is unavailable (fleet.Store).
type store interface {
	state.Store
	state.FleetStore
	Unavailable(err error) bool
	Counts() sqlstore.Counts // this store's transactions and statements, for fleet run's summary
}

// openStore opens the store a parsed DSN names: cmd alone chooses implementations.
func openStore(ctx context.Context, d state.DSN, opts ...state.Option) (store, error) {
	switch d.Driver {
	case "mysql":
		return mysql.Open(ctx, d, opts...)
	default:
		return sqlite.Open(ctx, d.Path, opts...)
	}
}

// dsn parses, once, the DSN from --db-file when given, else --db / KUPGRADE_DB. Whatever may be
// its password is added to the secrets first, so that no message printed afterwards shows it,
// even when the DSN does not parse.
func (a *app) dsn() (state.DSN, error) {
	if a.parsed {
		return a.db, a.dbErr
	}
	a.parsed = true
	raw := a.g.DB
	if raw == "" && a.g.DBFile == "" {
		raw, a.defaulted = "sqlite:"+defaultDB(), true
	}
	if a.g.DBFile != "" {
		b, err := os.ReadFile(a.g.DBFile)
		if err != nil {
			a.dbErr = fmt.Errorf("read --db-file: %v: %w", err, state.ErrBadInput)
			return a.db, a.dbErr
		}
		raw = strings.TrimSpace(string(b))
	}
	a.secrets = append(a.secrets, state.DSNSecrets(raw)...)
	a.db, a.dbErr = state.ParseDSN(raw)
	a.secrets = append(a.secrets, a.db.Password) // "" when it did not parse
	return a.db, a.dbErr
}

// dbIdentity names the database in use for the host fence's stamps (state.DSN.Identity); ""
// when the DSN does not parse (nothing is opened then).
func (a *app) dbIdentity() string {
	d, err := a.dsn()
	if err != nil {
		return ""
	}
	return d.Identity()
}

// Store opens, once, the state store for commands that write. Only `upgrade start` and `fleet
// run` may create the database (mayCreate): for the others, a missing one is bad input naming
// the database looked for.
func (a *app) Store(ctx context.Context) (store, error) {
	if a.store != nil {
		return a.store, nil
	}
	d, err := a.dsn()
	if err != nil {
		return nil, err
	}
	missing := mustExist(d)
	if missing != nil && !a.mayCreate {
		return nil, missing
	}
	if missing != nil {
		if err := a.makeDBFolder(d); err != nil {
			return nil, err
		}
	}
	st, err := openStore(ctx, d, a.storeOptions()...)
	if err != nil {
		return nil, err
	}
	if missing != nil {
		a.announceCreated(d)
	}
	a.store = st
	return st, nil
}

// Reader opens, once, the state store for commands that only read: it answers while another
// process holds the database's write lock (an operator's sqlite3 shell, a running upgrade).
func (a *app) Reader(ctx context.Context) (store, error) {
	if a.store != nil {
		return a.store, nil
	}
	if a.reader != nil {
		return a.reader, nil
	}
	d, err := a.dsn()
	if err != nil {
		return nil, err
	}
	if err := mustExist(d); err != nil {
		return nil, err
	}
	st, err := openStore(ctx, d, append(a.storeOptions(), state.ReadOnly())...)
	if err != nil {
		return nil, err
	}
	a.reader = st
	return st, nil
}

// storeOptions are the options every store of this process is opened with.
func (a *app) storeOptions() []state.Option {
	// The audit lock's lease (MySQL) lasts as long as an operation's: a dead watcher is taken
	// over as soon as a dead runner is noticed.
	opts := []state.Option{state.WithLog(a.log), state.WithAuditTTL(a.g.LeaseTTL)}
	if off := a.g.ClockOffset; off != 0 {
		opts = append(opts, state.WithWallClock(func() time.Time { return time.Now().Add(off) }))
	}
	return opts
}

// mustExist refuses to open an SQLite database that does not exist: opening it would create an
// empty one, and a command given the wrong database would then report "no upgrade" or "nothing
// is stuck" instead of the mistake.
func mustExist(d state.DSN) error {
	if d.Driver == "mysql" || d.Path == ":memory:" || strings.HasPrefix(d.Path, "file:") {
		return nil
	}
	if _, err := os.Stat(d.Path); err == nil || !errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	abs, err := filepath.Abs(d.Path)
	if err != nil {
		abs = d.Path
	}
	return &missingDBError{path: abs}
}

// missingDBError is mustExist's refusal: bad input, which a plan before any upgrade tolerates.
type missingDBError struct{ path string }

func (e *missingDBError) Error() string {
	return fmt.Sprintf("database sqlite:%s does not exist; pass --db sqlite:PATH (or KUPGRADE_DB) naming the database "+
		"of the upgrade; this command creates no database (only `upgrade start` and `fleet run` do)", e.path)
}

func (e *missingDBError) Unwrap() error { return state.ErrBadInput }

// otherClusters says, for a cluster that has no upgrade, which clusters of the open database
// have one ("" when the cluster has one after all, or no store is open): a --cluster typo must
// not look like an empty database.
func (a *app) otherClusters() string {
	st := a.store
	if st == nil {
		st = a.reader
	}
	if st == nil {
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	cluster := a.cluster()
	if _, err := st.Upgrade(ctx, cluster); !errors.Is(err, state.ErrNotFound) {
		return ""
	}
	us, err := st.Upgrades(ctx)
	if err != nil {
		return ""
	}
	if len(us) == 0 {
		return "\n  the database holds no upgrade of any cluster"
	}
	var names []string
	for _, u := range us {
		names = append(names, fmt.Sprintf("%s (%s)", u.Cluster, u.State))
	}
	return fmt.Sprintf("\n  clusters with an upgrade in this database: %s; pass --cluster NAME", strings.Join(names, ", "))
}
