package runner_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/runner/runnertest"
)

// fakeSudo puts a `sudo` on PATH that checks the runner's exact form `sudo -n -u USER -- sh -c
// SCRIPT`, logs the user, and runs the script: the quoting is tested by a real shell.
func fakeSudo(t *testing.T) (env []string, log string) {
	t.Helper()
	dir := t.TempDir()
	log = filepath.Join(dir, "sudo.log")
	script := `#!/bin/sh
[ "$1" = -n ] && [ "$2" = -u ] && [ "$4" = -- ] && [ "$5" = sh ] && [ "$6" = -c ] || { echo "bad sudo call: $*" >&2; exit 99; }
echo "$3" >> ` + log + `
shift 4
exec "$@"
`
	if err := os.WriteFile(filepath.Join(dir, "sudo"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return []string{"PATH=" + dir + ":" + os.Getenv("PATH")}, log
}

func TestBecomeAndEnvironmentQuoting(t *testing.T) {
	env, log := fakeSudo(t)
	d := &runnertest.LocalDialer{Env: env}
	tricky := `printf '%s|' "it's" 'a$b' "$GREETING" "two
lines" \$HOME`
	recap, err, _ := run(t, d, "all:\n  hosts:\n    h1:\n", `- hosts: all
  gather_facts: false
  vars:
    script: |-
`+indent(tricky, "      ")+`
  tasks:
    - name: plain
      shell: "{{ script }}"
      environment:
        GREETING: "it's \"quoted\" $x"
      register: plain
    - name: become
      shell: "{{ script }}"
      become: true
      become_user: kube
      environment:
        GREETING: "it's \"quoted\" $x"
      register: sudo
`, runner.PlayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := `it's|a$b|it's "quoted" $x|two` + "\nlines|$HOME|"
	reg := recap.Registered["h1"]
	if got := reg["plain"].(map[string]any)["stdout"]; got != want {
		t.Errorf("plain stdout = %q, want %q", got, want)
	}
	if got := reg["sudo"].(map[string]any)["stdout"]; got != want {
		t.Errorf("become stdout = %q, want %q", got, want)
	}
	if b, _ := os.ReadFile(log); string(b) != "kube\n" {
		t.Errorf("sudo log = %q, want one call as kube", b)
	}
}

func indent(s, pre string) string {
	return pre + strings.ReplaceAll(s, "\n", "\n"+pre)
}

func TestNoLogHidesEverywhere(t *testing.T) {
	const secret = "s3cr3t-token"
	var out bytes.Buffer
	i, p := setup(t, "all:\n  hosts:\n    h1:\n", `- hosts: all
  gather_facts: false
  vars:
    token: `+secret+`
  tasks:
    - name: use token
      shell: echo {{ token }}; echo {{ token }} >&2
      register: used
      no_log: true
    - name: see it later
      debug:
        msg: "{{ used.stdout | length }}"
    - name: leak attempt
      shell: echo {{ token }} >&2; exit 7
      no_log: true
`)
	r := runner.New(&runnertest.LocalDialer{}, runner.Options{Reporter: runner.NewJSONReporter(&out)})
	defer r.Close()
	var text bytes.Buffer
	tr := runner.New(&runnertest.LocalDialer{}, runner.Options{Reporter: runner.NewTextReporter(&text, false)})
	defer tr.Close()
	recap, err := r.Play(t.Context(), p, i, runner.PlayOptions{})
	if err == nil {
		t.Fatal("want the leak attempt's failure")
	}
	tr.Play(t.Context(), p, i, runner.PlayOptions{})
	for name, s := range map[string]string{"json events": out.String(), "text": text.String(), "error": err.Error(),
		"failure result": toString(recap.Failures[0].Result), "registered": toString(recap.Registered["h1"])} {
		if strings.Contains(s, secret) {
			t.Errorf("%s shows the secret:\n%s", name, s)
		}
	}
	if !strings.Contains(out.String(), `"msg":"12"`) {
		t.Errorf("later tasks must still see the real value (length 12):\n%s", out.String())
	}
}

func toString(v any) string { return fmt.Sprint(v) }

func TestRunOnceLoopAndVariables(t *testing.T) {
	recap, err, rec := run(t, &runnertest.LocalDialer{}, threeHosts, `- hosts: all
  gather_facts: false
  vars:
    color: red
    who: play
    n: 0
  tasks:
    - name: once
      command: echo {{ inventory_hostname }}
      run_once: true
      register: first
    - name: facts
      set_fact:
        who: fact-{{ inventory_hostname }}
        color: green
    - name: loop
      command: echo {{ item }}-{{ inventory_hostname }}
      loop: "{{ groups['controllers'] }}"
      register: looped
    - name: cross host
      debug:
        msg: "{{ first.stdout }} {{ who }} {{ color }} {{ hostvars['h1'].who }} {{ looped.results[1].stdout }} {{ extra }}"
`, runner.PlayOptions{ExtraVars: map[string]any{"color": "extra-wins", "extra": "e"}})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(rec.results("h2")); n != 3 {
		t.Errorf("h2 ran %d tasks, want 3 (run_once runs on h1 only): %q", n, rec.results("h2"))
	}
	if e, _ := rec.find("h3", "cross host"); e.Msg != "h1 fact-h3 extra-wins fact-h1 h2-h3 e" {
		t.Errorf("msg = %q", e.Msg)
	}
	if got := recap.Registered["h3"]["first"].(map[string]any)["stdout"]; got != "h1" {
		t.Errorf("run_once result on h3 = %v, want h1's", got)
	}
}

func TestTags(t *testing.T) {
	pb := `- hosts: all
  gather_facts: false
  tasks:
    - {name: a, command: "true", tags: [a]}
    - {name: b, command: "true", tags: [b]}
    - {name: untagged, command: "true"}
    - {name: always, command: "true", tags: [always]}
    - {name: never, command: "true", tags: [never, debugging]}
    - name: blk
      tags: [blk]
      block:
        - {name: inblock, command: "true"}
`
	cases := []struct {
		name       string
		tags, skip []string
		want       string
	}{
		{"all", nil, nil, "a b untagged always inblock"},
		{"only a", []string{"a"}, nil, "a always"},
		{"block tags inherit", []string{"blk"}, nil, "always inblock"},
		{"never by its tag", []string{"debugging"}, nil, "always never"},
		{"skip", nil, []string{"b", "always"}, "a untagged inblock"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err, rec := run(t, &runnertest.LocalDialer{}, "all:\n  hosts:\n    h1:\n", pb,
				runner.PlayOptions{Tags: c.tags, SkipTags: c.skip})
			if err != nil {
				t.Fatal(err)
			}
			var ran []string
			for _, r := range rec.results("h1") {
				ran = append(ran, strings.TrimPrefix(r, "task_changed "))
			}
			if strings.Join(ran, " ") != c.want {
				t.Errorf("ran %q, want %q", ran, c.want)
			}
		})
	}
}

func TestCheckMode(t *testing.T) {
	dir := t.TempDir()
	dest := filepath.Join(dir, "f")
	recap, err, rec := run(t, &runnertest.LocalDialer{}, "all:\n  hosts:\n    h1:\n", `- hosts: all
  gather_facts: false
  tasks:
    - name: cmd
      command: touch `+dest+`.cmd
    - name: forced
      command: echo {{ ansible_check_mode }}
      check_mode: false
      register: forced
    - name: copy
      copy:
        content: hello
        dest: `+dest+`
    - name: dir
      file:
        path: `+dest+`.d
        state: directory
`, runner.PlayOptions{Check: true})
	if err != nil {
		t.Fatal(err)
	}
	want := "task_skipped cmd\ntask_changed forced\ntask_changed copy\ntask_changed dir"
	if got := joined(rec.results("h1")); got != want {
		t.Errorf("results:\n%s\nwant:\n%s", got, want)
	}
	// Ansible writes a boolean into text as Python does.
	if got := recap.Registered["h1"]["forced"].(map[string]any)["stdout"]; got != "True" {
		t.Errorf("ansible_check_mode = %v", got)
	}
	for _, p := range []string{dest, dest + ".cmd", dest + ".d"} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("check mode created %s", p)
		}
	}
}

func TestSerialMaxFailAndAnyErrorsFatal(t *testing.T) {
	cases := []struct {
		name, play, fail string
		ran              map[string]bool // hosts that ran the last task
	}{
		{"serial with max_fail_percentage 0 stops later batches", "serial: 1\n  max_fail_percentage: 0", "h1",
			map[string]bool{"h1": false, "h2": false, "h3": false}},
		// As Ansible: a batch whose hosts all failed ends the playbook.
		{"a batch that all failed ends the play", "serial: [1, 2]", "h1", map[string]bool{"h1": false, "h2": false, "h3": false}},
		{"serial goes on after a batch that partly failed", "serial: [1, 2]", "h2", map[string]bool{"h1": true, "h2": false, "h3": true}},
		{"any_errors_fatal stops everyone", "any_errors_fatal: true", "h1", map[string]bool{"h1": false, "h2": false, "h3": false}},
		{"percentage above the threshold goes on", "max_fail_percentage: 50", "h1", map[string]bool{"h2": true, "h3": true}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, rec := run(t, &runnertest.LocalDialer{}, threeHosts, `- hosts: all
  gather_facts: false
  `+c.play+`
  tasks:
    - name: fail one
      command: "false"
      when: inventory_hostname == '`+c.fail+`'
    - name: last
      command: "true"
`, runner.PlayOptions{})
			for h, want := range c.ran {
				_, got := rec.find(h, "last")
				if got != want {
					t.Errorf("%s ran last = %v, want %v", h, got, want)
				}
			}
		})
	}
}

// As Ansible, a play whose hosts all failed ends the playbook, and so does any_errors_fatal:
// the next play, on another host, does not run.
func TestFailedPlayEndsThePlaybook(t *testing.T) {
	for _, c := range []struct{ extra, fail string }{
		{"", "true"},
		{"  any_errors_fatal: true\n", "inventory_hostname == 'h1'"},
	} {
		_, _, rec := run(t, &runnertest.LocalDialer{}, threeHosts, `- hosts: h1:h2
  gather_facts: false
`+c.extra+`  tasks:
    - {name: fails, command: "false", when: "`+c.fail+`"}
- hosts: h3
  gather_facts: false
  tasks:
    - {name: next play, command: "true"}
`, runner.PlayOptions{})
		if _, ran := rec.find("h3", "next play"); ran {
			t.Errorf("%q: the next play ran", c.extra+c.fail)
		}
	}
}
