package sqlite

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"

	"github.com/kupgrade/kupgrade/state"
	"github.com/kupgrade/kupgrade/state/sqlstore"
)

// flockLocker is the audit lock of a SQLite database: an exclusive, non-blocking flock on a file
// beside it. The kernel drops the lock when the process dies, so a killed auditor never leaves
// it held. Each call opens the file anew, so two Stores in one process exclude each other too.
func flockLocker(path string) sqlstore.AuditLocker {
	return func(ctx context.Context) (*state.AuditHold, error) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			return nil, fmt.Errorf("open audit lock: %w", err)
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			f.Close()
			if errors.Is(err, syscall.EWOULDBLOCK) {
				return nil, nil
			}
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		// Closing the file releases the lock; the file itself stays, as an empty marker. The
		// kernel holds it for as long as the process lives: it is never lost.
		return state.NewAuditHold(func() { f.Close() }, nil), nil
	}
}
