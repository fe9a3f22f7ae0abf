package runner_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kupgrade/kupgrade/internal/fencefile"
	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/runner/runnertest"
)

// rootHost is one host whose remote user is root: its commands are fenced without become (the
// local transport runs them as whoever runs the test).
const rootHost = `all:
  hosts:
    h1:
      ansible_user: root
`

// fenced is one kupgrade process's play of a single shell task on h1 under fence f.
type fenced struct {
	err  error
	rec  *recorder
	done chan struct{}
}

func playFenced(t *testing.T, script string, f runner.Fence) *fenced {
	t.Helper()
	if _, err := exec.LookPath("flock"); err != nil {
		t.Skip("no flock(1) on this machine")
	}
	i, p := setup(t, rootHost, `- hosts: h1
  gather_facts: false
  tasks:
    - name: work
      shell: `+quoteYAML(script)+`
      failed_when: false
      ignore_errors: true
`)
	// A runner of its own: another kupgrade process, with a connection of its own.
	rec := &recorder{}
	r := runner.New(&runnertest.LocalDialer{}, runner.Options{Reporter: rec})
	t.Cleanup(func() { r.Close() })
	fp := &fenced{rec: rec, done: make(chan struct{})}
	go func() {
		defer close(fp.done)
		_, fp.err = r.Play(t.Context(), p, i, runner.PlayOptions{Fence: &f})
	}()
	return fp
}

func (f *fenced) wait(t *testing.T) error {
	t.Helper()
	select {
	case <-f.done:
	case <-time.After(time.Minute):
		t.Fatal("a fenced play never ended")
	}
	return f.err
}

func quoteYAML(s string) string { return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"` }

// waitFile waits until path exists (a fenced command has started).
func waitFile(t *testing.T, path string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(path); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never appeared", path)
		}
	}
}

func readMarks(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

// readStamp reads the stamp the last fenced command left in dir/fence.
func readStamp(t *testing.T, dir string) fencefile.Stamp {
	t.Helper()
	st, err := fencefile.Parse(readMarks(t, filepath.Join(dir, "fence", runner.FenceStampFile)))
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// blocker is a command that marks its start, waits until the test releases it, marks its end.
func blocker(dir, name string) string {
	return "echo start-" + name + " >> " + dir + "/marks; touch " + dir + "/started-" + name +
		"; while [ ! -e " + dir + "/release ]; do sleep 0.05; done; echo end-" + name + " >> " + dir + "/marks"
}

// Two fenced commands on one host at once: the second waits for the first to end, then runs.
func TestFenceSerialisesCommands(t *testing.T) {
	dir := t.TempDir()
	f := runner.Fence{Key: "u1", Generation: 1, Owner: "first", Wait: time.Minute, Dir: filepath.Join(dir, "fence")}
	a := playFenced(t, blocker(dir, "a"), f)
	waitFile(t, dir+"/started-a")
	f.Generation, f.Owner = 2, "second"
	b := playFenced(t, "echo start-b >> "+dir+"/marks; echo end-b >> "+dir+"/marks", f)
	// Give b every chance to overlap a, were the fence not there.
	time.Sleep(300 * time.Millisecond)
	if err := os.WriteFile(dir+"/release", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := a.wait(t); err != nil {
		t.Fatalf("first play: %v", err)
	}
	if err := b.wait(t); err != nil {
		t.Fatalf("second play: %v", err)
	}
	if got, want := readMarks(t, dir+"/marks"), "start-a\nend-a\nstart-b\nend-b"; got != want {
		t.Errorf("marks:\n%s\nwant the second command to run after the first ended:\n%s", got, want)
	}
	if st := readStamp(t, dir); st.Key != "u1" || st.Generation != 2 || st.Owner != "second" || !strings.HasPrefix(st.Label, "work (sha256:") {
		t.Errorf("stamp %+v, want the second command's (u1 2 second, task work)", st)
	}
}

// A fence busy past Wait refuses the command, naming who holds it; failed_when and
// ignore_errors cannot make that a success.
func TestFenceBusyRefuses(t *testing.T) {
	dir := t.TempDir()
	f := runner.Fence{Key: "u1", Generation: 7, Owner: "holder:42:abc", Wait: time.Minute, Dir: filepath.Join(dir, "fence")}
	a := playFenced(t, blocker(dir, "a"), f)
	waitFile(t, dir+"/started-a")
	f.Generation, f.Owner, f.Wait = 8, "late", 200*time.Millisecond
	err := playFenced(t, "touch "+dir+"/b-ran", f).wait(t)
	if err := os.WriteFile(dir+"/release", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := a.wait(t); err != nil {
		t.Fatalf("holder's play: %v", err)
	}
	if !errors.Is(err, runner.ErrFenced) {
		t.Fatalf("busy fence: play error %v, want one wrapping ErrFenced", err)
	}
	for _, want := range []string{"still running", "generation 7", "owner holder:42:abc", "work (sha256:"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("refusal %q does not say %q", err, want)
		}
	}
	if _, statErr := os.Stat(dir + "/b-ran"); statErr == nil {
		t.Error("the refused command ran")
	}
}

// A command of an older generation, after a newer one has run, is refused and does not run; a
// command of another key (a new upgrade) is accepted whatever its generation.
func TestFenceRefusesOlderGeneration(t *testing.T) {
	dir := t.TempDir()
	f := runner.Fence{Key: "u1", Generation: 5, Owner: "new", Wait: time.Minute, Dir: filepath.Join(dir, "fence")}
	if err := playFenced(t, "true", f).wait(t); err != nil {
		t.Fatal(err)
	}
	f.Generation, f.Owner = 4, "old"
	p := playFenced(t, "touch "+dir+"/old-ran", f)
	err := p.wait(t)
	if !errors.Is(err, runner.ErrFenced) {
		t.Fatalf("older generation: play error %v, want one wrapping ErrFenced", err)
	}
	for _, want := range []string{"newer operation (generation 5, owner new)", "lost its lease"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("refusal %q does not say %q", err, want)
		}
	}
	if _, statErr := os.Stat(dir + "/old-ran"); statErr == nil {
		t.Error("the command of the older generation ran")
	}
	if ev, ok := p.rec.find("h1", "work"); !ok || ev.Event != runner.EventTaskFailed || ev.Ignored {
		t.Errorf("task event %+v, want a failure that is not ignored", ev)
	}

	f.Key, f.Generation, f.Owner = "u2", 1, "next-upgrade"
	if err := playFenced(t, "touch "+dir+"/u2-ran", f).wait(t); err != nil {
		t.Fatalf("another key: %v", err)
	}
	if _, statErr := os.Stat(dir + "/u2-ran"); statErr != nil {
		t.Error("the command of another key did not run")
	}
	f.Key, f.Generation = "u1", 5 // the same generation again: the same operation's next command
	if err := playFenced(t, "true", f).wait(t); err != nil {
		t.Errorf("same key and generation after another key: %v", err)
	}
}

// A command still waiting for the fence when a newer generation of its operation comes (its
// kupgrade was killed, or lost its lease, while it waited) never runs once the lock frees, even
// though the newer command gave up waiting before it and so never stamped the fence.
func TestFenceRefusesAStaleWaiter(t *testing.T) {
	dir := t.TempDir()
	f := runner.Fence{Key: "u1", Generation: 1, Owner: "first", Wait: time.Minute, Dir: filepath.Join(dir, "fence")}
	holder := playFenced(t, blocker(dir, "a"), f)
	waitFile(t, dir+"/started-a")
	f.Owner = "killed" // same generation: the operation whose kupgrade then dies
	stale := playFenced(t, "touch "+dir+"/stale-ran", f)
	time.Sleep(300 * time.Millisecond) // the stale command is waiting for the lock by now
	f.Generation, f.Owner, f.Wait = 2, "retry", 0
	newer := playFenced(t, "touch "+dir+"/newer-ran", f)
	if err := newer.wait(t); !errors.Is(err, runner.ErrFenced) {
		t.Fatalf("newer generation with no wait while the host is busy: %v, want a busy refusal", err)
	}
	if err := os.WriteFile(dir+"/release", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := holder.wait(t); err != nil {
		t.Fatalf("holder: %v", err)
	}
	err := stale.wait(t)
	if !errors.Is(err, runner.ErrFenced) || !strings.Contains(err.Error(), "newer operation (generation 2) is waiting") {
		t.Fatalf("stale waiter: play error %v, want a refusal naming generation 2", err)
	}
	if _, statErr := os.Stat(dir + "/stale-ran"); statErr == nil {
		t.Error("the stale command ran after the newer generation had come")
	}
	f.Wait = time.Minute
	if err := playFenced(t, "touch "+dir+"/newer-ran", f).wait(t); err != nil {
		t.Fatalf("newer generation once the host is free: %v", err)
	}
}

// Commands that do not run as root are not fenced: the fence's folder is root's.
func TestFenceOnlyForRoot(t *testing.T) {
	dir := t.TempDir()
	// A folder the wrapper could not create: a fenced command would be refused.
	blockedDir := filepath.Join(dir, "file", "fence")
	if err := os.WriteFile(filepath.Join(dir, "file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	f := runner.Fence{Key: "u1", Generation: 1, Dir: blockedDir}
	_, err, _ := run(t, &runnertest.LocalDialer{}, "all:\n  hosts:\n    h1:\n      ansible_user: sysadmin\n",
		"- hosts: h1\n  gather_facts: false\n  tasks:\n    - command: \"true\"\n", runner.PlayOptions{Fence: &f})
	if err != nil {
		t.Errorf("a non-root command was fenced: %v", err)
	}
	_, err, _ = run(t, &runnertest.LocalDialer{}, rootHost,
		"- hosts: h1\n  gather_facts: false\n  tasks:\n    - command: \"true\"\n", runner.PlayOptions{Fence: &f})
	if !errors.Is(err, runner.ErrFenced) || !strings.Contains(err.Error(), "cannot create") {
		t.Errorf("root command with an unusable fence folder: %v, want refused (cannot create)", err)
	}
}

// Under become, with an environment, the fence keeps the command's quoting, environment and
// output as they are.
func TestFenceUnderBecome(t *testing.T) {
	if _, err := exec.LookPath("flock"); err != nil {
		t.Skip("no flock(1) on this machine")
	}
	env, log := fakeSudo(t)
	dir := t.TempDir()
	f := runner.Fence{Key: "u1", Generation: 2, Owner: "me", Dir: filepath.Join(dir, "fence")}
	recap, err, _ := run(t, &runnertest.LocalDialer{Env: env}, "all:\n  hosts:\n    h1:\n      ansible_user: sysadmin\n", `- hosts: h1
  gather_facts: false
  become: true
  tasks:
    - shell: printf '%s|' "it's" "$GREETING"
      environment:
        GREETING: "a 'b' $c"
      register: out
`, runner.PlayOptions{Fence: &f})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := recap.Registered["h1"]["out"].(map[string]any)["stdout"], `it's|a 'b' $c|`; got != want {
		t.Errorf("stdout %q, want %q", got, want)
	}
	if b, _ := os.ReadFile(log); string(b) != "root\n" {
		t.Errorf("sudo log %q, want one call as root", b)
	}
	if st := readStamp(t, dir); st.Key != "u1" || st.Generation != 2 || st.Owner != "me" {
		t.Errorf("stamp %+v, want the command's (u1 2 me)", st)
	}
}
