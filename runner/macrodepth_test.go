package runner_test

import (
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/internal/crashtest"
	"github.com/kupgrade/kupgrade/internal/testtree"
	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/runner/runnertest"
)

// A template file whose macro calls itself without end fails its task with the file and the
// macro's line; the play goes on without that host. Before, the process died of a stack
// overflow (the test runs in a child process so that a regression fails it instead).
func TestTemplateRecursiveMacroFailsTask(t *testing.T) {
	if !crashtest.InChild(t) {
		return
	}
	dir := testtree.Write(t, map[string]string{
		"inventory.yml": "all:\n  hosts:\n    h1:\n",
		"site.yml": "- hosts: all\n  gather_facts: false\n  tasks:\n" +
			"    - {name: conf, template: {src: loop.j2, dest: \"{{ playbook_dir }}/out\"}}\n" +
			"    - {name: after, debug: {msg: after}}\n",
		"templates/loop.j2": "# managed\n{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}\n{{ f(0) }}\n",
	})
	_, err, rec := playTree(t, &runnertest.LocalDialer{}, dir, runner.PlayOptions{})
	e, _ := rec.find("h1", "conf")
	if err == nil || e.Event != runner.EventTaskFailed {
		t.Fatalf("play error %v, conf %s; want the task failed", err, e.Event)
	}
	for _, want := range []string{"template loop.j2", "line 2: macro 'f' nests calls more than 100 deep"} {
		if !strings.Contains(e.Msg, want) {
			t.Errorf("conf failed with %q; want %q in it", e.Msg, want)
		}
	}
	if _, ran := rec.find("h1", "after"); ran {
		t.Error("the task after the failed one ran on the failed host")
	}
}
