package playbooks

import (
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/kupgrade/kupgrade/jinja"
)

// conditions reads a condition or a list of them and compiles each, so that a typo in an
// expression is reported at load time with its line.
func (d *decoder) conditions(n *yaml.Node, where string) ([]string, error) {
	list, nodes, err := d.strList(n, where)
	if err != nil {
		return nil, err
	}
	for i, s := range list {
		if err := d.checkCond(nodes[i], s, where); err != nil {
			return nil, err
		}
	}
	return list, nil
}

func (d *decoder) checkCond(n *yaml.Node, s, where string) error {
	if err := jinja.CheckCond(s); err != nil {
		return d.errAt(n, "bad condition in %s: %v", where, err)
	}
	return nil
}

func (d *decoder) checkTemplate(n *yaml.Node, s, where string) error {
	if err := jinja.CheckTemplate(s); err != nil {
		return d.errAt(n, "bad template in %s: %v", where, err)
	}
	return nil
}

func (d *decoder) templateStr(n *yaml.Node, where string) (string, error) {
	s, err := d.str(n, where)
	if err != nil {
		return "", err
	}
	return s, d.checkTemplate(n, s, where)
}

// seconds reads a number of seconds, a Go duration ("15m"), or a template giving either.
func (d *decoder) seconds(n *yaml.Node, where string) (string, error) {
	s, err := d.templateStr(n, where)
	if err != nil || s == "" || strings.Contains(s, "{{") {
		return s, err
	}
	if f, perr := strconv.ParseFloat(s, 64); perr == nil && f >= 0 {
		return s, nil
	}
	if dur, perr := time.ParseDuration(s); perr == nil && dur >= 0 {
		return s, nil
	}
	return "", d.errAt(n, `%s must be seconds or a duration like "15m", not %q`, where, clip(s, 40))
}

func joinConds(list []string) string {
	if len(list) == 1 {
		return list[0]
	}
	parts := make([]string, len(list))
	for i, s := range list {
		if t := strings.TrimSpace(s); strings.HasPrefix(t, "{{") && strings.HasSuffix(t, "}}") {
			s = t[2 : len(t)-2]
		}
		parts[i] = "(" + s + ")"
	}
	return strings.Join(parts, " and ")
}
