package runner_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/runner/runnertest"
)

// TestTemplatedKeywords: keywords written as templates are rendered per host with Ansible's
// coercion ("2" retries, "yes" ignore_errors, a whole environment mapping from a variable,
// run_once and serial from variables), as ansible-playbook 2.14 runs the same play.
func TestTemplatedKeywords(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "once.log")
	recap, err, rec := run(t, &runnertest.LocalDialer{}, threeHosts, `- hosts: all
  gather_facts: false
  serial: "{{ batch }}"
  vars: {batch: 2, n: "2", ign: "yes", proxy: {FOO: bar, N: 3}, once: "true", who: "{{ inventory_hostname }}"}
  tasks:
    - name: retry
      shell: "exit 1"
      register: r
      until: r.rc == 0
      retries: "{{ n }}"
      delay: 0
      ignore_errors: "{{ ign }}"
    - name: env
      shell: echo $FOO$N
      environment: "{{ proxy }}"
      register: e
    - name: show
      debug: msg="{{ r.attempts }} {{ e.stdout }}"
    - name: once
      shell: echo {{ who }} >> `+log+`
      run_once: "{{ once }}"
    - name: as root
      command: "true"
      become: "{{ inventory_hostname == 'nowhere' }}"
      throttle: "{{ 1 }}"
`, runner.PlayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{"h1", "h2", "h3"} {
		if e, _ := rec.find(h, "show"); e.Msg != "2 bar3" {
			t.Errorf("%s: attempts and environment %q, want %q", h, e.Msg, "2 bar3")
		}
		if r := recap.Hosts[h]; r.Failed != 0 || r.Ignored != 1 {
			t.Errorf("%s: recap %+v, want the retries' failure ignored", h, *r)
		}
	}
	if b, _ := os.ReadFile(log); string(b) != "h1\nh3\n" {
		t.Errorf("run_once ran on %q, want once per batch of two (h1, then h3)", b)
	}
}

// TestTemplatedKeywordBadValue: a templated keyword whose value Ansible cannot coerce fails
// the task, naming the keyword, the value and the task's place.
func TestTemplatedKeywordBadValue(t *testing.T) {
	_, _, rec := run(t, &runnertest.LocalDialer{}, "all:\n  hosts:\n    h1:\n", `- hosts: all
  gather_facts: false
  tasks:
    - name: bool
      debug: msg=x
      no_log: "{{ 'maybe' }}"
      ignore_errors: true
    - name: int
      command: "true"
      register: r
      until: r.rc == 0
      retries: "{{ '2.5' }}"
      ignore_errors: true
    - name: env
      command: "true"
      environment: "{{ [1, 2] }}"
`, runner.PlayOptions{})
	for task, want := range map[string]string{
		"bool": `site.yml:4:7: no_log "{{ 'maybe' }}": "maybe" is not a valid boolean`,
		"int":  `site.yml:8:7: retries "{{ '2.5' }}": "2.5" is not a whole number`,
		"env":  `site.yml:14:7: environment "{{ [1, 2] }}": environment must be a mapping`,
	} {
		if e, _ := rec.find("h1", task); e.Event != runner.EventTaskFailed || !strings.Contains(e.Msg, want) {
			t.Errorf("%s: %s %q, want a failure saying %q", task, e.Event, e.Msg, want)
		}
	}
}
