package modules

import (
	"slices"
	"testing"
)

// The expectations were recorded from ansible.posix 1.5.4's SysctlModule run on the same file,
// arguments and running value.
func TestPlanSysctlIsAnsibles(t *testing.T) {
	on := func(s string) *string { return &s }
	cases := []struct {
		name, file string
		args       map[string]any
		proc       *string
		lines      []string
		changed    bool
		write, set bool
	}{
		{"a new key in an empty file", "", map[string]any{"name": "vm.swappiness", "value": 10}, on("60\n"),
			[]string{"vm.swappiness=10"}, true, true, false},
		{"lines stripped, a later duplicate dropped", "# c\n  vm.swappiness = 60 \nnet.ipv4.ip_forward=1\n\n;x\nvm.swappiness=5\nnoeq\n",
			map[string]any{"name": "vm.swappiness", "value": "10"}, on("60\n"),
			[]string{"# c", "vm.swappiness=10", "net.ipv4.ip_forward=1", "", ";x", "noeq"}, true, true, false},
		{"the file holds it, the kernel does not: reload changes", "vm.swappiness=10\n", map[string]any{"name": "vm.swappiness", "value": "10"}, on("60\n"),
			[]string{"vm.swappiness=10"}, true, false, false},
		{"the file and the kernel hold it", "vm.swappiness=10\n", map[string]any{"name": "vm.swappiness", "value": "10"}, on("10\n"),
			[]string{"vm.swappiness=10"}, false, false, false},
		{"no reload: the file alone counts", "vm.swappiness=10\n", map[string]any{"name": "vm.swappiness", "value": "10", "reload": false}, on("60\n"),
			[]string{"vm.swappiness=10"}, false, false, false},
		{"absent removes the key", "a=1\nvm.swappiness=10\nb = 2\n", map[string]any{"name": "vm.swappiness", "state": "absent"}, on("60\n"),
			[]string{"a=1", "b=2"}, true, true, false},
		{"absent and missing", "a=1\n", map[string]any{"name": "vm.swappiness", "state": "absent"}, on("60\n"),
			[]string{"a=1"}, false, false, false},
		{"sysctl_set sets a differing kernel value", "vm.swappiness=10\n", map[string]any{"name": "vm.swappiness", "value": "10", "reload": false, "sysctl_set": true}, on("60\n"),
			[]string{"vm.swappiness=10"}, true, false, true},
		{"sysctl_set on an unreadable key changes without setting", "vm.swappiness=10\n", map[string]any{"name": "vm.swappiness", "value": "10", "reload": false, "sysctl_set": true}, nil,
			[]string{"vm.swappiness=10"}, true, false, false},
		{"words spaced otherwise are another value in the file", "net.ipv4.ip_local_port_range = 1024   65000\r\n",
			map[string]any{"name": "net.ipv4.ip_local_port_range", "value": "1024 65000"}, on("1024\t65000\n"),
			[]string{"net.ipv4.ip_local_port_range=1024 65000"}, true, true, false},
		{"yes is 1", "", map[string]any{"name": "net.ipv4.ip_forward", "value": true}, on("1\n"),
			[]string{"net.ipv4.ip_forward=1"}, true, true, false},
	}
	for _, c := range cases {
		a := sysctlArgs{name: ArgStr(c.args, "name"), value: sysctlValue(c.args), present: ArgStr(c.args, "state") != "absent",
			reload: argBool(c.args, "reload", true), set: argBool(c.args, "sysctl_set", false)}
		p := planSysctl(a, c.proc, []byte(c.file))
		if !slices.Equal(p.lines, c.lines) || p.changed != c.changed || p.writeFile != c.write || p.setProc != c.set {
			t.Errorf("%s: lines %q changed %v write %v set %v; Ansible: %q %v %v %v", c.name, p.lines, p.changed, p.writeFile, p.setProc,
				c.lines, c.changed, c.write, c.set)
		}
	}
}
