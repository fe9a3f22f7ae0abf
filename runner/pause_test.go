package runner_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/runner"
	"github.com/kupgrade/kupgrade/runner/runnertest"
)

// pause runs as ansible-core 2.14 runs it without a terminal: once for the batch, on its first
// host only (the others neither count nor register it); seconds wait on the controller (the
// result's delta says how long), a prompt alone continues at once with Ansible's warning, and
// the result has Ansible's keys.
func TestPauseWithoutATerminal(t *testing.T) {
	recap, err, _ := run(t, &runnertest.LocalDialer{}, "all:\n  hosts:\n    h1:\n    h2:\n", `- hosts: all
  gather_facts: false
  tasks:
    - {pause: {seconds: "{{ 1 }}", echo: false}, register: waited}
    - {pause: {prompt: "Continue?"}, register: asked}
    - {pause: {seconds: soon}, register: bad, ignore_errors: true}
`, runner.PlayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := recap.Registered["h2"]["waited"]; ok || recap.Hosts["h2"].OK != 0 {
		t.Errorf("h2 has pause's result (recap %+v), want it on the first host only", *recap.Hosts["h2"])
	}
	{
		h := "h1"
		if d, ok := regField(t, recap, h, "waited", "delta").(int); !ok || d < 1 {
			t.Errorf("%s: pause seconds 1 has delta %v, want at least 1", h, regField(t, recap, h, "waited", "delta"))
		}
		out := fmt.Sprint(regField(t, recap, h, "waited", "stdout"))
		if !strings.HasPrefix(out, "Paused for 1.") || !strings.HasSuffix(out, " seconds") {
			t.Errorf("%s: pause says %q, want Paused for 1.x seconds", h, out)
		}
		if e := regField(t, recap, h, "waited", "echo"); e != false {
			t.Errorf("%s: echo is %v, want false", h, e)
		}
		if w := fmt.Sprint(regField(t, recap, h, "asked", "warnings")); !strings.Contains(w, "stdin is not interactive") {
			t.Errorf("%s: a prompt alone warns %q, want Ansible's not-interactive warning", h, w)
		}
		if out := fmt.Sprint(regField(t, recap, h, "asked", "stdout")); !strings.HasSuffix(out, " minutes") {
			t.Errorf("%s: a prompt alone says %q, want Paused for ... minutes", h, out)
		}
		if m := fmt.Sprint(regField(t, recap, h, "bad", "msg")); !strings.Contains(m, `seconds "soon" is not a number`) {
			t.Errorf("%s: a bad seconds says %q", h, m)
		}
	}
	if rc := recap.Hosts["h1"]; rc.OK != 3 || rc.Ignored != 1 {
		t.Errorf("h1 recap = %+v, want ok=3 ignored=1", *rc)
	}
}
