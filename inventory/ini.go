package inventory

import (
	"fmt"
	"regexp"
	"strings"
)

var (
	iniSection   = regexp.MustCompile(`^\[([^:\]\s]+)(?::(\w+))?\]\s*(?:#.*)?$`)
	iniGroupName = regexp.MustCompile(`^([^:\]\s]+)\s*(?:#.*)?$`)
)

// iniPending is a group named before it is defined: as a child in [parent:children], or by a
// [name:vars] section. Ansible requires a [name] or [name:children] section somewhere in the file.
type iniPending struct {
	state   string // "children" or "vars"
	at      pos
	parents []string
}

// iniState is where the INI reader is: the current section's group and kind.
type iniState struct {
	group   string
	kind    string // hosts, vars or children
	pending map[string]*iniPending
	order   []string // pending names, first first, for a stable error
}

// parseINI reads an INI inventory as Ansible's ini plugin does: lines before any section are
// hosts of ungrouped; [g] lists hosts with optional name=value variables, [g:vars] one name=value
// per line, [g:children] one group per line; # and ; start comment lines. Values are Python
// literals when they parse as one (see pyValue), in host lines and in :vars sections alike.
func (p *parser) parseINI(data []byte) error {
	st := &iniState{group: "ungrouped", kind: "hosts", pending: map[string]*iniPending{}}
	for i, raw := range splitLines(string(data)) {
		line := strings.TrimSpace(raw)
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		where := pos{file: p.file, line: i + 1, col: strings.Index(raw, line[:1]) + 1}
		if err := p.iniLine(st, line, where); err != nil {
			return err
		}
	}
	for _, name := range st.order {
		pd := st.pending[name]
		if pd == nil {
			continue
		}
		if pd.state == "vars" {
			return pd.at.errorf(fmt.Sprintf("define the group with a [%s] section (or [%s:children]), or fix the name", name, name),
				"[%s:vars] sets variables of group %q, which is never defined", name, name)
		}
		parent := pd.parents[len(pd.parents)-1]
		return pd.at.errorf(fmt.Sprintf("define it with a [%s] section listing its hosts, or remove it from [%s:children]", name, parent),
			"[%s:children] names group %q, which is never defined", parent, name)
	}
	return nil
}

func (p *parser) iniLine(st *iniState, line string, where pos) error {
	if m := iniSection.FindStringSubmatch(line); m != nil {
		return p.iniSection(st, m[1], m[2], where)
	}
	if strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]") {
		return where.errorf("write [group], [group:vars] or [group:children], without spaces",
			"invalid section header %s", line)
	}
	switch st.kind {
	case "vars":
		name, value, ok := strings.Cut(line, "=")
		name = strings.TrimSpace(name)
		if !ok || name == "" {
			return where.errorf("write one name=value per line in a :vars section",
				"expected name=value in [%s:vars], got %q", st.group, clip(line))
		}
		p.groups[st.group].vars[name] = varDef{val: pyValue(strings.TrimSpace(value)), at: where}
		return nil
	case "children":
		m := iniGroupName.FindStringSubmatch(line)
		if m == nil {
			return where.errorf("write one group name per line in a :children section",
				"expected a group name in [%s:children], got %q", st.group, clip(line))
		}
		return p.iniChild(st, m[1], where)
	}
	return p.iniHostLine(st.group, line, where)
}

func (p *parser) iniSection(st *iniState, name, kind string, where pos) error {
	if kind == "" {
		kind = "hosts"
	}
	if kind != "hosts" && kind != "vars" && kind != "children" {
		return where.errorf("a section is [group], [group:vars] or [group:children]",
			"section [%s:%s] has the unknown type %q", name, kind, kind)
	}
	st.group, st.kind = name, kind
	if !p.iniKnown(name) {
		if kind == "vars" && st.pending[name] == nil {
			st.pending[name] = &iniPending{state: "vars", at: where}
			st.order = append(st.order, name)
		}
	}
	p.group(name, where)
	if pd := st.pending[name]; pd != nil && kind != "vars" {
		if pd.state == "children" {
			return p.iniResolve(st, name)
		}
		delete(st.pending, name)
	}
	return nil
}

// iniKnown says whether Ansible's inventory already holds the group: all and ungrouped always do.
func (p *parser) iniKnown(name string) bool {
	return p.groups[name] != nil || name == "ungrouped"
}

func (p *parser) iniChild(st *iniState, child string, where pos) error {
	if p.iniKnown(child) {
		return p.addChild(st.group, child, where)
	}
	if pd := st.pending[child]; pd != nil {
		pd.parents = append(pd.parents, st.group)
		return nil
	}
	st.pending[child] = &iniPending{state: "children", at: where, parents: []string{st.group}}
	st.order = append(st.order, child)
	return nil
}

// iniResolve hangs a group that was named as a child before its own section under its parents.
func (p *parser) iniResolve(st *iniState, name string) error {
	pd := st.pending[name]
	delete(st.pending, name)
	for _, parent := range pd.parents {
		if err := p.addChild(parent, name, pd.at); err != nil {
			return err
		}
		if pp := st.pending[parent]; pp != nil && pp.state == "children" {
			if err := p.iniResolve(st, parent); err != nil {
				return err
			}
		}
	}
	return nil
}

// addChild makes child a child group of parent (both created when new).
func (p *parser) addChild(parent, child string, where pos) error {
	if child == "all" {
		return where.errorf("remove it: every group is already inside all", "group all cannot be a child of %q", parent)
	}
	if child == parent {
		return where.errorf(fmt.Sprintf("remove %q from its own children", child), "group %q cannot be its own child", child)
	}
	g := p.group(parent, where)
	p.group(child, where)
	if _, ok := g.childAt[child]; !ok {
		g.children = append(g.children, child)
		g.childAt[child] = where
	}
	return nil
}

func (p *parser) iniHostLine(group, line string, where pos) error {
	tokens, err := shlexSplit(line)
	if err != nil {
		return where.errorf(`quote values that hold blanks: name="a b"`, "cannot split the host line: %v", err)
	}
	if len(tokens) == 0 || tokens[0] == "" {
		return where.errorf("start the line with the host's name", "empty host name")
	}
	pattern := tokens[0]
	switch {
	case strings.HasSuffix(pattern, ":"):
		return where.errorf("write host:PORT with a port number, or drop the ':'", "host %q ends with ':'", pattern)
	case pattern == "---":
		return where.errorf("give a YAML inventory a .yml name", "'---' is not a host; is this a YAML file?")
	}
	names, port, err := expandHost(pattern)
	if err != nil {
		return where.errorf("write ranges as [01:10] or [a:f], optionally [1:10:2]", "host %q: %v", pattern, err)
	}
	vars := map[string]varDef{}
	for _, t := range tokens[1:] {
		name, value, ok := strings.Cut(t, "=")
		if !ok || name == "" {
			return where.errorf(`write host variables as name=value after the host; quote values with blanks: name="a b"`,
				"expected name=value after host %q, got %q", pattern, clip(t))
		}
		vars[name] = varDef{val: pyValue(value), at: where}
	}
	g := p.group(group, where)
	for _, name := range names {
		p.addHost(g, name, port, vars, where)
	}
	return nil
}

// splitLines splits as Python's str.splitlines does for the line ends text files use.
func splitLines(s string) []string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	lines := strings.Split(s, "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}
