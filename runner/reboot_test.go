package runner_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kupgrade/kupgrade/runner"
)

// rebootHosts writes a boot id file per host ("1") and returns the inventory, each host's
// boot_file variable naming its file.
func rebootHosts(t *testing.T, hosts ...string) (string, map[string]string) {
	dir := t.TempDir()
	files := map[string]string{}
	var b strings.Builder
	b.WriteString("all:\n  hosts:\n")
	for _, h := range hosts {
		files[h] = filepath.Join(dir, h)
		if err := os.WriteFile(files[h], []byte("1\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "    %s: {boot_file: %s}\n", h, files[h])
	}
	return b.String(), files
}

// reboot runs the reboot command, then dials the host again until its boot id has changed (a
// host that refuses the first dial after the reboot is waited for) and the play goes on over
// the new connection. A host whose boot id never changes fails after reboot_timeout, one whose
// reboot command fails says so, each with Ansible's message.
func TestRebootWaitsForANewBootID(t *testing.T) {
	inv, files := rebootHosts(t, "h1", "h2", "h3")
	d := &downDialer{dials: map[string]int{}, down: 1}
	recap, _, _ := run(t, d, inv, `- hosts: all
  gather_facts: false
  vars:
    commands:
      h1: "sh -c 'echo 2 > {{ boot_file }}'"
      h2: "true"
      h3: "sh -c 'echo out; echo err >&2; exit 3'"
  tasks:
    - name: reboot
      reboot: {reboot_command: "{{ commands[inventory_hostname] }}", boot_time_command: "cat {{ boot_file }}", reboot_timeout: 2}
      register: rb
    - {name: after, command: "cat {{ boot_file }}", register: after}
`, runner.PlayOptions{})
	if got := regField(t, recap, "h1", "after", "stdout"); got != "2" {
		t.Errorf("h1 after the reboot reads boot id %v, want 2", got)
	}
	if rb := recap.Registered["h1"]["rb"].(map[string]any); rb["rebooted"] != true || rb["changed"] != true {
		t.Errorf("h1 registered %v, want rebooted and changed", rb)
	}
	if _, ok := regField(t, recap, "h1", "rb", "elapsed").(int); !ok {
		t.Errorf("h1's result has no elapsed seconds: %v", recap.Registered["h1"]["rb"])
	}
	d.mu.Lock()
	dials := d.dials["h1"]
	d.mu.Unlock()
	if dials != 3 {
		t.Errorf("h1 was dialled %d times, want 3 (the play's, one refused while it rebooted, the one that answered)", dials)
	}
	wants := map[string]string{
		"h2": "Timed out waiting for last boot time check (timeout=2)",
		"h3": "Reboot command failed. Error was: 'out, err'",
	}
	for h, want := range wants {
		if m := regField(t, recap, h, "rb", "msg"); m != want {
			t.Errorf("%s says %q, want %q", h, m, want)
		}
		if rc := recap.Hosts[h]; rc.Failed != 1 || rc.Unreachable != 0 {
			t.Errorf("%s recap = %+v, want failed=1 unreachable=0", h, *rc)
		}
	}
	if got := regField(t, recap, "h3", "rb", "rebooted"); got != false {
		t.Errorf("h3's failed reboot command says rebooted=%v", got)
	}
	if b, _ := os.ReadFile(files["h2"]); string(b) != "1\n" {
		t.Errorf("h2's boot id file = %q", b)
	}
}

// Check mode reports a reboot and runs nothing; shutdown is looked for in search_paths and a
// host without it fails naming them; a local connection is refused, as it would reboot this
// machine. None of these run a command that reboots anything.
func TestRebootChecksLocalAndMissingShutdown(t *testing.T) {
	inv, files := rebootHosts(t, "h1", "h2")
	inv += "    here: {ansible_connection: local}\n"
	d := &downDialer{dials: map[string]int{}}
	recap, _, _ := run(t, d, inv, `- hosts: all
  gather_facts: false
  tasks:
    - name: in check mode
      reboot: {reboot_command: "sh -c 'echo 2 > {{ boot_file | default(\"/nonexistent\") }}'"}
      check_mode: true
      register: checked
      when: inventory_hostname == "h1"
    - name: no shutdown
      reboot: {search_paths: [/nonexistent-kupgrade, /nonexistent-too]}
      register: rb
`, runner.PlayOptions{})
	if c := recap.Registered["h1"]["checked"].(map[string]any); c["changed"] != true || c["rebooted"] != true {
		t.Errorf("check mode registered %v, want changed and rebooted", c)
	}
	if b, _ := os.ReadFile(files["h1"]); string(b) != "1\n" {
		t.Errorf("check mode ran the reboot command: boot id file = %q", b)
	}
	want := `Unable to find command "shutdown" in search paths: ['/nonexistent-kupgrade', '/nonexistent-too']`
	if m := regField(t, recap, "h2", "rb", "msg"); m != want {
		t.Errorf("h2 says %q, want %q", m, want)
	}
	if m := regField(t, recap, "here", "rb", "msg"); m != "Running reboot with local connection would reboot the control node." {
		t.Errorf("a local host says %q", m)
	}
}
