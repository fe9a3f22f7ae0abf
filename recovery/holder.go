package recovery

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/kupgrade/kupgrade/state"
)

// processAlive reports whether a process of this machine has that PID (one of another user's
// counts: it exists).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// goneHolder is GoneHolder for a lease, which may be nil (none).
func goneHolder(l *state.Lease) (pid int, gone bool) {
	if l == nil {
		return 0, false
	}
	return GoneHolder(l.Owner)
}

// GoneHolder reports the PID of owner (a lease holder named HOST:PID:TAG, as kupgrade names
// itself) when HOST is this machine and no process has that PID any more: the holder was killed
// (SIGKILL, a crash), and its lease only waits to expire.
func GoneHolder(owner string) (pid int, gone bool) {
	parts := strings.Split(owner, ":")
	if len(parts) != 3 {
		return 0, false
	}
	host, err := os.Hostname()
	if err != nil || parts[0] != host {
		return 0, false
	}
	pid, err = strconv.Atoi(parts[1])
	if err != nil || pid <= 0 {
		return 0, false
	}
	return pid, !processAlive(pid)
}
