package runner_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/inventory"
	"github.com/kupgrade/kupgrade/playbooks"
	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/runner/runnertest"
)

// tempAfter stands for the after header Ansible gives copy's content and template: a temporary
// file on its controller, named anew on each run.
const tempAfter = "+++ after: (Ansible's temporary file)"

// TestDiffMatchesAnsible plays testdata/diff/site.yml on this machine with diff (the play's
// templated keyword), then with --check --diff, and compares what the text output prints above
// each task's result with what ansible-playbook 2.14 printed for the same task
// (testdata/diff/ansible.json): byte for byte, once the run's folders are named alike, except
// the after header of copy's content and template, which Ansible takes from a temporary file
// and kupgrade from dest or the template. KUPGRADE_UPDATE_GOLDEN=1 records ansible.json again
// with ansible-playbook (about two minutes).
func TestDiffMatchesAnsible(t *testing.T) {
	dir, err := filepath.Abs(filepath.Join("testdata", "diff"))
	if err != nil {
		t.Fatal(err)
	}
	pb, err := playbooks.Load(filepath.Join(dir, "site.yml"))
	if err != nil {
		t.Skipf("the playbook needs community.general's ini_file on this machine: %v", err)
	}
	golden := filepath.Join(dir, "ansible.json")
	if os.Getenv("KUPGRADE_UPDATE_GOLDEN") == "1" {
		recordAnsibleDiffs(t, dir, golden)
	}
	data, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	var want map[string][]string
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"run", "check"} {
		out := diffFixture(t)
		got := kupgradeDiffs(t, pb, out, mode == "check")
		got = normalize(got, dir, out)
		if len(got) != len(want[mode]) {
			t.Fatalf("%s: %d task results, Ansible %d:\n%s", mode, len(got), len(want[mode]), strings.Join(got, "|\n"))
		}
		for i := range got {
			if g := acceptTempAfter(got[i], want[mode][i]); g != want[mode][i] {
				t.Errorf("%s: task %d prints\n%s\nAnsible prints\n%s", mode, i+1, g, want[mode][i])
			}
		}
	}
}

// diffFixture is the folder the playbook changes, with the files it edits.
func diffFixture(t *testing.T) string {
	out := t.TempDir()
	for name, text := range map[string]string{"edit": "a\nb\nc\n", "same": "old\n", "bin": "\x00\x01\n"} {
		if err := os.WriteFile(filepath.Join(out, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// kupgradeDiffs plays pb with the text output and returns what it printed above each result.
func kupgradeDiffs(t *testing.T, pb *playbooks.Playbook, out string, check bool) []string {
	ip := filepath.Join(t.TempDir(), "inventory.yml")
	if err := os.WriteFile(ip, []byte("all:\n  hosts:\n    localhost:\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	inv, err := inventory.Load(ip)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	r := runner.New(&runnertest.LocalDialer{}, runner.Options{Reporter: runner.NewTextReporter(&buf, false)})
	t.Cleanup(func() { r.Close() })
	_, err = r.Play(t.Context(), pb, inv, runner.PlayOptions{Check: check, Diff: check, ExtraVars: map[string]any{"out": out}})
	if err != nil {
		t.Fatalf("play: %v\n%s", err, buf.String())
	}
	var blocks []string
	var cur strings.Builder
	for _, l := range strings.SplitAfter(buf.String(), "\n") {
		switch {
		case strings.HasPrefix(l, "changed: [") || strings.HasPrefix(l, "ok: ["):
			blocks = append(blocks, cur.String())
			cur.Reset()
		case strings.HasPrefix(l, "PLAY [") || strings.HasPrefix(l, "  msg: "):
		case strings.HasPrefix(l, "\nPLAY RECAP") || l == "PLAY RECAP\n":
			return blocks
		default:
			cur.WriteString(l)
		}
	}
	return blocks
}

// ansibleDiffs is what ansible-playbook's output printed between each task's banner and the
// next, without the result lines (a loop prints each item's diff above the item's line).
func ansibleDiffs(text string) []string {
	var blocks []string
	var cur *strings.Builder
	for _, l := range strings.SplitAfter(text, "\n") {
		switch {
		case strings.HasPrefix(l, "TASK [") || strings.HasPrefix(l, "PLAY RECAP"):
			if cur != nil {
				blocks = append(blocks, strings.TrimSuffix(cur.String(), "\n"))
			}
			cur = &strings.Builder{}
		case cur == nil || strings.HasPrefix(l, "changed: [") || strings.HasPrefix(l, "ok: ["):
		default:
			cur.WriteString(l)
		}
	}
	return blocks
}

// normalize names the run's folders alike in both outputs.
func normalize(blocks []string, playDir, out string) []string {
	r := strings.NewReplacer(out, "OUT", playDir, "PLAYDIR")
	for i, b := range blocks {
		blocks[i] = r.Replace(b)
	}
	return blocks
}

// acceptTempAfter puts Ansible's temporary after header where kupgrade names dest or the
// template instead, and only there.
func acceptTempAfter(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	if len(g) != len(w) {
		return got
	}
	for i := range g {
		if w[i] == tempAfter && (strings.HasPrefix(g[i], "+++ after: OUT/") || strings.HasPrefix(g[i], "+++ after: PLAYDIR/templates/")) {
			g[i] = tempAfter
		}
	}
	return strings.Join(g, "\n")
}

// recordAnsibleDiffs runs ansible-playbook on the same playbook, as the test runs kupgrade, and
// writes what it printed to golden.
func recordAnsibleDiffs(t *testing.T, dir, golden string) {
	if _, err := exec.LookPath("ansible-playbook"); err != nil {
		t.Fatal("KUPGRADE_UPDATE_GOLDEN=1 needs ansible-playbook")
	}
	rec := map[string][]string{}
	for mode, flags := range map[string][]string{"run": nil, "check": {"--check", "--diff"}} {
		out := diffFixture(t)
		args := append([]string{"-i", "localhost,", "-c", "local", "-e", "out=" + out}, flags...)
		cmd := exec.Command("ansible-playbook", append(args, filepath.Join(dir, "site.yml"))...)
		cmd.Env = append(os.Environ(), "ANSIBLE_NOCOLOR=1", "ANSIBLE_FORCE_COLOR=0")
		text, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("ansible-playbook: %v\n%s", err, text)
		}
		blocks := normalize(ansibleDiffs(string(text)), dir, out)
		for i, b := range blocks {
			lines := strings.Split(b, "\n")
			for j, l := range lines {
				if strings.HasPrefix(l, "+++ after: ") && strings.Contains(l, "/ansible-local-") {
					lines[j] = tempAfter
				}
			}
			blocks[i] = strings.Join(lines, "\n")
		}
		rec[mode] = blocks
	}
	data, _ := json.MarshalIndent(rec, "", "  ")
	if err := os.WriteFile(golden, append(data, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}
