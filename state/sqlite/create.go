package sqlite

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"strings"

	"github.com/kupgrade/kupgrade/state"
)

// privateMode is the mode of a database file kupgrade creates: the database holds the event
// evidence (command output) of every upgrade, which only its owner may read. SQLite creates the
// -wal and -shm files with the mode of the database file, so they are private too.
const privateMode fs.FileMode = 0o600

// createPrivate creates the database file at path, empty and private, when it does not exist, so
// that SQLite opens it instead of creating it with the umask's mode (0644 usually); it warns about
// an existing one that others may read (an older kupgrade created it 0644). An in-memory
// database or a file: URI is left to SQLite.
func createPrivate(path string, log *slog.Logger) error {
	if path == ":memory:" || strings.HasPrefix(path, "file:") {
		return nil
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, privateMode)
	if errors.Is(err, fs.ErrExist) {
		warnShared(path, log)
		return nil
	}
	if err != nil {
		return fmt.Errorf("%w: create sqlite %s: %w", state.ErrBadInput, path, err)
	}
	// The umask cannot widen 0600, but it may narrow it: make it exactly 0600.
	if err := f.Chmod(privateMode); err != nil {
		f.Close()
		return fmt.Errorf("create sqlite %s: %w", path, err)
	}
	return f.Close()
}

// warnShared warns when users other than the owner may read the database at path.
func warnShared(path string, log *slog.Logger) {
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm()&0o077 == 0 {
		return
	}
	log.Warn(fmt.Sprintf("database %s is readable by others (mode %#o) and holds every upgrade's command output: "+
		"chmod 600 %s %s-wal %s-shm", path, fi.Mode().Perm(), path, path, path))
}
