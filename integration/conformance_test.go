//go:build integration

package integration_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/kupgrade/kupgrade/inventory"
	"github.com/kupgrade/kupgrade/runner/sshconn/sshtest"
)

// conformanceCases holds the differential playbook cases: each folder has play.yml,
// inventory.yml (hosts among h1, h2, h3, their groups and variables), the files and templates
// the play uses, and optionally case.yml (caseMeta). The test runs ansible-playbook and
// kupgrade play on the same local sshd hosts, each run with fresh host folders, and compares
// what a user sees: the recap, whether the run failed, and the files written on the hosts.
const conformanceCases = "testdata/conformance"

// caseMeta is a case's case.yml.
type caseMeta struct {
	// ExpectDiffer says, in one line, why kupgrade does not match Ansible yet (a feature of
	// issue 15 being built). The case then passes while it differs and fails once it matches,
	// so whoever makes it match removes the line.
	ExpectDiffer string   `yaml:"expect_differ"`
	Args         []string `yaml:"args"` // extra arguments for both tools (--tags, --limit, -e)
}

// outcome is what one tool made of a case.
type outcome struct {
	Failed bool                      // the run exited non-zero
	Recap  map[string]map[string]int // host -> ok, changed, failed, skipped, unreachable, rescued, ignored
	Files  map[string]string         // "h1/path" -> "mode content" (JSON files normalised)
	Log    string                    // the tool's output, for the report
}

// conformanceHosts are the host names cases may use; each is a real sshd of its own.
var conformanceHosts = []string{"h1", "h2", "h3"}

// TestConformance runs every case with ansible-playbook and kupgrade and reports how many match.
func TestConformance(t *testing.T) {
	t.Parallel()
	requireAnsible(t)
	bin := filepath.Join(binaries(t), "kupgrade")
	servers := conformanceServers(t)
	cases, err := os.ReadDir(conformanceCases)
	if err != nil {
		t.Fatal(err)
	}
	var tl tally
	t.Run("cases", func(t *testing.T) {
		for _, c := range cases {
			t.Run(c.Name(), func(t *testing.T) {
				t.Parallel()
				dir, _ := filepath.Abs(filepath.Join(conformanceCases, c.Name()))
				meta := readMeta(t, dir)
				want := ansibleOutcome(t, dir, meta, servers)
				if len(want.Recap) == 0 { // else two runs that both print nothing would "match"
					t.Fatalf("ansible-playbook gave no recap (a case must run on a host):\n%s", want.Log)
				}
				got := runTool(t, dir, meta, servers, kupgradeCmd(bin))
				tl.judge(t, c.Name(), meta, compareOutcomes(got, want), want, got)
			})
		}
	})
	t.Logf("%d of %d cases match Ansible (%d differ as expected, marked expect_differ):\n%s",
		tl.matched, len(tl.lines), tl.expected, strings.Join(slices.Sorted(slices.Values(tl.lines)), "\n"))
}

// tally counts the cases' verdicts and keeps a line per case for the summary.
type tally struct {
	mu                sync.Mutex
	matched, expected int
	lines             []string
}

// judge reports one case: a match, a difference its case.yml expects, a match that case.yml
// still calls a difference (an error: remove the marker), or a new difference (an error).
func (tl *tally) judge(t *testing.T, name string, meta caseMeta, diffs []string, want, got outcome) {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	switch {
	case len(diffs) == 0 && meta.ExpectDiffer != "":
		tl.matched++
		tl.lines = append(tl.lines, name+": matches, but case.yml says expect_differ")
		t.Errorf("matches Ansible now: remove expect_differ (%q) from case.yml", meta.ExpectDiffer)
	case len(diffs) == 0:
		tl.matched++
		tl.lines = append(tl.lines, name+": matches")
	case meta.ExpectDiffer != "":
		tl.expected++
		tl.lines = append(tl.lines, name+": differs as expected: "+meta.ExpectDiffer)
		t.Logf("differs as expected (%s):\n%s", meta.ExpectDiffer, strings.Join(diffs, "\n"))
	default:
		tl.lines = append(tl.lines, name+": DIFFERS")
		t.Errorf("kupgrade differs from Ansible:\n%s\n--- ansible-playbook:\n%s\n--- kupgrade:\n%s",
			strings.Join(diffs, "\n"), want.Log, got.Log)
	}
}

func requireAnsible(t *testing.T) {
	t.Helper()
	for _, tool := range []string{"ansible-playbook", sshtest.SSHD} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s is missing: `make deps` installs ansible-core and openssh-server", tool)
			}
			t.Skipf("%s is missing (Debian packages ansible-core and openssh-server; `make deps` installs them)", tool)
		}
	}
}

// conformanceServers starts one sshd per host name, all accepting one client key and recorded
// in one known_hosts.
func conformanceServers(t *testing.T) map[string]*sshtest.Server {
	first := sshtest.NewOpenSSH(t)
	servers := map[string]*sshtest.Server{conformanceHosts[0]: first}
	for _, h := range conformanceHosts[1:] {
		servers[h] = sshtest.NewOpenSSH(t, sshtest.WithClientKey(first.KeyFile), sshtest.WithKnownHosts(first.KnownHosts))
	}
	return servers
}

func readMeta(t *testing.T, dir string) caseMeta {
	t.Helper()
	var m caseMeta
	b, err := os.ReadFile(filepath.Join(dir, "case.yml"))
	if errors.Is(err, os.ErrNotExist) {
		return m
	}
	if err == nil {
		err = yaml.Unmarshal(b, &m)
	}
	if err != nil {
		t.Fatalf("%s/case.yml: %v", dir, err)
	}
	return m
}

// toolCmd builds the command that runs a case's play.yml against the inventories, in dir.
type toolCmd func(ctx context.Context, t *testing.T, dir string, inventories, args []string) *exec.Cmd

// toolLimit bounds one tool's run of a case: the whole public roles gather facts and run a few
// dozen tasks, which ansible-playbook takes over two minutes to do on a loaded 2-core machine.
const toolLimit = 5 * time.Minute

// runTool runs one tool on the case with fresh host folders and reads what it left.
func runTool(t *testing.T, dir string, meta caseMeta, servers map[string]*sshtest.Server, tool toolCmd) outcome {
	t.Helper()
	root := t.TempDir()
	conn := connInventory(t, dir, root, servers)
	ctx, cancel := context.WithTimeout(t.Context(), toolLimit)
	defer cancel()
	cmd := tool(ctx, t, dir, []string{caseInventory(dir), conn}, meta.Args)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("%s: %v\n%s", cmd.Path, err, stderr.String())
	}
	o := outcome{Failed: err != nil, Log: stdout.String() + stderr.String()}
	o.Recap = parseRecap(stdout.Bytes())
	o.Files = readHostFiles(t, root)
	return o
}

// caseInventory is the case's inventory.yml, or its inventory.ini.
func caseInventory(dir string) string {
	if p := filepath.Join(dir, "inventory.ini"); fileExists(p) {
		return p
	}
	return filepath.Join(dir, "inventory.yml")
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// connInventory writes the second inventory of a run: how to reach each host of the case, and
// host_dir, the fresh folder the case writes in on that host.
func connInventory(t *testing.T, dir, root string, servers map[string]*sshtest.Server) string {
	t.Helper()
	inv, err := inventory.Load(caseInventory(dir))
	if err != nil {
		t.Fatalf("case inventory: %v", err)
	}
	hosts := map[string]any{}
	for _, h := range inv.Hosts {
		s, ok := servers[h.Name]
		if !ok {
			t.Fatalf("case inventory: host %s is not one of %v", h.Name, conformanceHosts)
		}
		hostDir := filepath.Join(root, h.Name)
		if err := os.MkdirAll(hostDir, 0o755); err != nil {
			t.Fatal(err)
		}
		port := s.Port
		if v, _ := h.Var("conformance_unreachable"); v == true {
			port = closedPort(t)
		}
		hosts[h.Name] = map[string]any{
			"ansible_host": "127.0.0.1", "ansible_port": port, "ansible_user": s.User,
			"ansible_ssh_private_key_file": s.KeyFile,
			"ansible_ssh_common_args":      "-o UserKnownHostsFile=" + s.KnownHosts,
			"ansible_python_interpreter":   "/usr/bin/python3",
			"host_dir":                     hostDir,
		}
	}
	b, err := yaml.Marshal(map[string]any{"all": map[string]any{"hosts": hosts}})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(root, "conn.yml")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// closedPort is a port nothing listens on (a case's host with conformance_unreachable: true).
func closedPort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func ansibleCmd(ctx context.Context, t *testing.T, dir string, inventories, args []string) *exec.Cmd {
	argv := []string{}
	for _, i := range inventories {
		argv = append(argv, "-i", i)
	}
	cmd := exec.CommandContext(ctx, "ansible-playbook", append(append(argv, args...), "play.yml")...)
	cmd.Dir = dir
	home := t.TempDir()
	cmd.Env = append(append(os.Environ(), ansibleSettings...),
		"ANSIBLE_LOCAL_TEMP="+home, "ANSIBLE_HOME="+home, "ANSIBLE_SSH_CONTROL_PATH_DIR="+home)
	return cmd
}

// ansibleSettings are how ansibleCmd runs ansible-playbook (besides its temporary folders).
var ansibleSettings = []string{"ANSIBLE_LOAD_CALLBACK_PLUGINS=1", "ANSIBLE_STDOUT_CALLBACK=json",
	"ANSIBLE_NOCOLOR=1", "ANSIBLE_PIPELINING=1", "ANSIBLE_RETRY_FILES_ENABLED=0",
	"ANSIBLE_DEPRECATION_WARNINGS=0", "ANSIBLE_SYSTEM_WARNINGS=0", "ANSIBLE_PYTHON_INTERPRETER=/usr/bin/python3"}

func kupgradeCmd(bin string) toolCmd {
	return func(ctx context.Context, t *testing.T, dir string, inventories, args []string) *exec.Cmd {
		argv := []string{"--db", "sqlite:" + filepath.Join(t.TempDir(), "k.db")}
		for _, i := range inventories {
			argv = append(argv, "-i", i)
		}
		argv = append(append(argv, "play", "play.yml", "-o", "json"), args...)
		cmd := exec.CommandContext(ctx, bin, argv...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "SSH_AUTH_SOCK=")
		return cmd
	}
}

// parseRecap reads the recap from Ansible's json callback or kupgrade's JSON Lines.
func parseRecap(out []byte) map[string]map[string]int {
	var doc struct {
		Stats map[string]map[string]int `json:"stats"`
	}
	// Ansible's pause writes its lines on stdout before the json callback's document.
	if i := bytes.Index(out, []byte("\n{\n")); i >= 0 && !bytes.HasPrefix(out, []byte("{")) {
		out = out[i+1:]
	}
	if json.Unmarshal(out, &doc) == nil && doc.Stats != nil {
		for _, s := range doc.Stats {
			s["failed"] = s["failures"]
			delete(s, "failures")
		}
		return doc.Stats
	}
	recap := map[string]map[string]int{}
	for line := range bytes.SplitSeq(out, []byte("\n")) {
		var e struct {
			Event string                    `json:"event"`
			Recap map[string]map[string]int `json:"recap"`
		}
		if json.Unmarshal(line, &e) == nil && e.Event == "play_recap" {
			for h, r := range e.Recap { // one recap per play: sum them, as Ansible's stats do
				if recap[h] == nil {
					recap[h] = map[string]int{}
				}
				for k, v := range r {
					recap[h][k] += v
				}
			}
		}
	}
	return recap
}

// readHostFiles lists every file and folder under each host folder with its mode and content;
// a *.json file is compared by value (key order and spacing differ between JSON writers) and
// the run's own folder is replaced by ROOT.
func readHostFiles(t *testing.T, root string) map[string]string {
	t.Helper()
	files := map[string]string{}
	for _, h := range conformanceHosts {
		base := filepath.Join(root, h)
		filepath.WalkDir(base, func(path string, d os.DirEntry, err error) error { //nolint:errcheck // a missing host folder is no file
			if err != nil || path == base {
				return nil
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			rel := h + "/" + strings.TrimPrefix(path, base+"/")
			switch {
			case d.IsDir():
				files[rel] = fmt.Sprintf("dir %v", info.Mode().Perm())
			case d.Type()&os.ModeSymlink != 0:
				target, _ := os.Readlink(path)
				files[rel] = "link " + strings.ReplaceAll(target, root, "ROOT")
			default:
				b, _ := os.ReadFile(path)
				files[rel] = fmt.Sprintf("%v %s", info.Mode().Perm(), normContent(path, strings.ReplaceAll(string(b), root, "ROOT")))
			}
			return nil
		})
	}
	return files
}

// volatileKeys change from run to run (times, the module's own arguments), so registered
// results dumped to a JSON file are compared without them.
var volatileKeys = []string{"start", "end", "delta", "invocation", "warnings", "deprecations"}

func normContent(path, s string) string {
	if !strings.HasSuffix(path, ".json") {
		return s
	}
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return "(invalid JSON) " + s
	}
	b, _ := json.Marshal(dropKeys(v))
	return string(b)
}

func dropKeys(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if slices.Contains(volatileKeys, k) || strings.HasPrefix(k, "_ansible") {
				delete(x, k)
			} else {
				x[k] = dropKeys(e)
			}
		}
	case []any:
		for i, e := range x {
			x[i] = dropKeys(e)
		}
	}
	return v
}

// compareOutcomes lists the differences a user would notice, each on a line.
func compareOutcomes(got, want outcome) []string {
	var diffs []string
	if got.Failed != want.Failed {
		diffs = append(diffs, fmt.Sprintf("run failed: kupgrade %v, ansible %v", got.Failed, want.Failed))
	}
	for _, h := range conformanceHosts {
		g, w := recapLine(got.Recap[h]), recapLine(want.Recap[h])
		if g != w {
			diffs = append(diffs, fmt.Sprintf("recap %s: kupgrade %s, ansible %s", h, g, w))
		}
	}
	keys := slices.Sorted(mapsKeys(got.Files, want.Files))
	for _, k := range keys {
		g, gok := got.Files[k]
		w, wok := want.Files[k]
		switch {
		case !gok:
			diffs = append(diffs, fmt.Sprintf("file %s: missing with kupgrade, ansible wrote %q", k, w))
		case !wok:
			diffs = append(diffs, fmt.Sprintf("file %s: kupgrade wrote %q, ansible none", k, g))
		case g != w && strings.HasSuffix(k, ".json"):
			diffs = append(diffs, jsonDiffs(k, g, w)...)
		case g != w:
			diffs = append(diffs, fmt.Sprintf("file %s:\n  kupgrade %q\n  ansible  %q", k, g, w))
		}
	}
	return diffs
}

var recapKeys = []string{"ok", "changed", "unreachable", "failed", "skipped", "rescued", "ignored"}

func recapLine(r map[string]int) string {
	if r == nil {
		return "(no recap)"
	}
	parts := make([]string, len(recapKeys))
	for i, k := range recapKeys {
		parts[i] = fmt.Sprintf("%s=%d", k, r[k])
	}
	return strings.Join(parts, " ")
}

func mapsKeys(ms ...map[string]string) func(func(string) bool) {
	return func(yield func(string) bool) {
		seen := map[string]bool{}
		for _, m := range ms {
			for k := range m {
				if !seen[k] {
					seen[k] = true
					if !yield(k) {
						return
					}
				}
			}
		}
	}
}

// jsonDiffs tells where two JSON files (as readHostFiles gives them: "mode JSON") differ, one
// line per differing value, so a missing key of a registered result reads as such.
func jsonDiffs(name, got, want string) []string {
	gm, gj, _ := strings.Cut(got, " ")
	wm, wj, _ := strings.Cut(want, " ")
	var diffs []string
	if gm != wm {
		diffs = append(diffs, fmt.Sprintf("file %s: mode kupgrade %s, ansible %s", name, gm, wm))
	}
	var g, w any
	if json.Unmarshal([]byte(gj), &g) != nil || json.Unmarshal([]byte(wj), &w) != nil {
		return append(diffs, fmt.Sprintf("file %s:\n  kupgrade %s\n  ansible  %s", name, gj, wj))
	}
	walkDiff(name+":", g, w, &diffs)
	return diffs
}

func walkDiff(path string, g, w any, diffs *[]string) {
	gm, gok := g.(map[string]any)
	wm, wok := w.(map[string]any)
	if gok && wok {
		for _, k := range slices.Sorted(mapsKeys(keysOf(gm), keysOf(wm))) {
			gv, gin := gm[k]
			wv, win := wm[k]
			switch {
			case !gin:
				*diffs = append(*diffs, fmt.Sprintf("%s.%s: missing with kupgrade, ansible has %s", path, k, compact(wv)))
			case !win:
				*diffs = append(*diffs, fmt.Sprintf("%s.%s: kupgrade has %s, ansible none", path, k, compact(gv)))
			default:
				walkDiff(path+"."+k, gv, wv, diffs)
			}
		}
		return
	}
	if compact(g) != compact(w) {
		*diffs = append(*diffs, fmt.Sprintf("%s: kupgrade %s, ansible %s", path, compact(g), compact(w)))
	}
}

func keysOf(m map[string]any) map[string]string {
	out := make(map[string]string, len(m))
	for k := range m {
		out[k] = ""
	}
	return out
}

func compact(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
