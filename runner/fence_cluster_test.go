package runner_test

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/runner"
)

// A command of another cluster's operation is refused on a host whose last command, of a
// live operation of its own cluster, ended less than the claim ago; it runs once the claim has
// passed. The refusal names both clusters.
func TestFenceRefusesAnotherClustersLiveHost(t *testing.T) {
	dir := t.TempDir()
	a := runner.Fence{Cluster: "lab", Key: "u1", Generation: 3, Owner: "a", Wait: time.Minute, Claim: time.Hour, Dir: filepath.Join(dir, "fence")}
	if err := playFenced(t, "true", a).wait(t); err != nil {
		t.Fatal(err)
	}
	b := runner.Fence{Cluster: "c0001", Key: "u9", Generation: 1, Owner: "b", Wait: time.Minute, Dir: a.Dir}
	err := playFenced(t, "touch "+dir+"/b-ran", b).wait(t)
	if !errors.Is(err, runner.ErrFenced) {
		t.Fatalf("another cluster's command on a live host: %v, want refused", err)
	}
	for _, want := range []string{"live upgrade of cluster lab", "command of cluster c0001", "--cluster"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("refusal %q does not say %q", err, want)
		}
	}
	if _, statErr := os.Stat(dir + "/b-ran"); statErr == nil {
		t.Error("the other cluster's command ran")
	}
	a.Claim = 0 // the same cluster's next command, whose claim ends with it
	if err := playFenced(t, "true", a).wait(t); err != nil {
		t.Fatalf("the same cluster again: %v", err)
	}
	if err := playFenced(t, "touch "+dir+"/b-ran", b).wait(t); err != nil {
		t.Fatalf("another cluster once the claim has passed: %v", err)
	}
}

// A command of another cluster that had to wait for the running one is refused once it gets
// the lock, however short the claim: the one it waited for was live.
func TestFenceRefusesAnotherClusterAfterWaiting(t *testing.T) {
	dir := t.TempDir()
	a := runner.Fence{Cluster: "lab", Key: "u1", Generation: 1, Owner: "a", Wait: time.Minute, Dir: filepath.Join(dir, "fence")}
	holder := playFenced(t, blocker(dir, "a"), a)
	waitFile(t, dir+"/started-a")
	b := runner.Fence{Cluster: "c0001", Key: "u9", Generation: 1, Owner: "b", Wait: time.Minute, Dir: a.Dir}
	other := playFenced(t, "touch "+dir+"/b-ran", b)
	time.Sleep(300 * time.Millisecond) // b waits for the lock by now
	if err := os.WriteFile(dir+"/release", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := holder.wait(t); err != nil {
		t.Fatal(err)
	}
	if err := other.wait(t); !errors.Is(err, runner.ErrFenced) || !strings.Contains(err.Error(), "cluster lab") {
		t.Fatalf("the other cluster's waiter: %v, want refused naming cluster lab", err)
	}
	if _, statErr := os.Stat(dir + "/b-ran"); statErr == nil {
		t.Error("the other cluster's command ran")
	}
}

// A daemon that a fenced command leaves running (a kubelet started with &) does not hold the
// host's lock: the next fenced command runs at once.
func TestFenceDaemonDoesNotKeepTheLock(t *testing.T) {
	dir := t.TempDir()
	f := runner.Fence{Cluster: "lab", Key: "u1", Generation: 1, Owner: "a", Dir: filepath.Join(dir, "fence")}
	daemon := "sleep 60 </dev/null >/dev/null 2>&1 & echo $! > " + dir + "/daemon.pid"
	if err := playFenced(t, daemon, f).wait(t); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if pid, err := strconv.Atoi(readMarks(t, dir+"/daemon.pid")); err == nil {
			syscall.Kill(pid, syscall.SIGKILL) //nolint:errcheck // it may be gone
		}
	})
	if err := playFenced(t, "touch "+dir+"/next-ran", f).wait(t); err != nil {
		t.Fatalf("next command while the daemon runs: %v, want it to run at once", err)
	}
}

// An empty, torn or hand-edited stamp is refused, naming the file and the way out; the command
// does not run.
func TestFenceRefusesADamagedStamp(t *testing.T) {
	for name, stamp := range map[string]string{"empty": "", "torn": "v2 123 lab u1 ", "older format": "u1 0 old 2026-01-01T00:00:00Z x\n"} {
		dir := t.TempDir()
		f := runner.Fence{Cluster: "lab", Key: "u1", Generation: 1, Owner: "a", Dir: filepath.Join(dir, "fence")}
		if err := os.MkdirAll(f.Dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(f.Dir, runner.FenceStampFile), []byte(stamp), 0o600); err != nil {
			t.Fatal(err)
		}
		err := playFenced(t, "touch "+dir+"/ran", f).wait(t)
		if !errors.Is(err, runner.ErrFenced) || !strings.Contains(err.Error(), "cannot be read") || !strings.Contains(err.Error(), "remove "+f.Dir+"/fence") {
			t.Errorf("%s stamp: %v, want a refusal naming the stamp and its removal", name, err)
		}
		if _, statErr := os.Stat(dir + "/ran"); statErr == nil {
			t.Errorf("%s stamp: the command ran", name)
		}
	}
}

// The stamp, and the refusals that quote it, name the task and a digest, never the command's
// text: a secret on the command line stays off the host's stamp.
func TestFenceStampHoldsNoCommandText(t *testing.T) {
	dir := t.TempDir()
	f := runner.Fence{Cluster: "lab", Key: "u1", Generation: 1, Owner: "a", Wait: time.Minute, Dir: filepath.Join(dir, "fence")}
	holder := playFenced(t, "echo user:s3cret >/dev/null; "+blocker(dir, "a"), f)
	waitFile(t, dir+"/started-a")
	f.Wait = 0
	err := playFenced(t, "true", f).wait(t)
	if err := os.WriteFile(dir+"/release", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := holder.wait(t); err != nil {
		t.Fatal(err)
	}
	if !errors.Is(err, runner.ErrFenced) || strings.Contains(err.Error(), "s3cret") || !strings.Contains(err.Error(), "work (sha256:") {
		t.Errorf("busy refusal %v, want one naming task work and its digest, not the command", err)
	}
	if b, _ := os.ReadFile(filepath.Join(f.Dir, runner.FenceStampFile)); strings.Contains(string(b), "s3cret") {
		t.Errorf("stamp %q holds the command's text", b)
	}
}

// A host in two clusters keeps the announcement of each key: another cluster's command that
// announces itself after a newer generation of u1 did does not let u1's stale waiter through.
func TestFenceKeepsEachKeysAnnouncement(t *testing.T) {
	dir := t.TempDir()
	f := runner.Fence{Cluster: "lab", Key: "u1", Generation: 1, Owner: "first", Wait: time.Minute, Dir: filepath.Join(dir, "fence")}
	holder := playFenced(t, blocker(dir, "a"), f)
	waitFile(t, dir+"/started-a")
	stale := playFenced(t, "touch "+dir+"/stale-ran", f)
	time.Sleep(300 * time.Millisecond) // the stale command waits for the lock by now
	newer := runner.Fence{Cluster: "lab", Key: "u1", Generation: 2, Owner: "retry", Dir: f.Dir}
	if err := playFenced(t, "true", newer).wait(t); !errors.Is(err, runner.ErrFenced) {
		t.Fatalf("newer generation with no wait while the host is busy: %v, want a busy refusal", err)
	}
	other := runner.Fence{Cluster: "c0001", Key: "u9", Generation: 1, Owner: "other", Dir: f.Dir}
	if err := playFenced(t, "true", other).wait(t); !errors.Is(err, runner.ErrFenced) {
		t.Fatalf("the other cluster's command while the host is busy: %v, want a busy refusal", err)
	}
	if err := os.WriteFile(dir+"/release", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := holder.wait(t); err != nil {
		t.Fatal(err)
	}
	if err := stale.wait(t); !errors.Is(err, runner.ErrFenced) || !strings.Contains(err.Error(), "newer operation (generation 2) is waiting") {
		t.Fatalf("stale waiter after another key announced: %v, want a refusal naming generation 2", err)
	}
	if _, statErr := os.Stat(dir + "/stale-ran"); statErr == nil {
		t.Error("the stale command ran")
	}
}
