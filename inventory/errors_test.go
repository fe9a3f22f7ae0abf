package inventory

import (
	"errors"
	"io/fs"
	"testing"

	"github.com/kupgrade/kupgrade/internal/fault"
)

// TestLoadErrors pins the exact message of each mistake: the place (file:line:col) and the fix
// are what a user acts on.
func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"hosts as a list", map[string]string{"inventory.yml": `
all:
  hosts:
    - h1
    - h2
`}, `inventory.yml:4:5: hosts of group "all" must be a map, not a list; write hosts as a map, one host per key: ` + "`hosts: {node1: , node2: }`"},
		{"vars as a list", map[string]string{"inventory.yml": `
all:
  vars:
    - a: 1
`}, `inventory.yml:4:5: vars of group "all" must be a map, not a list; write variables as a map: ` + "`name: value`" + `, one per line`},
		{"host vars as a string", map[string]string{"inventory.yml": `
all:
  hosts:
    h1: 10.0.0.1
`}, `inventory.yml:4:9: vars of host "h1" must be a map, not the string "10.0.0.1"; write variables as a map: ` + "`name: value`" + `, one per line`},
		{"children as a list", map[string]string{"inventory.yml": `
all:
  children: [web]
`}, `inventory.yml:3:13: children of group "all" must be a map, not a list; write children as a map: ` + "`children: {web: }`" + `, one group per key`},
		{"group as a string", map[string]string{"inventory.yml": `
all:
  children:
    web: w1
`}, `inventory.yml:4:10: group "web" must be a map, not the string "w1"; write it as a map with hosts:, children: or vars:`},
		{"a cycle of children", map[string]string{"inventory.yml": `
all:
  children:
    a:
      children:
        b:
          children:
            c:
    c:
      children:
        a:
`}, `inventory.yml:11:9: group "a" is its own ancestor: a -> b -> c -> a; remove "a" from the children of "c"`},
		{"a group its own child", map[string]string{"inventory.yml": `
all:
  children:
    a:
      children:
        a:
`}, `inventory.yml:6:9: group "a" is its own ancestor: a -> a; remove "a" from the children of "a"`},
		{"all as a child", map[string]string{"inventory.yml": `
web:
  children:
    all:
`}, `inventory.yml:4:5: group all cannot be a child of "web"; remove it: every group is already inside all`},
		{"empty file", map[string]string{"inventory.yml": "# nothing\n"},
			`inventory.yml:1:1: the inventory is empty; list the hosts under all: hosts:`},
		{"a list at the top", map[string]string{"inventory.yml": "- h1\n"},
			`inventory.yml:1:1: the inventory must be a map of groups, not a list; start the file with all: and put hosts, children and vars under it`},
		{"hosts at the top", map[string]string{"inventory.yml": "hosts:\n  h1:\n"},
			`inventory.yml:1:1: "hosts" at the top of the inventory would be a group named "hosts"; indent it under all: (or under a group)`},
		{"the same host twice in one group", map[string]string{"inventory.yml": `
all:
  hosts:
    h1:
    h1:
`}, `inventory.yml:5:5: "h1" is already defined at line 4; merge the two entries into one`},
		{"bad port", map[string]string{"inventory.yml": `
all:
  hosts:
    h1:
      ansible_port: ssh
`}, `inventory.yml:5:21: ansible_port of host "h1" must be a port between 1 and 65535, not ssh; write a port number such as 22`},
		{"port out of range in group_vars", map[string]string{
			"inventory.yml":      "all:\n  hosts:\n    h1:\n",
			"group_vars/all.yml": "---\nansible_port: 70000\n"},
			`group_vars/all.yml:2:15: ansible_port of host "h1" must be a port between 1 and 65535, not 70000; write a port number such as 22`},
		{"unknown personality", map[string]string{"inventory.yml": `
all:
  hosts:
    h1: {kupgrade_personality: contoller}
`}, `inventory.yml:4:32: unknown kupgrade_personality "contoller" of host "h1"; did you mean "controller"?`},
		{"unsupported ssh option", map[string]string{"inventory.yml": `
all:
  vars:
    ansible_ssh_common_args: '-o ServerAliveInterval=30 -o ForwardAgent=yes'
  hosts:
    h1:
`}, `inventory.yml:4:30: ansible_ssh_common_args of host "h1": ssh option ForwardAgent=yes is not supported by kupgrade; ` + sshArgsFix},
		{"unsupported ssh flag", map[string]string{"inventory.yml": `
all:
  hosts:
    h1: {ansible_ssh_extra_args: -A}
`}, `inventory.yml:4:34: ansible_ssh_extra_args of host "h1": ssh option -A is not supported by kupgrade; ` + sshArgsFix},
		{"bad jump port", map[string]string{"inventory.yml": `
all:
  hosts:
    h1: {ansible_ssh_common_args: -J jump:99999}
`}, `inventory.yml:4:35: ansible_ssh_common_args of host "h1": jump host "jump:99999" has a bad port "99999"; ` + sshArgsFix},
		{"become that is not a boolean", map[string]string{"inventory.yml": `
all:
  vars: {ansible_become: maybe}
  hosts: {h1: }
`}, `inventory.yml:3:26: ansible_become of host "h1" must be a boolean, not maybe; write true or false`},
		{"user as a map", map[string]string{"inventory.yml": `
all:
  hosts:
    h1:
      ansible_user: {name: admin}
`}, `inventory.yml:5:21: ansible_user of host "h1" must be text, not a map; write it as a plain string`},
		{"cluster as a list", map[string]string{"inventory.yml": `
all:
  vars: {kupgrade_cluster: [a, b]}
  hosts: {h1: }
`}, `inventory.yml:3:28: kupgrade_cluster must be text, not a list; write it as a string`},
		{"cluster named ..", map[string]string{"inventory.yml": `
all:
  vars: {kupgrade_cluster: ..}
  hosts: {h1: }
`}, `inventory.yml:3:28: kupgrade_cluster: the cluster name ".." is a folder's name (. and ..), not a cluster's; ` + clusterFix},
		{"cluster named with a newline", map[string]string{"group_vars/all.yml": "kupgrade_cluster: \"prod\\nok\"\n",
			"inventory.yml": "all:\n  hosts: {h1: }\n"},
			`group_vars/all.yml:1:19: kupgrade_cluster: the cluster name "prod\nok" holds the control character U+000A; ` + clusterFix},
		{"cluster named nothing", map[string]string{"inventory.yml": "all:\n  vars: {kupgrade_cluster: ''}\n  hosts: {h1: }\n"},
			`inventory.yml:2:28: kupgrade_cluster: the cluster name is empty; ` + clusterFix},
		{"tab indentation", map[string]string{"inventory.yml": "all:\n  hosts:\n\th1:\n"},
			`inventory.yml:3:1: invalid YAML: found character that cannot start any token; indent with spaces, YAML does not allow tabs`},
		{"unclosed quote", map[string]string{"inventory.yml": "all:\n  hosts:\n    \"h1:\n"},
			`inventory.yml:3:5: invalid YAML: found unexpected end of stream; check the indentation and the quoting on this line and the one above`},
		{"bad range", map[string]string{"inventory.yml": "all:\n  hosts:\n    node[01:100]:\n"},
			`inventory.yml:3:5: host "node[01:100]": range [01:100] must have begin and end of equal width; write ranges as [01:10] or [a:f], optionally [1:10:2]`},
		{"mistake in a host_vars folder file", map[string]string{
			"inventory.yml":         "all:\n  hosts:\n    h1:\n",
			"host_vars/h1/main.yml": "ansible_host: [a]\n"},
			`host_vars/h1/main.yml:1:15: ansible_host of host "h1" must be text, not a list; write it as a plain string`},
		{"vars file that is a list", map[string]string{
			"inventory.yml":      "all:\n  hosts:\n    h1:\n",
			"group_vars/all.yml": "- a\n"},
			`group_vars/all.yml:1:1: a variables file must be a map, not a list; write variables as a map: ` + "`name: value`" + `, one per line`},
		{"vault encrypted value", map[string]string{"inventory.yml": `
all:
  vars:
    ansible_become_password: !vault |
      $ANSIBLE_VAULT;1.1;AES256
      31373834386361353661343163353662366237323466333463353161336262383463613165653261
      6263323964396363643331616232353562623033633830650a373834633134343463653466656235
      35633261363737626561383364356135653863346435313030653462653061396530386537626536
      6634383536313566610a316530313937636130616565626435366638356365373231633963363234
      6666
  hosts: {h1: }
`}, `inventory.yml:4:30: decrypt !vault value: no vault password was given; give the password with --vault-password-file FILE, --vault-id [label@]FILE, --ask-vault-pass or ANSIBLE_VAULT_PASSWORD_FILE`},
		{"inventory plugin", map[string]string{"inventory.yml": "plugin: aws_ec2\n"},
			`inventory.yml:1:1: inventory plugins are not supported; write a static YAML inventory (ansible-inventory -y --list prints one)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeTree(t, tt.files)
			_, err := Load(path)
			if err == nil {
				t.Fatal("Load succeeded, want an error")
			}
			if got := relErr(path, err); got != tt.want {
				t.Errorf("error:\n got %s\nwant %s", got, tt.want)
			}
			if !errors.Is(err, fault.ErrBadInput) {
				t.Errorf("error %T is not of class bad input (exit 2)", err)
			}
		})
	}
}

func TestLoadMissingFile(t *testing.T) {
	_, err := Load(t.TempDir() + "/nope.yml")
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("err = %v, want one wrapping fs.ErrNotExist", err)
	}
	if !errors.Is(err, fault.ErrBadInput) {
		t.Errorf("error %T is not of class bad input (exit 2)", err)
	}
}

const clusterFix = ClusterNameFix + `, or drop kupgrade_cluster (then --cluster names it, else it is "default")`
