package runner

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A TERM that reaches the fence's wrapper alone (an SSH signal goes to the session's process)
// ends the command too, even one that ignores TERM: the lock is then free and nothing of the
// command runs on without it.
func TestFenceWrapperPassesTermOnAndKills(t *testing.T) {
	if _, err := exec.LookPath("flock"); err != nil {
		t.Skip("no flock(1) on this machine")
	}
	dir := t.TempDir()
	f := &Fence{Cluster: "lab", Key: "u1", Generation: 1, Owner: "me", Dir: filepath.Join(dir, "fence")}
	inner := `trap "" TERM; echo $$ > ` + dir + `/pid; while :; do sleep 0.05; done`
	x := exec.Command("sh", "-c", f.Command(inner, "work"))
	if err := x.Start(); err != nil {
		t.Fatal(err)
	}
	pidFile := filepath.Join(dir, "pid")
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if b, err := os.ReadFile(pidFile); err == nil && len(b) > 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the fenced command never started")
		}
	}
	b, _ := os.ReadFile(pidFile)
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	if err := x.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- x.Wait() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		x.Process.Kill()                   //nolint:errcheck // the test fails anyway
		syscall.Kill(pid, syscall.SIGKILL) //nolint:errcheck // the test fails anyway
		t.Fatal("the wrapper did not end after TERM")
	}
	if syscall.Kill(pid, 0) == nil {
		syscall.Kill(pid, syscall.SIGKILL) //nolint:errcheck // cleaning up
		t.Error("the command that ignores TERM still runs after its wrapper ended")
	}
}
