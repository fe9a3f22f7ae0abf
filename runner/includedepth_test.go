package runner_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/internal/crashtest"
	"github.com/kupgrade/kupgrade/internal/testtree"
	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/runner/runnertest"
)

// includeLoop plays site.yml, whose fifth line includes a.yml, and returns h1's failure
// messages and how many times the "step" debug task ran.
func includeLoop(t *testing.T, files map[string]string) (failed []string, steps int) {
	t.Helper()
	files["inventory.yml"] = "all:\n  hosts:\n    h1:\n"
	files["site.yml"] = "- hosts: all\n  gather_facts: false\n  vars: {n: 10}\n  tasks:\n" +
		"    - include_tasks: a.yml\n" +
		"    - {name: after, debug: {msg: after}}\n"
	_, _, rec := playTree(t, &runnertest.LocalDialer{}, testtree.Write(t, files), runner.PlayOptions{})
	for _, e := range rec.events {
		switch {
		case e.Host == "h1" && e.Event == runner.EventTaskFailed:
			failed = append(failed, e.Msg)
		case e.Host == "h1" && e.Task == "step" && e.Event == runner.EventTaskOK:
			steps++
		}
	}
	return failed, steps
}

// A file that includes itself (or another that includes it back) through a templated name,
// which the loader cannot follow, fails the host past MaxIncludeDepth with the chain of
// includes; the play goes no further on it. Without the bound the process died of a stack
// overflow (the test runs in a child process so that a regression fails it instead).
func TestRecursiveIncludeRefused(t *testing.T) {
	if !crashtest.InChild(t) {
		return
	}
	self := map[string]string{
		"a.yml": "- {name: step, debug: {msg: a}}\n- include_tasks: \"{{ 'a' }}.yml\"\n",
	}
	mutual := map[string]string{
		"a.yml": "- {name: step, debug: {msg: a}}\n- include_tasks: \"{{ 'b' }}.yml\"\n",
		"b.yml": "- {name: step, debug: {msg: b}}\n- include_tasks: \"{{ 'a' }}.yml\"\n",
	}
	for name, tc := range map[string]struct {
		files map[string]string
		chain string
	}{
		"itself":          {self, "site.yml:5 -> a.yml:2 -> a.yml:2 -> ..."},
		"through another": {mutual, "site.yml:5 -> a.yml:2 -> b.yml:2 -> a.yml:2 -> ..."},
	} {
		failed, steps := includeLoop(t, tc.files)
		want := fmt.Sprintf("includes nest more than %d deep", runner.MaxIncludeDepth)
		if len(failed) != 1 || !strings.Contains(failed[0], want) || !strings.Contains(failed[0], tc.chain) {
			t.Errorf("%s: h1 failed with %q; want one failure %q with the chain %s", name, failed, want, tc.chain)
		}
		if steps != runner.MaxIncludeDepth {
			t.Errorf("%s: the included step ran %d times, want %d (one per include allowed)", name, steps, runner.MaxIncludeDepth)
		}
	}
}

// An include that recurses to an end (a countdown) runs as Ansible runs it.
func TestRecursiveIncludeWithinBound(t *testing.T) {
	failed, steps := includeLoop(t, map[string]string{
		"a.yml": "- {name: step, debug: {msg: \"{{ n }}\"}}\n" +
			"- include_tasks: \"{{ 'a' }}.yml\"\n  vars: {n: \"{{ n | int - 1 }}\"}\n  when: n | int > 1\n",
	})
	if len(failed) != 0 || steps != 10 {
		t.Errorf("countdown from 10: failures %q, %d steps; want none and 10", failed, steps)
	}
}
