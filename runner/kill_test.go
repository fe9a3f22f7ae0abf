package runner_test

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
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
