package inventory

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// maxExpanded bounds how many hosts one range key like web[001:999] may produce: twice the
// largest Kubernetes cluster, and small enough that a typo cannot stall Load.
const maxExpanded = 10_000

func (p *parser) parseHosts(g *group, n *yaml.Node) error {
	n, err := p.deref(n)
	if err != nil || isNull(n) {
		return err
	}
	if n.Kind != yaml.MappingNode {
		fix := "write hosts as a map, one host per key: `hosts: {node1: , node2: }`"
		return at(p.file, n).errorf(fix, "hosts of group %q must be a map, not %s", g.name, describe(n))
	}
	seen := map[string]pos{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		pattern, err := scalarKey(p.file, k, "a host name")
		if err != nil {
			return err
		}
		if err := p.unique(seen, pattern, k); err != nil {
			return err
		}
		names, port, err := expandHost(pattern)
		if err != nil {
			return at(p.file, k).errorf("write ranges as [01:10] or [a:f], optionally [1:10:2]",
				"host %q: %v", pattern, err)
		}
		vars, err := p.parseVars(v, fmt.Sprintf("vars of host %q", pattern))
		if err != nil {
			return err
		}
		for _, name := range names {
			p.addHost(g, name, port, vars, at(p.file, k))
		}
	}
	return nil
}

// addHost puts a host in a group as Ansible's add_host and set_variable do: a host seen for the
// first time takes the port of its line and remembers the file that defined it (inventory_file);
// its variables are set every time, the last setting winning.
func (p *parser) addHost(g *group, name, port string, vars map[string]varDef, where pos) {
	h := p.hosts[name]
	if h == nil {
		h = &hostDef{name: name, at: where, vars: map[string]varDef{}, source: p.source}
		p.hosts[name] = h
		p.hostOrder = append(p.hostOrder, name)
		if port != "" {
			h.vars["ansible_port"] = varDef{val: mustAtoi(port), at: where}
		}
	}
	for vn, d := range vars {
		h.vars[vn] = d
	}
	g.addHost(name)
}

// parseVars reads a map of variables (a group's vars:, a host's inline vars or a vars file).
func (p *parser) parseVars(n *yaml.Node, what string) (map[string]varDef, error) {
	n, err := p.deref(n)
	if err != nil || isNull(n) {
		return nil, err
	}
	if n.Kind != yaml.MappingNode {
		return nil, at(p.file, n).errorf("write variables as a map: `name: value`, one per line",
			"%s must be a map, not %s", what, describe(n))
	}
	vars := map[string]varDef{}
	merged := map[string]varDef{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind == yaml.ScalarNode && k.ShortTag() == "!!merge" {
			// `<<: *defaults`: the merged map's keys lose to the ones written here.
			if err := p.mergeVars(merged, v, what); err != nil {
				return nil, err
			}
			continue
		}
		name, err := scalarKey(p.file, k, "a variable name in "+what)
		if err != nil {
			return nil, err
		}
		if first, dup := vars[name]; dup {
			return nil, at(p.file, k).errorf("keep only one of them",
				"variable %q is already set at line %d", name, first.at.line)
		}
		if _, err := p.deref(v); err != nil {
			return nil, err
		}
		val, err := decodeValue(p.file, v)
		if err != nil {
			return nil, err
		}
		vars[name] = varDef{val: val, at: at(p.file, v)}
	}
	for name, d := range merged {
		if _, ok := vars[name]; !ok {
			vars[name] = d
		}
	}
	return vars, nil
}

func (p *parser) mergeVars(into map[string]varDef, v *yaml.Node, what string) error {
	v, err := p.deref(v)
	if err != nil {
		return err
	}
	sources := []*yaml.Node{v}
	if v.Kind == yaml.SequenceNode {
		sources = v.Content
	}
	for _, s := range sources {
		m, err := p.parseVars(s, what)
		if err != nil {
			return err
		}
		for name, d := range m {
			if _, ok := into[name]; !ok { // in a list of merges the first one wins
				into[name] = d
			}
		}
	}
	return nil
}

func mustAtoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

var (
	portSuffix = regexp.MustCompile(`^(.+):([0-9]+)$`)
	hostRange  = regexp.MustCompile(`\[([0-9]*|[a-zA-Z]):([0-9]+|[a-zA-Z])(?::([0-9]+))?\]`)
)

// expandHost applies Ansible's host-key syntax: an optional :PORT (or [v6addr]:PORT) and ranges
// like node[01:20] or rack[a:c]-node[1:9:2].
func expandHost(pattern string) (names []string, port string, err error) {
	name := pattern
	if strings.HasPrefix(name, "[") && strings.Count(name, ":") > 1 {
		// a bracketed IPv6 address, with or without a port
		if i := strings.LastIndex(name, "]"); i > 0 {
			if rest := name[i+1:]; rest == "" || (strings.HasPrefix(rest, ":") && isDigits(rest[1:])) {
				return []string{name[1:i]}, strings.TrimPrefix(rest, ":"), nil
			}
		}
	}
	if m := portSuffix.FindStringSubmatch(name); m != nil && !strings.Contains(hostRange.ReplaceAllString(m[1], ""), ":") {
		name, port = m[1], m[2]
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return nil, "", fmt.Errorf("port %s is not between 1 and 65535", port)
		}
	}
	names, err = expandRanges(name, nil)
	return names, port, err
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

func expandRanges(name string, out []string) ([]string, error) {
	loc := hostRange.FindStringSubmatchIndex(name)
	if loc == nil {
		return append(out, name), nil
	}
	head, tail := name[:loc[0]], name[loc[1]:]
	beg, end := name[loc[2]:loc[3]], name[loc[4]:loc[5]]
	step := 1
	if loc[6] >= 0 {
		step = mustAtoi(name[loc[6]:loc[7]])
		if step < 1 {
			return nil, fmt.Errorf("range step must be at least 1")
		}
	}
	seq, err := rangeSeq(beg, end, step)
	if err != nil {
		return nil, err
	}
	for _, s := range seq {
		if len(out) >= maxExpanded {
			return nil, fmt.Errorf("ranges expand to more than %d hosts", maxExpanded)
		}
		if out, err = expandRanges(head+s+tail, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func rangeSeq(beg, end string, step int) ([]string, error) {
	if beg == "" {
		beg = "0"
	}
	if isDigits(beg) != isDigits(end) {
		return nil, fmt.Errorf("range [%s:%s] mixes letters and numbers", beg, end)
	}
	var seq []string
	if !isDigits(beg) {
		if beg[0] > end[0] {
			return nil, fmt.Errorf("range [%s:%s] runs backwards", beg, end)
		}
		for c := int(beg[0]); c <= int(end[0]); c += step {
			seq = append(seq, string(rune(c)))
		}
		return seq, nil
	}
	width := 0
	if len(beg) > 1 && beg[0] == '0' {
		width = len(beg) // leading zeros: keep the width, as Ansible does
		if len(end) != width {
			return nil, fmt.Errorf("range [%s:%s] must have begin and end of equal width", beg, end)
		}
	}
	b, err1 := strconv.Atoi(beg)
	e, err2 := strconv.Atoi(end)
	if err1 != nil || err2 != nil || b > e {
		return nil, fmt.Errorf("range [%s:%s] is not an ascending range of numbers", beg, end)
	}
	if (e-b)/step >= maxExpanded {
		return nil, fmt.Errorf("ranges expand to more than %d hosts", maxExpanded)
	}
	for i := b; i <= e; i += step {
		seq = append(seq, fmt.Sprintf("%0*d", width, i))
	}
	return seq, nil
}
