package runner_test

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// assertGone checks that the process whose pid is in pidfile no longer exists.
func assertGone(t *testing.T, pidfile string) {
	t.Helper()
	b, err := os.ReadFile(pidfile)
	if err != nil {
		t.Fatalf("the command never started: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("process %d still exists after the timeout (kill -0: %v)", pid, err)
	}
}

// waitGone is assertGone for transports that kill asynchronously (the SSH session's watchdog):
// it polls a few seconds before it reports the process as left behind.
func waitGone(t *testing.T, pidfile string) {
	t.Helper()
	for range 50 {
		if b, err := os.ReadFile(pidfile); err == nil {
			pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
			if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
				return
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	assertGone(t, pidfile)
}
