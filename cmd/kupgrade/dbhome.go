package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/kupgrade/kupgrade/state"
)

// systemDB is the database of a kupgrade run as root: the system's state folder, where the
// service unit of `kupgrade watch` looks too.
const systemDB = "/var/lib/kupgrade/kupgrade.db"

// asRoot reports whether kupgrade runs as root (a variable: the tests of a user's default run
// as root too).
var asRoot = func() bool { return os.Geteuid() == 0 }

// defaultDB is the database when neither --db, --db-file nor KUPGRADE_DB names one: a stable
// home, never the folder the command happens to run in.
func defaultDB() string {
	home, err := os.UserHomeDir()
	if err != nil {
		home = "/"
	}
	return defaultDBFor(asRoot(), os.Getenv("XDG_STATE_HOME"), home)
}

// defaultDBFor: as root, systemDB; otherwise the user's state folder,
// $XDG_STATE_HOME/kupgrade/kupgrade.db, or ~/.local/state/kupgrade/kupgrade.db when
// XDG_STATE_HOME is unset or relative (the XDG specification ignores a relative one).
func defaultDBFor(root bool, xdgState, home string) string {
	if root {
		return systemDB
	}
	if !filepath.IsAbs(xdgState) {
		xdgState = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(xdgState, "kupgrade", "kupgrade.db")
}

// makeDBFolder makes the default database's folder (0700) when missing, before the database
// is created in it.
func (a *app) makeDBFolder(d state.DSN) error {
	if !a.defaulted {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(d.Path), 0o700); err != nil {
		return fmt.Errorf("create the folder of the default database: %w: %w", err, state.ErrBadInput)
	}
	return nil
}

// announceCreated says on stderr that a command created the database, so that nobody starts a
// second record of a cluster without a word.
func (a *app) announceCreated(d state.DSN) {
	abs, err := filepath.Abs(d.Path)
	if err != nil {
		abs = d.Path
	}
	if a.json() {
		a.log.Info("created database", "database", "sqlite:"+abs)
		return
	}
	fmt.Fprintf(a.stderr, "kupgrade: created database sqlite:%s\n", abs)
}
