package playbooks

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/internal/testtree"
)

// TestOlderFormsAnsibleStillRuns: action:, local_action:, include: (with Ansible's deprecation
// warning), a role named with a slash under roles/, and strategy: free (run as linear, with a
// warning) load as ansible-core 2.14 runs them.
func TestOlderFormsAnsibleStillRuns(t *testing.T) {
	dir := testtree.Write(t, map[string]string{
		"inc.yml":                              "- debug: msg=included\n",
		"roles/kubernetes/node/tasks/main.yml": "- debug: msg=node\n",
		"site.yml": `- hosts: all
  strategy: free
  roles: [kubernetes/node]
  tasks:
    - action: debug msg="act {{ 1 }}"
    - action: {module: command, _raw_params: "echo hi"}
    - local_action: command echo here
    - local_action: {module: debug, msg: x}
    - include: inc.yml
    - include: "{{ 'inc' }}.yml"
`,
	})
	pb, err := Load(filepath.Join(dir, "site.yml"))
	if err != nil {
		t.Fatal(err)
	}
	tasks := pb.Plays[0].Tasks
	var got []string
	for _, tk := range tasks {
		got = append(got, describeTask(tk))
	}
	want := []string{
		"import of 1 task(s): role kubernetes/node", "debug map[msg:act {{ 1 }}]", "command map[_raw_params:echo hi]",
		"command map[_raw_params:echo here] delegate=localhost", "debug map[msg:x] delegate=localhost",
		"import of 1 task(s): debug map[msg:included]", "include_tasks {{ 'inc' }}.yml",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("tasks:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if w := strings.Join(pb.Warnings, "\n"); strings.Count(w, `"include" is deprecated`) != 2 ||
		!strings.Contains(w, "strategy free runs as linear") || !strings.Contains(w, "site.yml:9:7") {
		t.Errorf("warnings:\n%s", w)
	}
}

func describeTask(t *Task) string {
	s := fmt.Sprintf("%s %v", t.Module, t.Args)
	if t.DelegateTo != "" {
		s += " delegate=" + t.DelegateTo
	}
	switch {
	case t.Role != nil:
		s = "role " + t.Role.Name
	case t.Include != nil:
		s = fmt.Sprintf("include_tasks %s", t.Include.File)
	case t.IsBlock():
		s = fmt.Sprintf("import of %d task(s): %s", len(t.Block), describeTask(t.Block[0]))
	}
	return s
}
