package playbooks

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/internal/fault"
	"github.com/kupgrade/kupgrade/internal/testtree"
)

// Roles whose meta dependencies lead back to themselves are refused at load with the chain
// (each role and the file:line that names it). Before, the cycle was cut silently, or placed
// until 2000 files were read when the roles allow duplicates.
func TestRoleDependencyCycleRefused(t *testing.T) {
	for name, tc := range map[string]struct {
		files map[string]string
		chain string
	}{
		"two roles": {map[string]string{
			"roles/a/meta/main.yml": "dependencies: [b]\n",
			"roles/b/meta/main.yml": "dependencies:\n  - {role: a, vars: {port: 1}}\n",
		}, `a (site.yml:2) -> b (roles/a/meta/main.yml:1) -> a (roles/b/meta/main.yml:2)`},
		"allow_duplicates": {map[string]string{
			"roles/a/meta/main.yml": "allow_duplicates: true\ndependencies: [b]\n",
			"roles/b/meta/main.yml": "allow_duplicates: true\ndependencies: [a]\n",
		}, `a (site.yml:2) -> b (roles/a/meta/main.yml:2) -> a (roles/b/meta/main.yml:2)`},
		"itself": {map[string]string{
			"roles/a/meta/main.yml": "dependencies: [a]\n",
		}, `a (site.yml:2) -> a (roles/a/meta/main.yml:1)`},
	} {
		t.Run(name, func(t *testing.T) {
			tc.files["site.yml"] = "- hosts: all\n  roles: [a]\n"
			tc.files["roles/a/tasks/main.yml"] = "- ping:\n"
			tc.files["roles/b/tasks/main.yml"] = "- ping:\n"
			dir := testtree.Write(t, tc.files)
			_, err := Load(filepath.Join(dir, "site.yml"))
			var pe *Error
			if !errors.As(err, &pe) || !errors.Is(err, fault.ErrBadInput) {
				t.Fatalf("Load = %v; want a bad-input *Error", err)
			}
			if !strings.Contains(pe.Msg, `role "a" depends on itself: `+tc.chain) {
				t.Errorf("message %q; want the chain %s", pe.Msg, tc.chain)
			}
			if !strings.HasSuffix(pe.File, filepath.FromSlash("/meta/main.yml")) || pe.Line == 0 {
				t.Errorf("error at %s:%d; want the meta file and line that closes the cycle", pe.File, pe.Line)
			}
		})
	}
}

// A role needed by two others (a diamond) is no cycle: it loads, placed once.
func TestRoleDependencyDiamondLoads(t *testing.T) {
	dir := testtree.Write(t, map[string]string{
		"site.yml":               "- hosts: all\n  roles: [a, d]\n",
		"roles/a/meta/main.yml":  "dependencies: [b, c]\n",
		"roles/b/meta/main.yml":  "dependencies: [d]\n",
		"roles/c/meta/main.yml":  "dependencies: [d]\n",
		"roles/a/tasks/main.yml": "- {name: a, ping: }\n",
		"roles/b/tasks/main.yml": "- {name: b, ping: }\n",
		"roles/c/tasks/main.yml": "- {name: c, ping: }\n",
		"roles/d/tasks/main.yml": "- {name: d, ping: }\n",
	})
	pb, err := Load(filepath.Join(dir, "site.yml"))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(names(pb.Plays[0].Tasks), " "); got != "d b c a" {
		t.Errorf("tasks = %s; want d b c a (d once)", got)
	}
}

// A dependency's error names the meta file that lists it, not the playbook that names the
// role (it named the playbook with the meta file's line before).
func TestRoleDependencyErrorNamesMetaFile(t *testing.T) {
	dir := testtree.Write(t, map[string]string{
		"site.yml":               "- hosts: all\n  roles: [a]\n",
		"roles/a/meta/main.yml":  "# the roles a needs\n\ndependencies: [nope]\n",
		"roles/a/tasks/main.yml": "- ping:\n",
	})
	_, err := Load(filepath.Join(dir, "site.yml"))
	want := filepath.Join(dir, "roles", "a", "meta", "main.yml") + ":3:16: role \"nope\" not found"
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("Load = %v; want %s...", err, want)
	}
}
