package playbooks

import (
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// templatedKeys are the keywords whose value may be a whole template ("{{ retries_count }}"),
// as Ansible templates them: the runner renders each per host when the task runs and coerces
// the value as Ansible does (a boolean, a whole number, a mapping for environment).
var templatedKeys = []string{
	"retries", "ignore_errors", "no_log", "run_once", "become", "check_mode", "ignore_unreachable",
	"environment", "throttle", "diff",
}

// templatedPlayKeys are the play keywords of templatedKeys; a play's serial is rendered when
// the play starts.
var templatedPlayKeys = []string{
	"ignore_errors", "no_log", "become", "check_mode", "ignore_unreachable", "environment",
	"diff",
}

// templated records a keyword written as a template in dyn and reports whether it did. Other
// values are left to the keyword's own decoding.
func (d *decoder) templated(dyn *map[string]string, keys []string, key string, n *yaml.Node, where string) (bool, error) {
	if !slices.Contains(keys, key) {
		return false, nil
	}
	r, err := d.deref(n)
	if err != nil || r.Kind != yaml.ScalarNode || !strings.Contains(r.Value, "{{") {
		return false, err
	}
	if err := d.checkTemplate(r, r.Value, where); err != nil {
		return true, err
	}
	if *dyn == nil {
		*dyn = map[string]string{}
	}
	(*dyn)[key] = r.Value
	return true, nil
}
