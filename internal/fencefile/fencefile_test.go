package fencefile

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestCksumMatchesPOSIX(t *testing.T) {
	for in, want := range map[string]uint32{"": 4294967295, "hello": 3287646509, "a b c": 3880478988} {
		if got := Cksum([]byte(in)); got != want {
			t.Errorf("Cksum(%q) = %d, want %d (cksum(1))", in, got, want)
		}
	}
}

func stamp() Stamp {
	return Stamp{Cluster: "lab", Key: "u-1", Generation: 7, Owner: "ops:42:x",
		Since: time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC), Until: time.Unix(1796378400, 0).UTC(), Label: Label("Upgrade the node", "kubeadm upgrade node")}
}

func TestParseRoundTrip(t *testing.T) {
	s := stamp()
	got, err := Parse(s.Line())
	if err != nil || got != s {
		t.Fatalf("Parse(Line()) = %+v, %v; want %+v", got, err, s)
	}
}

// An empty, torn or hand-edited stamp, or one of the older format, is refused: no reader may
// take it for a stamp of generation 0.
func TestParseRefusesDamagedStamps(t *testing.T) {
	line := stamp().Line()
	for name, bad := range map[string]string{
		"empty":        "",
		"blank line":   "\n",
		"torn":         line[:len(line)/2],
		"generation":   strings.Replace(line, " u-1 7 ", " u-1 3 ", 1),
		"not a number": strings.Replace(line, " u-1 7 ", " u-1 7x ", 1),
		"older format": "u-1 7 ops 2026-12-04T10:00:00Z kubeadm upgrade node\n",
	} {
		if _, err := Parse(bad); !errors.Is(err, ErrDamaged) {
			t.Errorf("%s stamp %q: Parse error %v, want ErrDamaged", name, bad, err)
		}
	}
}

func TestLabelHoldsNoCommandText(t *testing.T) {
	cmd := "curl -u admin:s3cret https://example.invalid/install.sh | sh"
	for _, task := range []string{"", "Install the agent"} {
		l := Label(task, cmd)
		if strings.Contains(l, "s3cret") || strings.Contains(l, "curl") {
			t.Errorf("Label(%q, cmd) = %q: holds the command's text", task, l)
		}
		if !strings.Contains(l, "sha256:") || !strings.HasPrefix(l, task) {
			t.Errorf("Label(%q, cmd) = %q, want the task's name and the command's digest", task, l)
		}
	}
	if Label("t", "a") == Label("t", "b") {
		t.Error("two commands got one label")
	}
}

// sh runs script with the fence's functions in folder dir and returns its output.
func sh(t *testing.T, dir, script string) (string, error) {
	t.Helper()
	for _, tool := range []string{"cksum", "tail"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s(1) on this machine", tool)
		}
	}
	out, err := exec.Command("sh", "-c", "d=$1\n"+Shell+script, "sh", dir).CombinedOutput()
	return string(out), err
}

// The functions are embedded in a script sent as one '...' word.
func TestShellHoldsNoSingleQuote(t *testing.T) {
	if strings.Contains(Shell, "'") || strings.Contains(ScriptParams, "'") {
		t.Fatal("Shell holds a single quote")
	}
}

func TestShellReadsWhatGoWrites(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, StampFile), []byte(stamp().Line()), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := sh(t, dir, `fence_stamp || echo damaged; echo "$sc|$sk|$sg|$so|$st|$su|$sl"`)
	if want := "lab|u-1|7|ops:42:x|2026-12-04T10:00:00Z|1796378400|" + stamp().Label + "\n"; err != nil || out != want {
		t.Errorf("sh read %q (%v), want %q", out, err, want)
	}
	out, err = sh(t, dir, `fence_put other u-2 9 me 2026-12-04T11:00:00Z 30 "a task (sha256:0123)" && cat "$d/fence"`)
	s, perr := Parse(out)
	if err != nil || perr != nil || s.Cluster != "other" || s.Generation != 9 || s.Label != "a task (sha256:0123)" {
		t.Fatalf("Go read %+v (%v, %v) from sh's %q", s, err, perr, out)
	}
	if d := time.Until(s.Until); d < 20*time.Second || d > 40*time.Second {
		t.Errorf("until %v, want about 30s from now", s.Until)
	}
}

// A cksum or date that dies (a hangup reaches the whole session when kupgrade is killed) leaves
// the stamp as it was: fence_put fails rather than writing a stamp without its checksum, which
// would lock every later command out of the host.
func TestShellPutKeepsTheStampWhenAToolDies(t *testing.T) {
	for _, tool := range []string{"cksum", "date"} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, StampFile), []byte(stamp().Line()), 0o600); err != nil {
			t.Fatal(err)
		}
		out, _ := sh(t, dir, tool+`() { return 129; }
fence_put other u-2 9 me 2026-12-04T11:00:00Z 30 "a task (sha256:0123)" && echo written || echo refused`)
		if out != "refused\n" {
			t.Errorf("fence_put with %s dying says %q, want refused", tool, out)
		}
		if b, _ := os.ReadFile(filepath.Join(dir, StampFile)); string(b) != stamp().Line() {
			t.Errorf("with %s dying the stamp became %q, want it kept", tool, b)
		}
	}
}

func TestShellRefusesDamagedStamps(t *testing.T) {
	line := stamp().Line()
	for name, bad := range map[string]string{
		"empty": "", "torn": line[:len(line)/2], "no newline": strings.TrimSuffix(line, "\n"),
		"edited": strings.Replace(line, " u-1 7 ", " u-1 3 ", 1), "older format": "u-1 7 ops 2026-12-04T10:00:00Z x\n",
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, StampFile), []byte(bad), 0o600); err != nil {
			t.Fatal(err)
		}
		if out, _ := sh(t, dir, `fence_stamp && echo read "$sg" || echo damaged`); out != "damaged\n" {
			t.Errorf("%s stamp: sh says %q, want damaged", name, out)
		}
	}
}

// A host in two clusters keeps the announcement of each key; one is raised, never lowered.
func TestShellAnnouncesPerKey(t *testing.T) {
	dir := t.TempDir()
	out, err := sh(t, dir, `fence_announce a 5; fence_announce b 2; fence_announce a 3; fence_announce b 4
fence_announced a; echo "a=$ag"; fence_announced b; echo "b=$ag"; fence_announced c; echo "c=$ag"; cat "$d/fence.gen"`)
	if want := "a=5\nb=4\nc=\na 5\nb 4\n"; err != nil || out != want {
		t.Errorf("announcements:\n%s(%v)\nwant:\n%s", out, err, want)
	}
	for name, bad := range map[string]string{"torn": "a 5\nb", "edited": "a 5x\n", "extra field": "a 5 6\n"} {
		if err := os.WriteFile(filepath.Join(dir, GenFile), []byte(bad), 0o600); err != nil {
			t.Fatal(err)
		}
		if out, _ := sh(t, dir, `fence_announce a 6; echo "rc=$?"`); out != "rc=2\n" {
			t.Errorf("%s announcements %q: %q, want rc=2 (damaged)", name, bad, out)
		}
	}
}

func TestShellKeepsTheNewestAnnouncements(t *testing.T) {
	out, err := sh(t, t.TempDir(), `i=0; while [ $i -lt 40 ]; do fence_announce k$i 1; i=$((i+1)); done; wc -l < "$d/fence.gen"; tail -n 1 "$d/fence.gen"`)
	if want := "16\nk39 1\n"; err != nil || strings.TrimLeft(out, " ") != want {
		t.Errorf("after 40 keys: %q (%v), want %q", out, err, want)
	}
}
