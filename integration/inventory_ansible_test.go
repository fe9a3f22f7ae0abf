//go:build integration

package integration_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/inventory"
)

// ansibleCases holds the differential inventory cases: each folder has inv/ (the inventory
// files), args (the -i sources, one a line, relative to the case) and optionally limits (--limit
// patterns, one a line). ansible.json beside them is what Ansible made of the case, recorded by
// this test with KUPGRADE_UPDATE_GOLDEN=1; inventory's unit tests compare kupgrade with it.
const ansibleCases = "../inventory/testdata/ansible"

// invView is what is compared: every host's variables, the hosts of every group (children
// included), inventory_file and inventory_dir of every host (relative to the case), and the
// hosts each --limit pattern selects (sorted).
type invView struct {
	HostVars map[string]any      `json:"hostvars"`
	Groups   map[string][]string `json:"groups"`
	Files    map[string][]string `json:"files"`
	Limits   map[string][]string `json:"limits"`
}

// TestInventoryMatchesAnsible runs Debian's ansible-inventory (and ansible --list-hosts and a
// debug of inventory_file) on every case and compares with what the inventory package resolves.
func TestInventoryMatchesAnsible(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("ansible-inventory"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("ansible-inventory is missing: `make deps` installs ansible-core")
		}
		t.Skip("ansible-inventory is missing (Debian package ansible-core; `make deps` installs it)")
	}
	cases, err := os.ReadDir(ansibleCases)
	if err != nil {
		t.Fatal(err)
	}
	matched := 0
	for _, c := range cases {
		dir, err := filepath.Abs(filepath.Join(ansibleCases, c.Name()))
		if err != nil {
			t.Fatal(err)
		}
		ok := t.Run(c.Name(), func(t *testing.T) {
			want := ansibleView(t, dir)
			if os.Getenv("KUPGRADE_UPDATE_GOLDEN") == "1" {
				writeGolden(t, filepath.Join(dir, "ansible.json"), want)
			}
			got := kupgradeView(t, dir)
			compareViews(t, got, want)
		})
		if ok {
			matched++
		}
	}
	t.Logf("%d of %d inventories resolve as ansible-inventory resolves them", matched, len(cases))
}

func caseLines(t *testing.T, dir, name string) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, name))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Fields(string(data))
}

func ansibleView(t *testing.T, dir string) invView {
	t.Helper()
	var iargs []string
	for _, s := range caseLines(t, dir, "args") {
		iargs = append(iargs, "-i", filepath.Join(dir, s))
	}
	var doc map[string]any
	if err := json.Unmarshal(ansibleRun(t, "ansible-inventory", append([]string{"--list"}, iargs...)...), &doc); err != nil {
		t.Fatalf("ansible-inventory output: %v", err)
	}
	v := invView{HostVars: map[string]any{}, Groups: map[string][]string{}, Files: map[string][]string{}, Limits: map[string][]string{}}
	meta, _ := doc["_meta"].(map[string]any)
	hostvars, _ := meta["hostvars"].(map[string]any)
	for g := range doc {
		if g == "_meta" {
			continue
		}
		hosts := ansibleMembers(doc, g, map[string]bool{})
		if len(hosts) > 0 {
			v.Groups[g] = hosts
		}
	}
	for _, h := range v.Groups["all"] {
		v.HostVars[h] = map[string]any{}
		if hv, ok := hostvars[h]; ok {
			v.HostVars[h] = hv
		}
	}
	out := ansibleRun(t, "ansible", append([]string{"all", "-m", "debug", "-a", "msg={{ [inventory_file, inventory_dir] }}"}, iargs...)...)
	var res struct {
		Plays []struct {
			Tasks []struct {
				Hosts map[string]struct{ Msg []string } `json:"hosts"`
			} `json:"tasks"`
		} `json:"plays"`
	}
	if err := json.Unmarshal(out, &res); err != nil || len(res.Plays) == 0 || len(res.Plays[0].Tasks) == 0 {
		t.Fatalf("ansible debug output (%v): %s", err, out)
	}
	for h, r := range res.Plays[0].Tasks[0].Hosts {
		v.Files[h] = relAll(dir, r.Msg)
	}
	for _, p := range caseLines(t, dir, "limits") {
		var hosts []string
		for _, line := range strings.Split(string(ansibleRun(t, "ansible", append([]string{p, "--list-hosts"}, iargs...)...)), "\n") {
			if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "hosts (") {
				hosts = append(hosts, line)
			}
		}
		slices.Sort(hosts)
		v.Limits[p] = hosts
	}
	return v
}

// ansibleRun runs an Ansible command in an empty folder (no ansible.cfg, no group_vars of the
// playbook folder) with JSON output, and returns its stdout.
func ansibleRun(t *testing.T, name string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "ANSIBLE_LOAD_CALLBACK_PLUGINS=1", "ANSIBLE_STDOUT_CALLBACK=json",
		"ANSIBLE_NOCOLOR=1", "ANSIBLE_HOST_KEY_CHECKING=0", "ANSIBLE_INVENTORY_UNPARSED_FAILED=1",
		"ANSIBLE_LOCAL_TEMP="+t.TempDir(), "ANSIBLE_HOME="+t.TempDir())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s%s", name, strings.Join(args, " "), err, out, stderr.Bytes())
	}
	return out
}

// ansibleMembers lists the hosts of a group of ansible-inventory's document, children included.
func ansibleMembers(doc map[string]any, g string, seen map[string]bool) []string {
	if seen[g] {
		return nil
	}
	seen[g] = true
	entry, _ := doc[g].(map[string]any)
	set := map[string]bool{}
	hosts, _ := entry["hosts"].([]any)
	for _, h := range hosts {
		set[h.(string)] = true
	}
	children, _ := entry["children"].([]any)
	for _, c := range children {
		for _, h := range ansibleMembers(doc, c.(string), seen) {
			set[h] = true
		}
	}
	out := make([]string, 0, len(set))
	for h := range set {
		out = append(out, h)
	}
	slices.Sort(out)
	return out
}

func kupgradeView(t *testing.T, dir string) invView {
	t.Helper()
	var paths []string
	for _, s := range caseLines(t, dir, "args") {
		paths = append(paths, filepath.Join(dir, s))
	}
	inv, err := inventory.LoadAll(paths...)
	if err != nil {
		t.Fatalf("LoadAll: %v", err)
	}
	data, err := json.Marshal(inventory.JSON(inv.Hosts))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	v := invView{HostVars: doc["_meta"].(map[string]any)["hostvars"].(map[string]any), Groups: map[string][]string{},
		Files: map[string][]string{}, Limits: map[string][]string{}}
	for g, hosts := range inv.Groups {
		if len(hosts) > 0 {
			v.Groups[g] = slices.Sorted(slices.Values(hosts))
		}
	}
	for _, h := range inv.Hosts {
		file, _ := h.Var("inventory_file")
		d, _ := h.Var("inventory_dir")
		v.Files[h.Name] = relAll(dir, []string{file.(string), d.(string)})
	}
	for _, p := range caseLines(t, dir, "limits") {
		hosts, err := inv.Select(p)
		if err != nil {
			t.Errorf("Select(%q): %v", p, err)
			continue
		}
		names := []string{}
		for _, h := range hosts {
			names = append(names, h.Name)
		}
		slices.Sort(names)
		v.Limits[p] = names
	}
	return v
}

func relAll(dir string, paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		r, err := filepath.Rel(dir, p)
		if err != nil {
			r = p
		}
		out[i] = filepath.ToSlash(r)
	}
	return out
}

// compareViews compares through JSON, so that numbers compare by value (Python writes 1.0 where
// Go writes 1) and each difference is named.
func compareViews(t *testing.T, got, want invView) {
	t.Helper()
	g, w := normJSON(t, got), normJSON(t, want)
	for _, part := range []string{"hostvars", "groups", "files", "limits"} {
		gp, wp := g[part].(map[string]any), w[part].(map[string]any)
		for k := range mergeKeys(gp, wp) {
			if !reflect.DeepEqual(gp[k], wp[k]) {
				t.Errorf("%s[%q]:\n kupgrade %s\n ansible  %s", part, k, mustJSON(gp[k]), mustJSON(wp[k]))
			}
		}
	}
}

func normJSON(t *testing.T, v any) map[string]any {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func mergeKeys(a, b map[string]any) map[string]bool {
	keys := map[string]bool{}
	for k := range a {
		keys[k] = true
	}
	for k := range b {
		keys[k] = true
	}
	return keys
}

func mustJSON(v any) string {
	data, _ := json.Marshal(v)
	return string(data)
}

func writeGolden(t *testing.T, path string, v invView) {
	t.Helper()
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}
