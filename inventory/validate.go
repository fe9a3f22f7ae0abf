package inventory

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/kupgrade/kupgrade/internal/typo"
)

// asString accepts what Ansible would template into a string: text, numbers and booleans.
func asString(v any) (string, bool) {
	switch t := v.(type) {
	case string:
		return t, true
	case int, int64, uint64, float64, bool:
		return fmt.Sprint(t), true
	}
	return "", false
}

func asInt(v any) (int, bool) {
	switch t := v.(type) {
	case int:
		return t, true
	case int64:
		return int(t), int64(int(t)) == t
	case uint64:
		return int(t), t <= 1<<31
	case string:
		n, err := strconv.Atoi(strings.TrimSpace(t))
		return n, err == nil
	}
	return 0, false
}

// asBool follows Ansible's boolean(): yes/no, true/false, on/off, 1/0, any case.
func asBool(v any) (bool, bool) {
	switch t := v.(type) {
	case nil:
		return false, true
	case bool:
		return t, true
	case int:
		return t != 0, t == 0 || t == 1
	case string:
		switch strings.ToLower(strings.TrimSpace(t)) {
		case "yes", "true", "on", "1", "y", "t":
			return true, true
		case "no", "false", "off", "0", "n", "f", "":
			return false, true
		}
	}
	return false, false
}

var textVars = []string{"ansible_host", "ansible_ssh_host", "ansible_user", "ansible_ssh_user",
	"ansible_ssh_private_key_file", "ansible_private_key_file", "ansible_become_user",
	"ansible_ssh_args", "ansible_ssh_common_args", "ansible_ssh_extra_args", "kupgrade_personality"}

// validateHostVars checks the variables kupgrade acts on, so that a typo fails at load time with
// its place instead of sending kupgrade to port 22 or a direct connection.
func validateHostVars(host string, defs map[string]varDef) error {
	for _, name := range textVars {
		d, ok := defs[name]
		if !ok || d.val == nil {
			continue
		}
		if _, ok := asString(d.val); !ok {
			return d.at.errorf("write it as a plain string", "%s of host %q must be text, not %s",
				name, host, kindOf(d.val))
		}
	}
	for _, name := range []string{"ansible_port", "ansible_ssh_port"} {
		if d, ok := defs[name]; ok {
			if p, ok := asInt(d.val); !ok || p < 1 || p > 65535 {
				return d.at.errorf("write a port number such as 22", "%s of host %q must be a port between 1 and 65535, not %v",
					name, host, d.val)
			}
		}
	}
	if d, ok := defs["ansible_become"]; ok {
		if _, ok := asBool(d.val); !ok {
			return d.at.errorf("write true or false", "ansible_become of host %q must be a boolean, not %v", host, d.val)
		}
	}
	if d, ok := defs["kupgrade_personality"]; ok && d.val != nil {
		switch s, _ := asString(d.val); s {
		case "controller", "worker", "storage", "":
		default:
			fix := "write controller, worker or storage"
			if c := typo.Closest(s, []string{"controller", "worker", "storage"}); c != "" {
				fix = fmt.Sprintf("did you mean %q?", c)
			}
			return d.at.errorf(fix, "unknown kupgrade_personality %q of host %q", s, host)
		}
	}
	for _, name := range sshArgVars {
		if d, ok := defs[name]; ok && d.val != nil {
			s, _ := asString(d.val)
			if err := ParseSSHArgs(s, &SSHOptions{}); err != nil {
				return d.at.errorf(sshArgsFix,
					"%s of host %q: %v", name, host, err)
			}
		}
	}
	return nil
}

// sshArgsFix is the fix of every error in ansible_ssh_common_args and ansible_ssh_extra_args.
const sshArgsFix = "kupgrade honours -o ProxyJump, ProxyCommand, StrictHostKeyChecking, UserKnownHostsFile, " +
	"IdentityFile, IdentitiesOnly, User, Port, HostName and -J, -i, -l, -p, -F (docs/operator-guide.md, SSH)"

func validateInventoryVars(defs map[string]varDef) error {
	for _, name := range []string{"kupgrade_cluster", "kupgrade_known_hosts"} {
		if d, ok := defs[name]; ok && d.val != nil {
			if _, ok := d.val.(string); !ok {
				return d.at.errorf("write it as a string", "%s must be text, not %s", name, kindOf(d.val))
			}
		}
	}
	if d, ok := defs["kupgrade_cluster"]; ok && d.val != nil {
		if err := CheckClusterName(d.val.(string)); err != nil {
			return d.at.errorf(ClusterNameFix+", or drop kupgrade_cluster (then --cluster names it, else it is \"default\")",
				"kupgrade_cluster: %v", err)
		}
	}
	return nil
}

func kindOf(v any) string {
	switch v.(type) {
	case map[string]any:
		return "a map"
	case []any:
		return "a list"
	}
	return fmt.Sprintf("%v", v)
}
